__version__ = "0.0.0+kvfuzz-stand-in"
