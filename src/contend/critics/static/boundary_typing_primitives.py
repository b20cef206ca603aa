"""The `primitive-validated-in-core` rule of the boundary-typing topic: a raw primitive checked
(isinstance str, len > 0, .strip()) in a private function that no public function of its
file calls, outside a boundary module or a parse_/validate_ function, which the change added
(counted by identity across every changed file). Minor, low confidence: a matter of design.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Container, Iterator, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

from contend.critics.static import pyast
from contend.critics.static.base import Confidence, FileChange, Finding, Topic, is_test_path
from contend.critics.static.catalogue import PYTHON, RuleInfo, waiver_way
from contend.protocol.model import Severity

_TOPIC = Topic.BOUNDARY_TYPING
_WAIVE = waiver_way(_TOPIC)

PRIMITIVE_IN_CORE = RuleInfo(
    "primitive-validated-in-core",
    _TOPIC,
    Severity.MINOR,
    Confidence.LOW,
    PYTHON,
    "raw strings or numbers are validated deep inside the code instead of being parsed "
    "into a domain type where they enter; a matter of design, worth a look",
    (
        "parse the value into a domain type at the boundary and take that type here",
        "or, if this function is where the value enters, name it parse_/validate_",
        _WAIVE,
    ),
)

_PRIMITIVES = frozenset({"str", "int", "float", "bool", "bytes"})


_STRING_PREDICATES = frozenset(
    {"strip", "isdigit", "isnumeric", "isdecimal", "isalnum", "isalpha", "isspace"}
)


_BOUNDARY_PARTS = frozenset(
    {"cli", "api", "handlers", "views", "routes", "schemas", "boundary", "__main__"}
)


_BOUNDARY_FUNCTION = re.compile(r"^_*(parse|validate|from|check|ensure|coerce|clean)(_|$)")


_CONSTRUCTORS = frozenset({"__init__", "__post_init__", "__new__", "__set__"})


_VALIDATOR_DECORATORS = frozenset(
    {"validator", "field_validator", "model_validator", "root_validator", "setter"}
)


_LAYOUT = frozenset({"ctx", "type_comment", "kind"})


def is_boundary_path(path: str) -> bool:
    pure = PurePosixPath(path.replace("\\", "/"))
    parts = {*pure.parts[:-1], pure.stem}
    return is_test_path(path) or bool(parts & _BOUNDARY_PARTS)


def _is_boundary_function(fn: pyast.FunctionNode) -> bool:
    if fn.name in _CONSTRUCTORS or _BOUNDARY_FUNCTION.match(fn.name):
        return True
    for deco in fn.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in _VALIDATOR_DECORATORS:
            return True
    return False


def _is_public(qualname: str) -> bool:
    """A function of the module's interface: no part of its name private or local."""
    return "<locals>" not in qualname and not any(p.startswith("_") for p in qualname.split("."))


class _EntryPoints:
    """Which functions of a module take their input from outside: public functions and
    methods, and the private helpers one of them calls directly (`_check(x)`,
    `self._check(x)`): validation there is validation at the boundary. Worked out per
    asked name, on demand."""

    def __init__(self, funcs: Mapping[str, pyast.Function]) -> None:
        self._funcs = funcs
        self._called: set[str] | None = None

    def __contains__(self, qualname: object) -> bool:
        if not isinstance(qualname, str):
            return False
        if _is_public(qualname):
            return True
        if self._called is None:
            self._called = set()
            for public in (q for q in self._funcs if _is_public(q)):
                owner = public.rsplit(".", 1)[0] + "." if "." in public else ""
                for node in pyast.walk_within(self._funcs[public].node):
                    if not isinstance(node, ast.Call):
                        continue
                    if isinstance(node.func, ast.Name):
                        self._called.add(node.func.id)
                    elif isinstance(node.func, ast.Attribute) and isinstance(
                        node.func.value, ast.Name
                    ):
                        self._called.add(owner + node.func.attr)
        return qualname in self._called


def _is_primitive_type(node: ast.expr) -> bool:
    if isinstance(node, ast.Tuple):
        return bool(node.elts) and all(_is_primitive_type(e) for e in node.elts)
    return isinstance(node, ast.Name) and node.id in _PRIMITIVES


def _is_call_to(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


def _checked_param(node: ast.AST, params: frozenset[str]) -> str | None:
    """The parameter a raw-primitive check inspects, or None if `node` is no such check."""

    def param(expr: ast.AST) -> str | None:
        return expr.id if isinstance(expr, ast.Name) and expr.id in params else None

    if isinstance(node, ast.Call):
        if _is_call_to(node, "isinstance") and len(node.args) == 2:
            return param(node.args[0]) if _is_primitive_type(node.args[1]) else None
        if isinstance(node.func, ast.Attribute) and node.func.attr in _STRING_PREDICATES:
            return param(node.func.value)
        return None
    if isinstance(node, ast.Compare) and len(node.comparators) == 1:
        left, right = node.left, node.comparators[0]
        if _is_call_to(left, "type") and isinstance(left, ast.Call) and left.args:
            return param(left.args[0]) if _is_primitive_type(right) else None
        if _is_call_to(left, "len") and isinstance(left, ast.Call) and left.args:
            # emptiness (`len(x) > 0`, `len(x) == 0`), the seed's `userId.length > 0`
            is_empty = isinstance(right, ast.Constant) and right.value in (0, 1)
            return param(left.args[0]) if is_empty else None
        if isinstance(right, ast.Constant) and right.value == "":
            return param(left)
    return None


def _primitive_check(node: ast.If | ast.Assert, params: frozenset[str]) -> list[ast.AST]:
    """The raw-primitive checks on parameters that `node` validates with, empty if it is no
    validation. An `if` counts when it raises, or when it combines two checks on one
    parameter, or negates a check and returns early. A plain type dispatch (`if
    isinstance(x, str): x = [x]`) does not, nor does rejecting a type (`if isinstance(x,
    str): raise TypeError`): that is not validating a primitive, it is refusing one."""
    negated = {
        id(inner)
        for sub in ast.walk(node.test)
        if isinstance(sub, ast.UnaryOp) and isinstance(sub.op, ast.Not)
        for inner in ast.walk(sub.operand)
    }
    atoms = [sub for sub in ast.walk(node.test) if _checked_param(sub, params) is not None]
    if not atoms or isinstance(node, ast.Assert):
        return atoms
    checked = [_checked_param(a, params) for a in atoms]
    body = node.body
    if any(isinstance(s, ast.Raise) for s in body):
        return [a for a in atoms if not _is_type_test(a) or id(a) in negated or _is_unequal(a)]
    if len(checked) > len(set(checked)):
        return atoms
    if any(id(a) in negated for a in atoms) and any(isinstance(s, ast.Return) for s in body):
        return atoms
    return []


def _is_type_test(node: ast.AST) -> bool:
    if isinstance(node, ast.Compare):
        return _is_call_to(node.left, "type")
    return _is_call_to(node, "isinstance")


def _is_unequal(node: ast.AST) -> bool:
    return isinstance(node, ast.Compare) and isinstance(node.ops[0], ast.NotEq | ast.IsNot)


def _params(fn: pyast.FunctionNode) -> frozenset[str]:
    args = fn.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    every += [a for a in (args.vararg, args.kwarg) if a is not None]
    return frozenset(a.arg for a in every if a.arg not in ("self", "cls"))


def _shape(node: ast.AST, params: frozenset[str]) -> str:
    def leaf(inner: ast.AST) -> str | None:
        return "N(_)" if isinstance(inner, ast.Name) and inner.id in params else None

    return pyast.serialise(node, leaf, _LAYOUT)


@dataclass(frozen=True, slots=True)
class _PrimitiveCheck:
    key: str
    line: int
    function: str
    test: str


def _primitive_candidates(
    funcs: Mapping[str, pyast.Function],
    skip: Container[str],
    added: frozenset[int] | None = None,
) -> list[_PrimitiveCheck]:
    """One entry per checked atom, keyed by its shape, so merging or reordering checks that
    existed before introduces nothing. With `added`, only checks on those lines."""
    found: list[_PrimitiveCheck] = []
    for qualname, fn in funcs.items():
        if _is_boundary_function(fn.node):
            continue
        params = _params(fn.node)
        for node in pyast.walk_within(fn.node):
            if not isinstance(node, ast.If | ast.Assert):
                continue
            if added is not None and node.lineno not in added:
                continue
            atoms = _primitive_check(node, params)
            if atoms and qualname not in skip:  # asked last: the costly question
                test = pyast.unparse(node.test)
                found.extend(
                    _PrimitiveCheck(_shape(atom, params), node.lineno, qualname, test)
                    for atom in atoms
                )
    return found


def primitive_checks(
    change: FileChange,
    new_funcs: Mapping[str, pyast.Function],
    old_funcs: Mapping[str, pyast.Function],
) -> Iterator[Finding]:
    if is_boundary_path(change.path):
        return
    touched = {q: f for q, f in new_funcs.items() if change.touches(f.start_line, f.end_line)}
    entries = _EntryPoints(new_funcs)
    candidates = _primitive_candidates(touched, entries, change.added_lines)
    if not candidates:
        return
    by_line = {c.line: c for c in candidates}
    new = Counter(c.key for c in _primitive_candidates(new_funcs, entries))
    old = Counter(c.key for c in _primitive_candidates(old_funcs, _EntryPoints(old_funcs)))
    budget = {key: new[key] - old[key] for key in new}
    reported: set[int] = set()
    for candidate in sorted(candidates, key=lambda c: c.line):
        if budget.get(candidate.key, 0) <= 0 or candidate.line in reported:
            continue
        budget[candidate.key] -= 1
        reported.add(candidate.line)
        check = by_line[candidate.line]
        line = candidate.line
        yield PRIMITIVE_IN_CORE.finding(
            path=change.path,
            lines=(line, line),
            claim=(
                f"`{pyast.symbol_of(check.function)}` validates raw primitives "
                f"(`{check.test}`) inside core code; parse them into a domain type at the "
                "boundary so illegal values cannot reach here"
            ),
            evidence=change.new_lines(line, line),
            symbol=pyast.symbol_of(check.function),
        )
