"""The op families, one package each (``codegen/families/<name>/``); :mod:`codegen.registry` finds them and is
the only way shared stages reach them."""
