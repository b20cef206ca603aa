"""What a handler, a return or a lookup does: the AST predicates of the silent-fallback critic.

Pure functions over `ast` nodes, depth-safe (no recursion over expressions: `pyast.dump`,
`pyast.unparse` and iterative walks only). The critic (`silent_fallback.py`) decides what
the change introduced; this module only says what a piece of code is.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator, Sequence

from contend.critics.static import pyast

BROAD = frozenset({"Exception", "BaseException"})
LOG_METHODS = frozenset(
    {
        "debug",
        "info",
        "warning",
        "warn",
        "error",
        "exception",
        "critical",
        "fatal",
        "log",
        "print_exc",
        "print_exception",
        "print",
    }
)
EMPTY_CONSTRUCTORS = frozenset(
    {"list", "dict", "set", "tuple", "str", "frozenset", "bytes", "int", "float", "bool"}
)
WRITE_VERBS = frozenset(
    {
        "write",
        "writelines",
        "save",
        "commit",
        "delete",
        "remove",
        "unlink",
        "send",
        "sendall",
        "insert",
        "upsert",
        "flush",
        "dump",
        "rmtree",
        "truncate",
        "execute",
        "executemany",
        "put",
        "post",
    }
)
WRITE_PREFIXES = ("write_", "save_", "delete_", "remove_", "insert_", "send_", "commit_")
IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})
# Exceptions a lookup raises when the key or attribute is missing.
MISSING_ATTRIBUTE = frozenset({"AttributeError"})
MISSING_KEY = frozenset({"KeyError", "LookupError", "IndexError"})

Try = ast.Try | ast.TryStar


def statements(node: ast.AST) -> Iterator[ast.AST]:
    """Every statement and except clause under `node`, nested functions included; skipping
    expressions makes a whole-file search cheap."""
    stack: list[ast.AST] = [node]
    while stack:
        current = stack.pop()
        for _, value in ast.iter_fields(current):
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.stmt | ast.excepthandler | ast.match_case):
                        yield item
                        stack.append(item)


def shape(node: ast.AST) -> tuple[int, int] | None:
    """A cheap fingerprint of a function: statements in its body and lines it spans."""
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    start, end = pyast.span(node)
    return len(node.body), end - start


def function_body(node: ast.AST) -> str | None:
    """A function's body as a comparable string; None for the module scope."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return pyast.dump_list(node.body)
    return None


def tries(node: ast.AST) -> list[Try]:
    found = [n for n in pyast.walk_within(node) if isinstance(n, ast.Try | ast.TryStar)]
    return sorted(found, key=lambda n: pyast.span(n)[0])


def returns(node: ast.AST) -> Iterator[ast.Return]:
    for child in pyast.walk_within(node):
        if isinstance(child, ast.Return):
            yield child


# Python 3 names of one class: `IOError is OSError` (PEP 3151), so a pyupgrade sweep that
# restates `except IOError` as `except OSError` catches exactly what it caught before.
_OSERROR_ALIASES = frozenset({"IOError", "EnvironmentError", "WindowsError"})
_OSERROR_MODULES = frozenset({"socket", "select"})  # socket.error, select.error


def type_names(expr: ast.expr | None) -> list[str]:
    """The exception class names an `except` clause names (last dotted part; the aliases of
    `OSError` read as `OSError`)."""
    if expr is None:
        return []
    found: list[str] = []
    stack = [expr]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Tuple):
            stack.extend(reversed(current.elts))
        elif isinstance(current, ast.Name):
            found.append("OSError" if current.id in _OSERROR_ALIASES else current.id)
        elif isinstance(current, ast.Attribute):
            alias = (
                current.attr == "error"
                and isinstance(current.value, ast.Name)
                and current.value.id in _OSERROR_MODULES
            )
            found.append("OSError" if alias or current.attr in _OSERROR_ALIASES else current.attr)
        else:
            found.append(pyast.unparse(current))
    return found


def is_broad(expr: ast.expr | None) -> bool:
    return expr is None or any(name in BROAD for name in type_names(expr))


def caught(expr: ast.expr | None) -> str:
    return "everything (bare except)" if expr is None else pyast.unparse(expr)


def handler_key(handler: ast.ExceptHandler) -> str:
    """Identity of a handler for "was it already there": its exception types (order-free)
    and its body; the `as` name is ignored."""
    types = sorted(type_names(handler.type)) if handler.type is not None else ["<bare>"]
    return ",".join(types) + "|" + pyast.dump_list(handler.body)


def is_logging(node: ast.AST) -> bool:
    if not isinstance(node, ast.Expr) or not isinstance(node.value, ast.Call):
        return False
    func = node.value.func
    if isinstance(func, ast.Attribute):
        return func.attr in LOG_METHODS
    return isinstance(func, ast.Name) and func.id in LOG_METHODS


def is_filler(node: ast.stmt) -> bool:
    """Statements that do nothing about the error: pass, `...`, a docstring, a log call."""
    if isinstance(node, ast.Pass):
        return True
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return True
    return is_logging(node)


def uses_name(nodes: Iterable[ast.AST], name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for node in nodes for n in ast.walk(node))


def raises(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Raise) for n in ast.walk(node))


def swallows(handler: ast.ExceptHandler, *, broad: bool) -> str | None:
    """What a swallowing handler does, as a phrase for the claim; None when it does not
    swallow (it raises, records the exception, or does other real work)."""
    if raises(handler):
        return None
    body = handler.body
    if handler.name is not None:
        kept = [stmt for stmt in body if not is_logging(stmt)]
        if uses_name(kept, handler.name):
            return None  # the exception is stored, returned or passed on
    logs = any(is_logging(stmt) for stmt in body)
    rest = [stmt for stmt in body if not is_filler(stmt)]
    prefix = "logs and " if logs else ""
    if not rest:
        return f"{prefix}carries on" if logs else "passes"
    *before, last = rest
    if isinstance(last, ast.Continue) and not before:
        return f"{prefix}continues with the next item"
    if isinstance(last, ast.Return) and all(assigns_default(s) for s in before):
        if is_default(last.value, handler.name):
            return f"{prefix}returns {describe_return(last)}"
        return None
    if broad and all(assigns_default(s) for s in rest):
        targets = ", ".join(pyast.unparse(t) for s in rest for t in _targets(s))
        return f"{prefix}sets {targets} to a default"
    return None


# Exceptions that end an iteration or a generator: catching them is control flow.
_ITERATION_END = frozenset({"StopIteration", "StopAsyncIteration", "GeneratorExit"})
_FAILURE_WORDS = re.compile(
    r"fail|error|unavailable|unknown|invalid|unprintable|unrepresentable|not available", re.I
)
_NOT_EXPLANATIONS = re.compile(r"#\s*(type:|noqa|pragma|pyright:|mypy:|nosec|contend:)")


def is_iteration_end(handler: ast.ExceptHandler) -> bool:
    names = type_names(handler.type)
    return bool(names) and all(n in _ITERATION_END for n in names)


def reports_failure(handler: ast.ExceptHandler) -> bool:
    """The fallback value says that something failed (`return "<str() failed>"`): the
    failure is shown to whoever reads the value, not hidden."""
    for stmt in handler.body:
        value = stmt.value if isinstance(stmt, ast.Return | ast.Assign) else None
        if (
            isinstance(value, ast.Constant)
            and isinstance(value.value, str)
            and (
                _FAILURE_WORDS.search(value.value)
                or (value.value.startswith("<") and value.value.endswith(">"))
            )
        ):
            return True
    return False


_ERROR_LOGS = frozenset({"error", "exception", "critical", "fatal", "print_exc", "print_exception"})


def exits_with_error(handler: ast.ExceptHandler) -> bool:
    """An entry point's last resort: the exception is logged at error level (with the
    exception itself) and the handler sets or returns a non-zero exit status, or exits:
    the failure is reported to the user and to whoever reads the status."""
    logged = any(
        is_logging(stmt)
        and isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and pyast.callee_name(stmt.value) in _ERROR_LOGS
        and (
            handler.name is None
            or uses_name([stmt.value], handler.name)
            or pyast.callee_name(stmt.value) in ("exception", "print_exc")
        )
        for stmt in handler.body
    )
    if not logged:
        return False
    for stmt in handler.body:
        value = stmt.value if isinstance(stmt, ast.Return | ast.Assign) else None
        if isinstance(value, ast.UnaryOp) and isinstance(value.operand, ast.Constant):
            value = value.operand
        if isinstance(value, ast.Constant) and isinstance(value.value, int) and value.value:
            return True
        if (
            isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Call)
            and pyast.callee_name(stmt.value) == "exit"
        ):
            return True
    return False


def explained(text: str, handler: ast.ExceptHandler) -> bool:
    """Does a comment on the `except` line or inside the handler say why (not a tool's
    directive such as `# type: ignore` or `# noqa`)?"""
    start, end = pyast.span(handler)
    for line in text.split("\n")[start - 1 : end]:
        at = line.find("#")
        if at < 0:
            continue
        before = line[:at]
        if before.count('"') % 2 or before.count("'") % 2:
            continue  # the `#` is inside a string
        if not _NOT_EXPLANATIONS.match(line[at:]) and len(line[at + 1 :].strip()) > 3:
            return True
    return False


def falls_back(handler: ast.ExceptHandler) -> str | None:
    """Looser than `swallows`: any handler that neither raises nor records the exception."""
    if raises(handler):
        return None
    if handler.name is not None:
        kept = [stmt for stmt in handler.body if not is_logging(stmt)]
        if uses_name(kept, handler.name):
            return None
    last = handler.body[-1]
    if isinstance(last, ast.Return):
        return f"returns {describe_return(last)}"
    return "goes on without raising"


def _targets(stmt: ast.stmt) -> list[ast.expr]:
    if isinstance(stmt, ast.Assign):
        return list(stmt.targets)
    if isinstance(stmt, ast.AnnAssign):
        return [stmt.target]
    return []


def assigns_default(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Assign):
        return is_default(stmt.value, None)
    if isinstance(stmt, ast.AnnAssign):
        return stmt.value is not None and is_default(stmt.value, None)
    return False


def is_default(expr: ast.expr | None, bound: str | None) -> bool:
    """A value that stands in for a result: None, a literal, an empty container, a plain
    name or attribute — anything that is not a computation and does not carry the error."""
    if expr is None:
        return True
    if bound is not None and uses_name([expr], bound):
        return False
    stack: list[ast.expr] = [expr]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Constant | ast.Name):
            continue
        if isinstance(current, ast.UnaryOp):
            if not isinstance(current.operand, ast.Constant):
                return False
        elif isinstance(current, ast.List | ast.Tuple | ast.Set):
            stack.extend(current.elts)
        elif isinstance(current, ast.Dict):
            if any(v is None for v in current.values):
                return False
            stack.extend(v for v in current.values if v is not None)
        elif isinstance(current, ast.Call):
            func = current.func
            if not (
                isinstance(func, ast.Name)
                and func.id in EMPTY_CONSTRUCTORS
                and not current.args
                and not current.keywords
            ):
                return False
        elif isinstance(current, ast.Attribute):
            if isinstance(current.value, ast.Call):
                return False
            stack.append(current.value)
        else:
            return False
    return True


def describe_return(ret: ast.Return) -> str:
    if ret.value is None:
        return "None (a bare `return`)"
    return f"`{clip(pyast.unparse(ret.value))}`"


def clip(code: str, limit: int = 60) -> str:
    """One line of code for a claim; the evidence carries the full text."""
    flat = " ".join(code.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def is_import_probe(try_node: Try, handler: ast.ExceptHandler) -> bool:
    """`try: import x [as y]; HAVE_X = True / except ImportError: ...`, at any level: an
    optional dependency probed on purpose, a visible choice rather than a hidden failure.
    The try body holds imports and at most plain assignments of constants or names."""
    names = type_names(handler.type)
    if not names or not all(n in IMPORT_ERRORS for n in names):
        return False
    has_import = False
    for stmt in try_node.body:
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            has_import = True
        elif not (
            isinstance(stmt, ast.Assign | ast.AnnAssign)
            and stmt.value is not None
            and isinstance(stmt.value, ast.Constant | ast.Name | ast.Attribute)
        ):
            return False
    return has_import


def writes(body: Sequence[ast.stmt]) -> bool:
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call):
                name = pyast.callee_name(node)
                if name in WRITE_VERBS or name.startswith(WRITE_PREFIXES):
                    return True
    return False


def does_work(body: Sequence[ast.stmt]) -> bool:
    return any(not isinstance(s, ast.Pass) and not is_filler(s) for s in body)


def suppress_names(tree: ast.Module | None, text: str) -> tuple[set[str], set[str]]:
    """Names bound to the contextlib module, and names bound to contextlib.suppress."""
    modules: set[str] = set()
    functions: set[str] = set()
    # A text pre-check: walking a whole module for imports is the costly part.
    if tree is None or "contextlib" not in text:
        return modules, functions
    for node in statements(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "contextlib":
                    modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.ImportFrom) and node.module == "contextlib":
            for alias in node.names:
                if alias.name == "suppress":
                    functions.add(alias.asname or alias.name)
    return modules, functions


def broad_suppress(
    node: ast.With | ast.AsyncWith, modules: set[str], functions: set[str]
) -> str | None:
    """The broad exception names a `with suppress(...)` item swallows, or None."""
    for item in node.items:
        call = item.context_expr
        if not isinstance(call, ast.Call):
            continue
        func = call.func
        is_suppress = (isinstance(func, ast.Name) and func.id in functions) or (
            isinstance(func, ast.Attribute)
            and func.attr == "suppress"
            and isinstance(func.value, ast.Name)
            and func.value.id in modules
        )
        if not is_suppress:
            continue
        broad = [name for arg in call.args for name in type_names(arg) if name in BROAD]
        if broad:
            return ", ".join(broad)
    return None


def with_header(node: ast.With | ast.AsyncWith) -> tuple[int, int]:
    start = pyast.span(node)[0]
    end = max(pyast.span(item.context_expr)[1] for item in node.items)
    return start, end


LookupKey = tuple[str, str, str]
_LOOKUP_DEPTH = 24


def lookup_key(node: ast.AST, wanted: frozenset[str] | None = None) -> LookupKey | None:
    """`d[k]` / `o.a` read (not written) as a comparable key; None for anything else. With
    `wanted` (attribute names and dumped subscripts), only lookups of those are keyed: the
    receiver of each level of a deep `a.b.c...` chain is never dumped for nothing."""
    if isinstance(node, ast.Subscript | ast.Attribute) and pyast.depth_exceeds(
        node.value, _LOOKUP_DEPTH
    ):
        return None  # a receiver hundreds of levels deep is no key anyone looks up twice
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        index = pyast.dump(node.slice)
        if wanted is not None and index not in wanted:
            return None
        return ("index", pyast.dump(node.value), index)
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
        if wanted is not None and node.attr not in wanted:
            return None
        return ("attr", pyast.dump(node.value), node.attr)
    return None


def defaulted_lookup(call: ast.Call) -> LookupKey | None:
    """For `d.get(k[, default])` / `getattr(o, "a", default)`, the key of the lookup that
    would have raised; None for any other call."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "get" and 1 <= len(call.args) <= 2:
        return ("index", pyast.dump(func.value), pyast.dump(call.args[0]))
    if isinstance(func, ast.Name) and func.id == "getattr" and len(call.args) == 3:
        name = call.args[1]
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            return ("attr", pyast.dump(call.args[0]), name.value)
    return None


def guarded_lookups(nodes: Iterable[ast.AST], wanted: frozenset[str]) -> set[LookupKey]:
    """Lookups (of the `wanted` names, see `lookup_key`) that old code already checked
    before making: `hasattr(o, "a")` guards `o.a`; `k in d` (or `not in`) guards `d[k]`; and
    any lookup inside a `try` whose handler catches its missing-key or missing-attribute
    error. The same fallback written as `getattr(o, "a", None)` or `d.get(k)` is then a
    rewrite, not a new default."""
    guarded: set[LookupKey] = set()
    for node in nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "hasattr" and len(node.args) == 2:
                name = node.args[1]
                if isinstance(name, ast.Constant) and isinstance(name.value, str):
                    guarded.add(("attr", pyast.dump(node.args[0]), name.value))
        elif isinstance(node, ast.Compare) and len(node.ops) == 1:
            if isinstance(node.ops[0], ast.In | ast.NotIn):
                index = pyast.dump(node.left)
                if index in wanted:
                    guarded.add(("index", pyast.dump(node.comparators[0]), index))
        elif isinstance(node, ast.Try | ast.TryStar):
            names = {n for h in node.handlers for n in type_names(h.type)}
            kinds = {"attr"} if names & MISSING_ATTRIBUTE else set()
            if names & MISSING_KEY:
                kinds.add("index")
            if not kinds:
                continue
            for stmt in node.body:
                for inner in ast.walk(stmt):
                    key = lookup_key(inner, wanted)
                    if key is not None and key[0] in kinds:
                        guarded.add(key)
    return guarded


def handled_calls(scope: ast.AST) -> set[int]:
    """Ids of the calls inside a `try` whose handlers catch a missing key or attribute."""
    found: set[int] = set()
    for node in pyast.walk_within(scope):
        if not isinstance(node, ast.Try | ast.TryStar):
            continue
        names = {n for h in node.handlers for n in type_names(h.type)}
        if names & (MISSING_KEY | MISSING_ATTRIBUTE):
            found.update(
                id(inner)
                for stmt in node.body
                for inner in ast.walk(stmt)
                if isinstance(inner, ast.Call)
            )
    return found


def handler_guards_lookups(try_node: Try, handler: ast.ExceptHandler) -> list[LookupKey]:
    """The lookups of the try body that this handler's missing-key / missing-attribute
    error answers for; empty when the handler catches anything else too."""
    names = set(type_names(handler.type))
    if not names or not names <= (MISSING_ATTRIBUTE | MISSING_KEY):
        return []
    kinds = {"attr"} if names & MISSING_ATTRIBUTE else set()
    if names & MISSING_KEY:
        kinds.add("index")
    found: list[LookupKey] = []
    for stmt in try_node.body:
        for node in ast.walk(stmt):
            key = lookup_key(node)
            if key is not None and key[0] in kinds:
                found.append(key)
    return found


def default_of(call: ast.Call) -> str:
    if isinstance(call.func, ast.Attribute) and len(call.args) == 1:
        return "None"
    return f"`{pyast.unparse(call.args[-1])}`"


def first_line(text: str, node: ast.AST) -> str:
    return pyast.segment(text, node).strip().splitlines()[0]
