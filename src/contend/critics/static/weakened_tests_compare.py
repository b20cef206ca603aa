"""How two versions of a test's checks compare: which new check replaces an old one, whether
it is weaker, and (coverage) whether a test's checks survive in another shape — as cases of
a parametrized test, in a loop, through a local variable, or ported from a removed helper.

Pure functions over `weakened_tests_rules.Check`; the critic (weakened_tests.py) pairs the
functions and reports.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
from collections.abc import Callable, Iterable

from contend.critics.static import pyast
from contend.critics.static.weakened_tests_check import _tokens
from contend.critics.static.weakened_tests_rules import (
    BROAD_EXCEPTIONS,
    EXPECTATIONS,
    Check,
    canon,
    dotted,
    widened,
)

# --------------------------------------------------------------------------- comparing


RULE_WEAKENED = "assertion-weakened"
RULE_TOLERANCE = "tolerance-widened"
RULE_EXCEPTION = "expected-exception-widened"

_KIND: dict[str, str] = {
    "eq": "an equality check",
    "is": "an identity check",
    "is_none": "an `is None` check",
    "approx": "an approximate equality",
    "almost": "an almost-equal check",
    "isclose": "an isclose check",
    "count_eq": "an order-blind equality",
    "regex": "a regex match",
    "cmp": "an ordering comparison",
    "in": "a membership check",
    "isinstance": "a type check",
    "truthy": "a truthiness check",
    "falsy": "a falsiness check",
    "not_none": "an `is not None` check",
    "ne": "an inequality check",
    "not_in": "a non-membership check",
    "is_not": "an `is not` check",
    "const": "a constant assertion that checks nothing",
    "mock": "a mock call assertion",
}


# `x == True` / `x is None` (canonicalised to truthy / falsy / is_none) pin x to one value:
# membership in a literal that holds it and more is weaker, whatever the ranks say.
_POINT_OPS = {"truthy": "True", "falsy": "False", "is_none": "None"}


def affinity(old: Check, new: Check) -> int:
    """How plausibly `new` is the replacement of `old` (0: unrelated). Checks of one family
    that mention the same names (or, weaker, the same literals) are candidates."""
    if old.family != new.family:
        return 0
    if old.family in EXPECTATIONS:
        return 1 + 2 * len((old.exceptions or frozenset()) & (new.exceptions or frozenset()))
    shared = 3 * len(old.tokens & new.tokens) + len(old.consts & new.consts)
    if shared == 0:
        # A call of the same asserting helper with other arguments is that check edited;
        # so is the same comparison of two locals (`actual == expected`) with renamed ones.
        if old.op == new.op and (old.op.startswith(("helper:", "call:")) or _locals_only(old, new)):
            return 1
        return 0
    return shared + (1 if old.op == new.op else 0)


def with_locals_inlined(check: Check, function: pyast.FunctionNode) -> Check:
    """`check` that also mentions what each local it reads was last assigned before it:
    `body = await resp.read(); assert body == b"…"` is a candidate replacement of, and
    replaced by, `assert await resp.read() == …` (the local inlined into the assertion)."""
    read = {n.id for o in check.operand_nodes for n in ast.walk(o) if isinstance(n, ast.Name)}
    if not read:
        return check
    line = pyast.span(check.node)[0]
    last: dict[str, ast.Assign] = {}
    for node in pyast.walk_within(function):
        if (
            isinstance(node, ast.Assign)
            and node.lineno < line
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id in read
        ):
            seen = last.get(node.targets[0].id)
            if seen is None or seen.lineno < node.lineno:
                last[node.targets[0].id] = node
    if not last:
        return check
    tokens, consts = _tokens(a.value for a in last.values())
    return dataclasses.replace(check, tokens=check.tokens | tokens, consts=check.consts | consts)


def _locals_only(old: Check, new: Check) -> bool:
    return all(
        c.operand_nodes and all(isinstance(o, ast.Name) for o in c.operand_nodes)
        for c in (old, new)
    )


def weakening(old: Check, new: Check) -> tuple[str, str] | None:
    """(rule, what got weaker) when `new`, the replacement of `old`, checks less."""
    if old.family in EXPECTATIONS and new.family == old.family:
        return _raises_weakening(old, new)
    if old.op == new.op and old.operands == new.operands and old.tolerance and new.tolerance:
        grown = widened(old.tolerance, new.tolerance)
        return (RULE_TOLERANCE, "tolerance raised: " + ", ".join(grown)) if grown else None
    if old.op == new.op == "in" and old.subject == new.subject and old.members and new.members:
        extra = [m for m in new.members if m not in old.members]
        if extra and set(old.members) <= set(new.members):
            return RULE_WEAKENED, "membership widened to also accept " + ", ".join(extra)
    if new.reflexive and not old.reflexive:
        return RULE_WEAKENED, "the value is now compared with itself, which always holds"
    if _absence_kept(old, new) or _exact_type_as_isinstance(old, new):
        return None
    point = _POINT_OPS.get(old.op)
    widened_point = (
        new.op == "in" and new.members and len(set(new.members)) > 1 and point in new.members
    )
    if point is not None and widened_point and old.subject == new.subject:
        others = ", ".join(m for m in new.members or () if m != point)
        return (
            RULE_WEAKENED,
            f"{_KIND[old.op]} became a membership check that also accepts {others}",
        )
    if old.rank is None or new.rank is None or new.rank >= old.rank:
        return None
    if old.op == "truthy" and new.op == "not_none" and _is_object_subject(old):
        # `assert conn.sock` -> `assert conn.sock is not None` (often for the type checker):
        # on an attribute or a name holding an object, the two differ only for a falsy
        # object, which is not what such a test meant to allow or reject.
        return None
    what = f"{_KIND.get(old.op, old.op)} became {_KIND.get(new.op, new.op)}"
    if new.op == "in" and new.members:
        extra = [m for m in new.members if m not in old.consts]
        if extra:
            what += " that also accepts " + ", ".join(extra)
    return RULE_WEAKENED, what


def _absence_kept(old: Check, new: Check) -> bool:
    """`m.get(k) is None` became `k not in m`: a missing key is what made `get` return None,
    and the new check also rejects a key present with the value None — stricter."""
    if old.op != "is_none" or new.op != "not_in" or len(new.operand_nodes) != 2:
        return False
    got = old.operand_nodes[0] if old.operand_nodes else None
    if not (
        isinstance(got, ast.Call)
        and isinstance(got.func, ast.Attribute)
        and got.func.attr == "get"
        and len(got.args) == 1
        and not got.keywords
    ):
        return False
    key, mapping = new.operand_nodes
    return canon(got.args[0]) == canon(key) and canon(got.func.value) == canon(mapping)


def _exact_type_as_isinstance(old: Check, new: Check) -> bool:
    """`type(x) == T` (or `is T`) became `isinstance(x, T)`: the spelling linters ask for
    (pycodestyle E721). It also admits subclasses of T, which no such test meant to reject."""
    if old.op not in ("eq", "is") or new.op != "isinstance" or len(old.operand_nodes) != 2:
        return False
    if len(new.operand_nodes) != 2:
        return False
    subject, kind = new.operand_nodes
    for typed, other in (old.operand_nodes, old.operand_nodes[::-1]):
        if (
            isinstance(typed, ast.Call)
            and isinstance(typed.func, ast.Name)
            and typed.func.id == "type"
            and len(typed.args) == 1
            and not typed.keywords
            and canon(typed.args[0]) == canon(subject)
            and canon(other) == canon(kind)
        ):
            return True
    return False


def _is_object_subject(check: Check) -> bool:
    subject = check.operand_nodes[0] if check.operand_nodes else None
    return isinstance(subject, ast.Attribute | ast.Name)


def _raises_weakening(old: Check, new: Check) -> tuple[str, str] | None:
    before, after = old.exceptions or frozenset(), new.exceptions or frozenset()
    if _exceptions_widened(before, after):
        return (
            RULE_EXCEPTION,
            f"expected exception widened from {_names(before)} to {_names(after)}",
        )
    if old.has_match and not new.has_match:
        return RULE_WEAKENED, "the expected exception message is no longer checked"
    return None


def _names(names: frozenset[str]) -> str:
    return ", ".join(sorted(names)) if len(names) == 1 else "(" + ", ".join(sorted(names)) + ")"


def _exceptions_widened(before: frozenset[str], after: frozenset[str]) -> bool:
    if not before or not after:
        return False
    if after > before:
        return True
    for name in after - before:
        if name.split(".")[-1] in BROAD_EXCEPTIONS:
            return True
        wider = getattr(builtins, name, None)
        for old_name in before:
            narrower = getattr(builtins, old_name, None)
            if (
                isinstance(wider, type)
                and isinstance(narrower, type)
                and issubclass(narrower, wider)
                and narrower is not wider
            ):
                return True
    return False


# --------------------------------------------------------------------------- parametrize


def parametrized_cases(function: pyast.FunctionNode) -> dict[str, tuple[ast.expr, list[str]]]:
    """`@pytest.mark.parametrize(names, [cases])` decorators with a literal case list, by
    their canonical argument names: (decorator, canonical cases)."""
    found: dict[str, tuple[ast.expr, list[str]]] = {}
    for decorator in function.decorator_list:
        if not isinstance(decorator, ast.Call) or len(decorator.args) < 2:
            continue
        if (dotted(decorator.func) or "").split(".")[-1] != "parametrize":
            continue
        names, values = decorator.args[0], decorator.args[1]
        if isinstance(values, ast.List | ast.Tuple):
            found[canon(names)] = (decorator, [canon(v) for v in values.elts])
    return found


def implied_by_equality(gone: Check, new_checks: Iterable[Check]) -> bool:
    """An old check about a collection that a new equality with a literal makes for it:
    `x in xs`, `x not in xs` and `len(xs) == n` all follow from `xs == [a, b, ...]` when the
    literal holds `x`, lacks `x`, and has n elements (pluggy: three membership asserts
    replaced by one stricter equality on the list)."""
    subject, test = _collection_claim(gone)
    if subject is None:
        return False
    for new in new_checks:
        if new.op != "eq" or len(new.operand_nodes) != 2:
            continue
        left, right = new.operand_nodes
        for side, literal in ((left, right), (right, left)):
            if (
                isinstance(literal, ast.List | ast.Tuple | ast.Set)
                and not any(isinstance(e, ast.Starred) for e in literal.elts)
                and canon(side) == subject
                and test(literal.elts)
            ):
                return True
    return False


def _collection_claim(
    check: Check,
) -> tuple[str | None, Callable[[list[ast.expr]], bool]]:
    """(the collection a check is about, what it says of the collection's literal value)."""
    nodes = check.operand_nodes
    if check.op in ("in", "not_in") and len(nodes) == 2:
        item = canon(nodes[0])
        wanted = check.op == "in"
        return canon(nodes[1]), lambda elts: (item in {canon(e) for e in elts}) == wanted
    if check.op == "eq" and len(nodes) == 2:
        for sized, count in ((nodes[0], nodes[1]), (nodes[1], nodes[0])):
            if (
                isinstance(sized, ast.Call)
                and isinstance(sized.func, ast.Name)
                and sized.func.id == "len"
                and len(sized.args) == 1
                and isinstance(count, ast.Constant)
                and isinstance(count.value, int)
            ):
                return canon(sized.args[0]), _has_length(count.value)
    return None, lambda elts: False


def _has_length(size: int) -> Callable[[list[ast.expr]], bool]:
    return lambda elts: len(elts) == size
