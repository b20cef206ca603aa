"""Does what a test checked survive in another shape? The coverage model of test-weakening.

A refactor can move a check without weakening it: several tests merged into one
`@pytest.mark.parametrize` test (or a loop over cases), one parametrized test split into
several, a local variable inlined or extracted, a test ported from a helper the change
removed to the public function that replaced it. So each test is read as the set of checks
it makes *for every case it runs*:

- parametrize cases and loop items given as literals (or as a module-level literal) are
  substituted into the checks, one key per case;
- a local assigned once is replaced by the expression it holds (`m = re.match(p, s);
  assert m` checks what `assert re.match(p, s)` checks);
- cases that cannot be read (computed at run time) leave their names open: such a check is
  a template that covers any check of the same shape;
- a call of a function the change removed matches a call of any function with the same
  arguments (the test was ported to the function that replaced it).

A `Requirement` is one old check under every case; a `Coverage` is everything the new side
checks. The critic (weakened_tests.py) asks whether each old check is still covered before
it reports one as removed or a test as deleted. What the change removed from or deprecates
in the code under test, and whether a test exercises it, is `weakened_tests_removed`'s.
"""

from __future__ import annotations

import ast
import itertools
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from contend.critics.static import pyast
from contend.critics.static.weakened_tests_rules import (
    Check,
    IsHelper,
    canon,
    checks_in,
    dotted,
    rekey,
    substituted_canon,
    substituted_checks,
    walk,
)

MAX_CASES = 64  # cases read per test: enough for any hand-written table, bounded for speed
_LAYOUT = frozenset({"ctx", "type_comment", "kind"})


@dataclass(frozen=True, slots=True)
class Params:
    """The names a test runs under several values: `cases` are the literal bindings (one
    dict per case, `[{}]` when there are none); `open` the names whose values are not
    literals (computed cases): wildcards."""

    cases: tuple[Mapping[str, str], ...]
    open: frozenset[str]


def module_constants(module: ast.Module) -> dict[str, ast.expr]:
    """Module-level `NAME = <list / tuple / set literal>`, for cases given by name."""
    found: dict[str, ast.expr] = {}
    for stmt in module.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            target, value = stmt.target, stmt.value
        else:
            continue
        if isinstance(target, ast.Name) and isinstance(value, ast.List | ast.Tuple | ast.Set):
            found[target.id] = value
    return found


def params(function: pyast.FunctionNode, constants: Mapping[str, ast.expr]) -> Params:
    groups: list[list[dict[str, str]]] = []
    open_names: set[str] = set()
    for decorator in function.decorator_list:
        if not isinstance(decorator, ast.Call) or len(decorator.args) < 2:
            continue
        if (dotted(decorator.func) or "").split(".")[-1] != "parametrize":
            continue
        names = _param_names(decorator.args[0])
        if names is None:
            continue
        group = _bindings(names, decorator.args[1], constants)
        if group is None:
            open_names.update(names)
        elif group:
            groups.append(group)
    stores = Counter(
        n.id
        for n in walk(function.body)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    )
    for node in walk(function.body):
        # A loop over literal cases is a hand-written parametrization; a loop over computed
        # data is not (its variables are not wildcards: that would match far too much), nor
        # is one whose variable the body assigns again.
        if isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            names = _target_names(node.target)
            if not names or any(stores[name] > 1 for name in names):
                continue
            group = _bindings(names, node.iter, constants)
            if group:
                groups.append(group)
    cases: list[Mapping[str, str]] = []
    for combination in itertools.islice(itertools.product(*groups), MAX_CASES):
        merged: dict[str, str] = {}
        for binding in combination:
            merged.update(binding)
        cases.append(merged)
    return Params(tuple(cases) or ({},), frozenset(open_names))


def _param_names(node: ast.expr) -> list[str] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        names = [n.strip() for n in node.value.split(",")]
        return [n for n in names if n] or None
    if isinstance(node, ast.List | ast.Tuple):
        names = [
            e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
        ]
        return names if len(names) == len(node.elts) else None
    return None


def _target_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Tuple | ast.List) and all(
        isinstance(e, ast.Name) for e in target.elts
    ):
        return [e.id for e in target.elts if isinstance(e, ast.Name)]
    return []


def _bindings(
    names: Sequence[str], values: ast.expr, constants: Mapping[str, ast.expr]
) -> list[dict[str, str]] | None:
    """One binding per case of a literal case list; None when the cases are not literals."""
    if isinstance(values, ast.Name) and values.id in constants:
        values = constants[values.id]
    if not isinstance(values, ast.List | ast.Tuple | ast.Set):
        return None
    found: list[dict[str, str]] = []
    for case in values.elts[:MAX_CASES]:
        items = _case_items(case, len(names))
        if items is None:
            return None
        found.append({name: canon(item) for name, item in zip(names, items, strict=True)})
    return found


def _case_items(case: ast.expr, count: int) -> list[ast.expr] | None:
    if isinstance(case, ast.Call) and (dotted(case.func) or "").split(".")[-1] == "param":
        items = list(case.args)
        if any(isinstance(a, ast.Starred) for a in items):
            return None
        return items if len(items) == count else None
    if count == 1:
        return [case]
    if isinstance(case, ast.Tuple | ast.List) and len(case.elts) == count:
        if any(isinstance(e, ast.Starred) for e in case.elts):
            return None
        return list(case.elts)
    return None


def inline_values(function: pyast.FunctionNode, base: Mapping[str, str]) -> dict[str, str]:
    """Locals assigned exactly once (`name = expr`, not parameters or loop variables) and
    never changed in place afterwards (`name.load(...)`, `name.x = ...`, `name[k] = ...`),
    each mapped to the canonical text of its expression with the earlier ones inlined."""
    args = function.args
    parameters = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    stores: Counter[str] = Counter()
    assigned: list[tuple[str, ast.expr]] = []
    for node in walk(function.body):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            stores[node.id] += 1
        elif isinstance(node, ast.ExceptHandler) and node.name:
            stores[node.name] += 1
        mutated = _mutated_name(node)
        if mutated is not None:
            stores[mutated] += 2
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                assigned.append((target.id, node.value))
            elif isinstance(target, ast.Tuple | ast.List) and all(
                isinstance(e, ast.Name) for e in target.elts
            ):
                # `headers, path = build(...)`: each name holds its item of the result, so
                # a result renamed (`result_path`) still checks the same thing.
                assigned.extend(
                    (e.id, _item(node.value, i))
                    for i, e in enumerate(target.elts)
                    if isinstance(e, ast.Name)
                )
    values = dict(base)
    for name, value in sorted(assigned, key=lambda item: pyast.span(item[1])):
        if stores[name] != 1 or name in parameters or name in base:
            continue
        # `l = len(s)` is not `len(s)` wherever `l` is read if `s` changes in between.
        reads = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
        if any(stores[read] > 1 for read in reads):
            continue
        values[name] = substituted_canon(value, values)
    return values


def _item(value: ast.expr, index: int) -> ast.expr:
    """`value[index]`, placed where `value` is (so the order of assignments holds)."""
    return ast.copy_location(ast.Subscript(value=value, slice=ast.Constant(index)), value)


# --------------------------------------------------------------------------- profiles


@dataclass(frozen=True, slots=True)
class Profile:
    """What one test checks: every check's key under every case, plain and with its
    locals inlined; the checks that read an open parameter (templates); its checks as
    written (for ported calls); and the keys of its bare call statements."""

    keys: frozenset[str]
    templates: tuple[Check, ...]
    checks: tuple[Check, ...]
    open: frozenset[str]
    calls: frozenset[str]


def profile(
    function: pyast.FunctionNode, constants: Mapping[str, ast.expr], is_helper: IsHelper
) -> Profile:
    found = params(function, constants)
    plain = checks_in(function.body, is_helper)
    keys: set[str] = set()
    calls: set[str] = set()
    for case in found.cases:
        inlined = inline_values(function, case)
        for values in (case, inlined):
            keys.update(c.key for c in substituted_checks(function.body, is_helper, values))
        calls.update(_call_keys(function, inlined))
    templates = tuple(c for c in plain if _reads(c, found.open))
    return Profile(frozenset(keys), templates, tuple(plain), found.open, frozenset(calls))


def _mutated_name(node: ast.AST) -> str | None:
    """The local a statement changes in place: the receiver of a method call used as a
    statement, or the root of an attribute / item assignment."""
    target: ast.expr | None = None
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        func = node.value.func
        target = func.value if isinstance(func, ast.Attribute) else None
    elif isinstance(node, ast.Attribute | ast.Subscript) and isinstance(node.ctx, ast.Store):
        target = node.value
    while isinstance(target, ast.Attribute | ast.Subscript):
        target = target.value
    return target.id if isinstance(target, ast.Name) else None


def _call_keys(function: pyast.FunctionNode, values: Mapping[str, str]) -> Iterator[str]:
    for node in walk(function.body):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            yield substituted_canon(node.value, values)


def _reads(check: Check, names: frozenset[str]) -> bool:
    return bool(names) and any(
        isinstance(n, ast.Name) and n.id in names
        for operand in check.operand_nodes
        for n in ast.walk(operand)
    )


@dataclass(frozen=True, slots=True)
class Requirement:
    """One old check: its keys under each case (plain and inlined), and the check."""

    variants: tuple[frozenset[str], ...]
    check: Check


@dataclass(frozen=True, slots=True)
class Demand:
    """What an old test did, case by case: for each case, the keys of each of its counting
    checks (plain and inlined) and the keys of its call statements (its setup)."""

    checks: tuple[Check, ...]
    cases: tuple[tuple[tuple[frozenset[str], ...], frozenset[str]], ...]


def demand(
    function: pyast.FunctionNode, constants: Mapping[str, ast.expr], is_helper: IsHelper
) -> tuple[list[Check], Demand]:
    """Every check of an old test as written (in the order of `checks_in`) and what it
    demands under each of its cases."""
    found = params(function, constants)
    plain = checks_in(function.body, is_helper)
    counted = [i for i, check in enumerate(plain) if check.counts]
    cases: list[tuple[tuple[frozenset[str], ...], frozenset[str]]] = []
    for case in found.cases:
        inlined = inline_values(function, case)
        direct = substituted_checks(function.body, is_helper, case)
        through = substituted_checks(function.body, is_helper, inlined)
        if len(direct) != len(plain) or len(through) != len(plain):
            continue  # cannot happen: substitution changes texts, not which checks exist
        variants = tuple(frozenset({direct[i].key, through[i].key}) for i in counted)
        cases.append((variants, frozenset(_call_keys(function, inlined))))
    return plain, Demand(tuple(plain[i] for i in counted), tuple(cases))


def requirements(
    function: pyast.FunctionNode, constants: Mapping[str, ast.expr], is_helper: IsHelper
) -> list[Requirement | None]:
    """Each check of an old test (in the order of `checks_in`) with its keys under all its
    cases; None for a check that checks nothing (`assert True`)."""
    plain, wanted = demand(function, constants, is_helper)
    counted = iter(range(len(wanted.checks)))
    found: list[Requirement | None] = []
    for check in plain:
        if not check.counts:
            found.append(None)
            continue
        index = next(counted)
        variants = tuple(case[0][index] for case in wanted.cases)
        found.append(Requirement(variants, check))
    return found


@dataclass(slots=True)
class Coverage:
    """Everything the new side checks, from the profiles of some of its tests; `removed`
    are the functions and classes the change deleted (a call of one may have been ported
    to another function)."""

    profiles: list[Profile] = field(default_factory=list)
    removed: frozenset[str] = frozenset()
    _keys: set[str] = field(default_factory=set)

    def add(self, found: Profile) -> None:
        self.profiles.append(found)
        self._keys.update(found.keys)

    def covers(self, requirement: Requirement) -> bool:
        """Is this one check still made, by any of the profiles?"""
        if all(variant & self._keys for variant in requirement.variants):
            return True
        return any(self._shape_match(found, requirement.check) for found in self.profiles)

    def covers_test(self, wanted: Demand) -> bool:
        """Is each case of an old test run by one new test: the same checks after the same
        setup calls? (Checks alone are not enough: the same assertions after a different
        `load(...)` check something else.)"""
        return all(
            any(self._runs(found, wanted.checks, case) for found in self.profiles)
            for case in wanted.cases
        )

    def _runs(
        self,
        found: Profile,
        checks: tuple[Check, ...],
        case: tuple[tuple[frozenset[str], ...], frozenset[str]],
    ) -> bool:
        variants, calls = case
        if not calls <= found.calls:
            return False
        return all(
            bool(variant & found.keys) or self._shape_match(found, check)
            for variant, check in zip(variants, checks, strict=True)
        )

    def _shape_match(self, found: Profile, check: Check) -> bool:
        if any(matches(t, check, found.open, frozenset()) for t in found.templates):
            return True
        return bool(self.removed) and (
            _calls_removed(check, self.removed)
            and any(matches(c, check, frozenset(), self.removed) for c in found.checks)
        )


def _calls_removed(check: Check, removed: frozenset[str]) -> bool:
    return any(
        isinstance(n, ast.Call) and (dotted(n.func) or "").split(".")[-1] in removed
        for operand in check.operand_nodes
        for n in ast.walk(operand)
    )


def references(function: pyast.FunctionNode, names: frozenset[str]) -> bool:
    """Does the function use any of these names (a call, a reference, an attribute) — also
    inside a lambda or a nested function of its own (`helper(lambda x: x.call)`)?"""
    if not names:
        return False
    for node in (inner for statement in function.body for inner in ast.walk(statement)):
        if isinstance(node, ast.Name) and node.id in names:
            return True
        if isinstance(node, ast.Attribute) and node.attr in names:
            return True
    return False


# --------------------------------------------------------------------------- matching


def matches(
    template: Check, concrete: Check, wildcards: frozenset[str], removed: frozenset[str]
) -> bool:
    """Is `concrete` the same check as `template` with each wildcard name standing for one
    expression (the same one at each use), and a call of a `removed` function in `concrete`
    standing for a call of any function? Operands of symmetric checks match either way."""
    if (template.op, template.family, template.extra) != (
        concrete.op,
        concrete.family,
        concrete.extra,
    ):
        return False
    if template.family in ("raises", "warns"):
        return False  # compared by their exceptions elsewhere, not by shape
    left, right = template.operand_nodes, concrete.operand_nodes
    if len(left) != len(right) or not left:
        return False
    orders = [right]
    if len(right) == 2 and template.op in ("eq", "is", "ne", "is_not"):
        orders.append((right[1], right[0]))
    return any(_match_all(left, order, wildcards, removed) for order in orders)


def _match_all(
    templates: Sequence[ast.AST],
    concretes: Sequence[ast.AST],
    wildcards: frozenset[str],
    removed: frozenset[str],
) -> bool:
    bound: dict[str, str] = {}
    stack: list[tuple[object, object]] = list(zip(templates, concretes, strict=True))
    while stack:
        template, concrete = stack.pop()
        if isinstance(template, ast.Name) and template.id in wildcards:
            text = canon(concrete) if isinstance(concrete, ast.AST) else repr(concrete)
            if bound.setdefault(template.id, text) != text:
                return False
            continue
        if isinstance(template, list) and isinstance(concrete, list):
            if len(template) != len(concrete):
                return False
            stack.extend(zip(template, concrete, strict=True))
            continue
        if not isinstance(template, ast.AST) or not isinstance(concrete, ast.AST):
            if template != concrete:
                return False
            continue
        if isinstance(template, ast.Name | ast.Constant) or isinstance(concrete, ast.Constant):
            if canon(template) != canon(concrete):
                return False
            continue
        if type(template) is not type(concrete):
            return False
        if isinstance(template, ast.Call) and isinstance(concrete, ast.Call):
            callee = (dotted(concrete.func) or "").split(".")[-1]
            if callee in removed and isinstance(template.func, ast.Name | ast.Attribute):
                stack.extend(
                    [(template.args, concrete.args), (template.keywords, concrete.keywords)]
                )
                continue
        for name in template._fields:
            if name in _LAYOUT:
                continue
            stack.append((getattr(template, name, None), getattr(concrete, name, None)))
    return True


def removed_names(changes: Iterable[tuple[ast.Module | None, ast.Module | None]]) -> frozenset[str]:
    """Functions and classes defined on an old side of the changed files and on no new
    side: what the change deleted (a definition moved to another changed file stays)."""
    before: set[str] = set()
    after: set[str] = set()
    for old, new in changes:
        if old is not None:
            before.update(pyast.defined_names(old))
        if new is not None:
            after.update(pyast.defined_names(new))
    return frozenset(before - after)


def reaching_keys(function: pyast.FunctionNode, is_helper: IsHelper) -> list[str]:
    """The keys of `checks_in(function.body)`, each with its names read as the value they
    were last assigned before the check (`q = peekable(x); assert q` and `p =
    peekable(x); assert p` are one check, however often the names are reused)."""
    assigned: dict[str, list[tuple[int, ast.expr]]] = {}
    for node in walk(function.body):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            assigned.setdefault(node.targets[0].id, []).append((node.lineno, node.value))
    keys: list[str] = []
    for check in checks_in(function.body, is_helper):
        line = pyast.span(check.node)[0]
        values: dict[str, str] = {}
        for operand in check.operand_nodes:
            values.update(_reaching(operand, line, assigned, 0))
        keys.append(rekey(check, values))
    return keys


_REACHING_DEPTH = 4


def _reaching(
    node: ast.AST, line: int, assigned: Mapping[str, list[tuple[int, ast.expr]]], depth: int
) -> dict[str, str]:
    """The value each name in `node` was last assigned before `line`, itself with its
    names read the same way (a few levels deep)."""
    values: dict[str, str] = {}
    if depth > _REACHING_DEPTH:
        return values
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name) and inner.id in assigned and inner.id not in values:
            before = [(at, v) for at, v in assigned[inner.id] if at < line]
            if before:
                at, value = before[-1]
                deeper = _reaching(value, at, assigned, depth + 1)
                values[inner.id] = substituted_canon(value, deeper)
    return values
