"""Critics: the deterministic static family lives in `static/`; model critics in `contend.agents`."""
