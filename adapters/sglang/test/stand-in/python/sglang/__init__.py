# kvfuzz stand-in. SGLang's real package __init__ imports the whole engine, so the adapter never
# runs package __init__ files; this one fails loudly if it ever is.
raise ImportError("the kvfuzz stand-in's sglang/__init__.py ran: the adapter must not run package __init__ files")
