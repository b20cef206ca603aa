"""Benign controls from real sweeps (issue 8): mechanical rewrites a project applies across a
code base — a stricter type checker, a dropped Python 2 compatibility layer, pyupgrade —
that restate what the code does without weakening it. A critic that reads the new spelling
as new code raises on them; contend must not.

- `explicit_generic`: a bare generic annotation of a parameter or return (`dict`, `list`,
  `tuple`, `Callable`, …) written out with its implicit `Any` parameters (`dict` →
  `Dict[str, Any]`, `tuple` → `Tuple[Any, ...]`), as mypy's `disallow_any_generics` asks.

Each returns every site in a file, as the other operators do (splice.Operator).
"""

from __future__ import annotations

import ast
import random

from splice import Edit, Mutation, Source, functions

_LABEL = "benign"

# bare generic -> its explicit spelling with the parameters mypy reads as Any
_EXPLICIT = {
    "dict": "Dict[str, Any]",
    "Dict": "Dict[str, Any]",
    "list": "List[Any]",
    "List": "List[Any]",
    "set": "Set[Any]",
    "frozenset": "FrozenSet[Any]",
    "tuple": "Tuple[Any, ...]",
    "Tuple": "Tuple[Any, ...]",
    "type": "Type[Any]",
    "Callable": "Callable[..., Any]",
    "Sequence": "Sequence[Any]",
    "Mapping": "Mapping[str, Any]",
    "Iterable": "Iterable[Any]",
    "Iterator": "Iterator[Any]",
}


def explicit_generic(src: Source, rng: random.Random) -> list[Mutation]:
    out = []
    for func in functions(src.tree):
        args = func.args
        slots = [a.annotation for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]
        for annotation in [*slots, func.returns]:
            if not (isinstance(annotation, ast.Name) and annotation.id in _EXPLICIT):
                continue
            explicit = _EXPLICIT[annotation.id]
            head = explicit.split("[", 1)[0]
            names = sorted({"Any", head})
            start, end = src.node_range(annotation)
            edits = [Edit(start, end, explicit)]
            anchor = src.import_edit(f"from typing import {', '.join(names)}")
            if anchor is not None:
                edits.append(anchor)
            out.append(Mutation("explicit_generic", _LABEL, tuple(edits)))
    return out


SWEEPS = {
    "explicit_generic": explicit_generic,
}
