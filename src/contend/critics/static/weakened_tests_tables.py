"""Tests folded into a parametrized table whose cases were rewritten, for the test-weakening
critic: several one-case tests (`testNew_YorkExisting`, `testSydneyExisting`) become one
`@pytest.mark.parametrize` test of the same check over a table of cases of the same kind —
the same time zones, other dates. The coverage model matches a deleted test to a table only
when one of its cases is the old test's case exactly; this module asks the looser question
for a deleted test: is each of its checks a table's check with the table's parameters
standing for the old values, and is each old value of a kind the table holds (the same
expression but for its numbers: `datetime(1986, 7, 5, tzinfo=gettz('America/New_York'))`
and `datetime(2017, 6, 2, tzinfo=gettz('America/New_York'))`)? A value of another kind
(another string, another call) is an edge case the table lost, and stays reported.

Pure functions over parsed test functions.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from contend.critics.static import pyast
from contend.critics.static import weakened_tests_coverage as cov
from contend.critics.static.weakened_tests_rules import (
    Check,
    IsHelper,
    checks_in,
    substituted_canon,
    walk,
)

_NUMBER = re.compile(r"C\(-?\d[\d_.eEjx+-]*\)")
_LONGEST = 2000  # canonical texts longer than this are not matched (bounded regex work)


@dataclass(frozen=True, slots=True)
class Table:
    """A parametrized test: each counting check with the parameters left open (the op, the
    extra text, one regular expression per operand), and per parameter the kinds of value
    its cases hold (their canonical text with every number made 0)."""

    checks: tuple[tuple[str, str, bool, tuple[re.Pattern[str], ...]], ...]
    kinds: Mapping[str, frozenset[str]]


def _open(name: str) -> str:
    return f"W({name})"


def kind(text: str) -> str:
    """A value's canonical text with its numbers made 0: the same kind of case."""
    return _NUMBER.sub("C(0)", text)


def table_of(
    function: pyast.FunctionNode, constants: Mapping[str, ast.expr], is_helper: IsHelper
) -> Table | None:
    """The table of a test parametrized over literal cases (two or more), or None. A
    parameter the body assigns again is not a wildcard, so such a test is no table."""
    found = cov.params(function, constants)
    names = frozenset(name for case in found.cases for name in case)
    if len(found.cases) < 2 or not names or found.open:
        return None
    stored = {n.id for n in walk(function.body) if isinstance(n, ast.Name) and not _loads(n)}
    if names & stored:
        return None
    values = cov.inline_values(function, {name: _open(name) for name in names})
    templates = []
    for check in checks_in(function.body, is_helper):
        if not check.counts or not check.operand_nodes:
            continue
        texts = [substituted_canon(o, values) for o in check.operand_nodes]
        if any(len(t) > _LONGEST for t in texts):
            return None
        patterns = tuple(_pattern(text, names) for text in texts)
        templates.append((check.op, check.extra, check.symmetric, patterns))
    if not templates:
        return None
    kinds = {
        name: frozenset(kind(case[name]) for case in found.cases if name in case) for name in names
    }
    return Table(tuple(templates), kinds)


def _loads(node: ast.Name) -> bool:
    return isinstance(node.ctx, ast.Load)


def _pattern(text: str, names: frozenset[str]) -> re.Pattern[str]:
    escaped = re.escape(text)
    seen: set[str] = set()
    for name in sorted(names, key=len, reverse=True):
        token = re.escape(_open(name))
        group = _group(name)

        def bind(_: re.Match[str], group: str = group) -> str:
            if group in seen:
                return f"(?P={group})"
            seen.add(group)
            return f"(?P<{group}>.+?)"

        escaped = re.sub(re.escape(token), bind, escaped)
    return re.compile(escaped)


def _group(name: str) -> str:
    return "p_" + re.sub(r"\W", "_", name)


def folded_into(
    function: pyast.FunctionNode,
    constants: Mapping[str, ast.expr],
    is_helper: IsHelper,
    tables: Iterable[Table],
) -> bool:
    """Is every counting check of this (deleted) test, under each of its cases, a check of
    one table with the table's parameters bound to values of the kinds its cases hold?"""
    wanted: list[list[tuple[str, str, tuple[str, ...]]]] = []
    plain = [c for c in checks_in(function.body, is_helper) if c.counts]
    if not plain or any(not c.operand_nodes for c in plain):
        return False
    for case in cov.params(function, constants).cases:
        values = cov.inline_values(function, case)
        wanted.append([_concrete(check, values) for check in plain])
    return any(all(_all_in(table, checks) for checks in wanted) for table in tables)


def _concrete(check: Check, values: Mapping[str, str]) -> tuple[str, str, tuple[str, ...]]:
    return check.op, check.extra, tuple(substituted_canon(o, values) for o in check.operand_nodes)


def _all_in(table: Table, checks: list[tuple[str, str, tuple[str, ...]]]) -> bool:
    return all(any(_fits(table, template, c) for template in table.checks) for c in checks)


def _fits(
    table: Table,
    template: tuple[str, str, bool, tuple[re.Pattern[str], ...]],
    concrete: tuple[str, str, tuple[str, ...]],
) -> bool:
    op, extra, symmetric, patterns = template
    if (op, extra) != concrete[:2] or len(patterns) != len(concrete[2]):
        return False
    texts = concrete[2]
    if any(len(t) > _LONGEST for t in texts):
        return False
    orders = [texts]
    if symmetric and len(texts) == 2:
        orders.append((texts[1], texts[0]))
    return any(_binds(table, patterns, order) for order in orders)


def _binds(table: Table, patterns: tuple[re.Pattern[str], ...], texts: tuple[str, ...]) -> bool:
    bound: dict[str, str] = {}
    for pattern, text in zip(patterns, texts, strict=True):
        match = pattern.fullmatch(text)
        if match is None:
            return False
        for group, value in match.groupdict().items():
            if bound.setdefault(group, value) != value:
                return False
    groups = {_group(name): name for name in table.kinds}
    return all(kind(value) in table.kinds[groups[group]] for group, value in bound.items())
