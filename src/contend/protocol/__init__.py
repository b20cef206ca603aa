"""The pure protocol core: attacks, events, the state machine, contention, termination, verdict.

Nothing in this package performs I/O: no subprocess, HTTP, git, clock or filesystem.
Identifiers and timestamps are handed in by the caller.
"""
