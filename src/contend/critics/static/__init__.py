"""Deterministic critics: offline topic checks over a git diff (see registry and runner)."""
