"""Critics: the deterministic static family is in `static/`; model critics in `agents`."""
