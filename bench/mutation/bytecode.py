"""Mutants that are the same program, found by their bytecode: each judged at most once.

A mutated module is compiled (as `compile()` does when it is imported) and its code
objects are compared, recursively, by what the interpreter runs: the bytecode, constants,
names, local and closure variables, flags, argument counts, exception table and the line
of each instruction. Only columns differ between two such modules (a traceback's caret),
so they behave the same for every test.

- A mutant whose module compiles to the same code as the unmutated one changes nothing
  the interpreter sees: equivalent by construction, counted as equivalent with that
  reason (never run).
- Mutants of one file that compile to the same code as each other are one program —
  CPython compiles `if not (a is b)` as `if a is not b`, and removing the only statement
  of an `if` body leaves the same code as removing the body: the first is judged, against
  the tests selected for any of them, and the others get its outcome (never run).

Compiling every mutant also proves each is valid Python (a SyntaxError is a bug of
mutate.py). The fingerprints are cached per file (by its text and this tool's code).
"""

from __future__ import annotations

import hashlib
import json
import sys
import types
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mutate import Mutant

HERE = Path(__file__).resolve().parent
SAME_AS_ORIGINAL = (
    "compiles to the same bytecode as the unmutated module (equivalent by construction: "
    "nothing the interpreter runs differs)"
)


def _const(value: object) -> object:
    if isinstance(value, types.CodeType):
        return _code(value)
    if isinstance(value, tuple | frozenset):
        items = [_const(v) for v in value]
        if isinstance(value, frozenset):
            items.sort(key=repr)
        return (type(value).__name__, tuple(items))
    # The type too: 1, 1.0 and True are equal constants but different values.
    return (type(value).__name__, repr(value))


def _code(code: types.CodeType) -> tuple[object, ...]:
    return (
        code.co_code,
        code.co_argcount,
        code.co_posonlyargcount,
        code.co_kwonlyargcount,
        code.co_flags,
        code.co_stacksize,
        code.co_names,
        code.co_varnames,
        code.co_freevars,
        code.co_cellvars,
        code.co_exceptiontable,
        tuple(code.co_lines()),
        code.co_name,
        code.co_qualname,
        tuple(_const(c) for c in code.co_consts),
    )


def fingerprint(source: str, filename: str) -> str:
    """A digest of what the interpreter runs for this module text."""
    code = compile(source, filename, "exec", dont_inherit=True)
    return hashlib.sha256(repr(_code(code)).encode()).hexdigest()


@dataclass(slots=True)
class Classes:
    identical: set[str] = field(default_factory=set)  # keys: same code as the unmutated module
    same_as: dict[str, str] = field(default_factory=dict)  # key → the first key of its program

    def groups(self) -> dict[str, list[str]]:
        """first key → every other key of the same program."""
        out: dict[str, list[str]] = {}
        for key, first in self.same_as.items():
            out.setdefault(first, []).append(key)
        return out


def _tool_digest() -> str:
    h = hashlib.sha256(sys.version.encode())
    for name in ("bytecode.py", "mutate.py"):
        h.update((HERE / name).read_bytes())
    return h.hexdigest()


def _text_digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def classify(sources: dict[str, str], mutants: Sequence[Mutant], cache: Path | None) -> Classes:
    """Sets apart the mutants identical to their unmutated module, and groups the rest of
    each file by program (in the order of `mutants`: the first of a group is judged)."""
    tool = _tool_digest()
    stored: dict[str, Any] = {}
    if cache is not None and cache.exists():
        data = json.loads(cache.read_text())
        if data.get("tool") == tool:
            stored = data["files"]
    files: dict[str, Any] = {}
    by_path: dict[str, list[Mutant]] = {}
    for m in mutants:
        by_path.setdefault(m.path, []).append(m)
    out = Classes()
    for path, ms in by_path.items():
        text = sources[path]
        entry = stored.get(path)
        if entry is None or entry["source"] != _text_digest(text):
            entry = {"source": _text_digest(text), "original": fingerprint(text, path), "of": {}}
        prints: dict[str, str] = entry["of"]
        for m in ms:
            if m.key not in prints:
                try:
                    prints[m.key] = fingerprint(m.apply(text), path)
                except SyntaxError as exc:  # a bug of mutate.py, never of the code under test
                    raise AssertionError(f"mutant breaks syntax: {m.key}") from exc
        files[path] = entry
        first_of: dict[str, str] = {}
        for m in ms:
            fp = prints[m.key]
            if fp == entry["original"]:
                out.identical.add(m.key)
            elif fp in first_of:
                out.same_as[m.key] = first_of[fp]
            else:
                first_of[fp] = m.key
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        kept = {p: e for p, e in stored.items() if p not in files}
        cache.write_text(json.dumps({"tool": tool, "files": {**kept, **files}}))
    return out


def shared_tests(classes: Classes, tests: dict[str, Iterable[str]]) -> dict[str, set[str]]:
    """Per key of a group, the tests selected for any member: one program, one selection
    (a removed `if` body is selected by its header's tests, its only statement by its
    own: both can tell)."""
    union: dict[str, set[str]] = {}
    for first, others in classes.groups().items():
        together = set(tests.get(first, ()))
        for key in others:
            together |= set(tests.get(key, ()))
        for key in (first, *others):
            union[key] = together
    return union
