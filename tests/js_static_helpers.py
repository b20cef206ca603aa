"""Helpers the JS/TS test-weakening tests share: a change from dedented sources and the
critic's findings on it (a skip inside those tests is itself a failure)."""

from __future__ import annotations

from textwrap import dedent

from contend.critics.static import js_weakened_tests
from contend.critics.static.base import FileChange, Finding, Skipped
from contend.critics.static.testing import change_from_texts


def source(text: str) -> str:
    return dedent(text).lstrip("\n")


def change(path: str, old: str | None, new: str | None) -> FileChange:
    return change_from_texts(
        path, source(old) if old is not None else None, source(new) if new is not None else None
    )


def tw(*changes: FileChange) -> list[Finding]:
    results = list(js_weakened_tests.CRITIC.check(list(changes)))
    assert not any(isinstance(r, Skipped) for r in results), results
    return [r for r in results if isinstance(r, Finding)]
