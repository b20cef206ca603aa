"""The command line: one module per command group; `main` maps errors to exit codes."""
