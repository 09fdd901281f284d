"""kvfuzz stand-in package (never imported as a package __init__ by the adapter)."""
