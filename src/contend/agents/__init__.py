"""Agent backends: one module per backend behind one narrow async interface (`base.Agent`).

The core never imports a vendor SDK; adapters import theirs lazily and raise an error
naming the extra to install when it is missing.
"""
