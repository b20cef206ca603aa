"""Pairs the old and new functions of the changed Python test files for the `test-weakening`
critic: by qualified name, then bare name, identical or similar body, the same checks with
locals renamed, or a kept name prefix; what stays unpaired was deleted or added."""

from __future__ import annotations

import ast
import difflib
from collections import Counter
from collections.abc import Callable

from contend.critics.static import pyast
from contend.critics.static import weakened_tests_rules as r
from contend.critics.static.weakened_tests_sides import (
    File,
    Ref,
    bare,
    is_test,
    same_function,
    untouched,
)

_SIMILAR = 0.5


def pair(files: list[File]) -> tuple[list[tuple[Ref, Ref]], list[Ref], list[Ref]]:
    """(old/new pairs, old tests without a partner, new tests without a partner)."""
    pairs: list[tuple[Ref, Ref]] = []
    old_left: list[Ref] = []
    new_left: list[Ref] = []
    for file in files:
        old_fns = file.old.functions if file.old else {}
        new_fns = file.new.functions if file.new else {}
        pairs.extend((Ref(file, q), Ref(file, q)) for q in old_fns if q in new_fns)
        old_left.extend(Ref(file, q) for q in old_fns if q not in new_fns and is_test(q))
        new_left.extend(Ref(file, q) for q in new_fns if q not in old_fns and is_test(q))
    bodies: dict[tuple[int, str, str], tuple[str, ...]] = {}

    def body(ref: Ref, side: str) -> tuple[str, ...]:
        key = (id(ref.file), side, ref.qualname)
        if key not in bodies:
            bodies[key] = _body(ref.new if side == "new" else ref.old)
        return bodies[key]

    def similarity(o: Ref, n: Ref) -> float:
        return _similarity(body(o, "old"), body(n, "new"))

    checks: dict[tuple[int, str, str], Counter[str]] = {}

    def alpha(ref: Ref, side: str) -> Counter[str]:
        key = (id(ref.file), side, ref.qualname)
        if key not in checks:
            fn, owner = (ref.new, ref.file.new) if side == "new" else (ref.old, ref.file.old)
            assert owner is not None  # refs of a side come from that side
            checks[key] = Counter(r.alpha_keys(fn.node, owner.is_helper))
        return checks[key]

    def same_checks(o: Ref, n: Ref) -> float:
        """A renamed and rewritten test that makes the old test's checks, its locals renamed
        (only checks that name a call or an attribute: `x == 1` alone says too little)."""
        before = alpha(o, "old")
        if not any("Call(" in k or "Attribute(" in k for k in before):
            return 0.0
        return float(not before - alpha(n, "new"))

    stages: list[Callable[[Ref, Ref], float]] = [
        lambda o, n: float(o.file is n.file and bare(o) == bare(n)),
        lambda o, n: float(o.file is n.file and body(o, "old") == body(n, "new")),
        lambda o, n: float(bare(o) == bare(n) and similarity(o, n) >= _SIMILAR),
        lambda o, n: float(body(o, "old") == body(n, "new")),
        lambda o, n: similarity(o, n) if o.file is n.file else 0.0,
        lambda o, n: same_checks(o, n) if o.file is n.file else 0.0,
        same_checks,
        lambda o, n: float(o.file is n.file and _renamed(bare(o), bare(n))),
    ]
    for score in stages:
        for old_ref in list(old_left):
            scored = [(score(old_ref, n), -i) for i, n in enumerate(new_left)]
            best, first = max(scored, default=(0.0, 0))  # ties: the earliest new test
            if best >= _SIMILAR:
                pairs.append((old_ref, new_left.pop(-first)))
                old_left.remove(old_ref)
    return pairs, old_left, new_left


def _renamed(old: str, new: str) -> bool:
    """`test_x` -> `test_x_raises_key_error`, `test_dump_returns_a_result` ->
    `test_dump_returns_a_dict`: most of the old name kept as the start of the new one."""
    shared = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), None)
    if shared is None:
        shared = min(len(old), len(new))
    return shared >= max(10, int(0.6 * len(old)))


def _body(fn: pyast.Function) -> tuple[str, ...]:
    """The statements of a function without its docstring, in canonical form."""
    body = fn.node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return tuple(r.canon(statement) for statement in body)


def _similarity(old_body: tuple[str, ...], new_body: tuple[str, ...]) -> float:
    if not old_body or not new_body:
        return 0.0
    matcher = difflib.SequenceMatcher(a=old_body, b=new_body, autojunk=False)
    if matcher.real_quick_ratio() < _SIMILAR or matcher.quick_ratio() < _SIMILAR:
        return 0.0
    return matcher.ratio()


def gained_checks(old_ref: Ref, new_ref: Ref) -> bool:
    if same_function(old_ref, new_ref) and untouched(new_ref.file, old_ref):
        return False
    return _assert_count(new_ref.new.node) > _assert_count(old_ref.old.node)


def _assert_count(fn: pyast.FunctionNode) -> int:
    """A cheap count of assertion-like statements and calls."""
    count = 0
    for node in r.walk(fn.body):
        if isinstance(node, ast.Assert):
            count += 1
        elif isinstance(node, ast.Call):
            name = (r.dotted(node.func) or "").split(".")[-1]
            count += name.startswith("assert") or name in ("raises", "warns")
    return count
