"""Python `silent-fallback` topic: failures the change turned into quiet defaults.

Rules (all diff-aware: a pattern that was already in the old version of the same function,
matched by qualified name, is not reported):
    raise-to-default    a `raise` of the old function is gone and the new version returns a
                        default (None, a literal, an empty container, a plain name) instead
    swallowing-handler  a new except handler that only passes, continues, logs, or returns /
                        assigns a default, and neither raises nor records the exception
    widened-except      a narrow except widened to Exception / BaseException / bare, with a
                        swallowing body
    suppress-broad      `contextlib.suppress(Exception | BaseException)` around real work
    index-to-default    `d[k]` replaced by `d.get(k[, default])`, or `o.a` by `getattr(o, "a", d)`

Severity is major; critical when the swallowed work writes (write, save, commit, delete, ...),
because then data is lost without a trace.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from contend.critics.static import pyast
from contend.critics.static.base import FileChange, Finding, Language, Skipped, Topic
from contend.protocol.model import Severity

MODULE_SCOPE = "<module>"
_BROAD = frozenset({"Exception", "BaseException"})
_LOG_METHODS = frozenset(
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
_EMPTY_CONSTRUCTORS = frozenset(
    {"list", "dict", "set", "tuple", "str", "frozenset", "bytes", "int", "float", "bool"}
)
_WRITE_VERBS = frozenset(
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
_WRITE_PREFIXES = ("write_", "save_", "delete_", "remove_", "insert_", "send_", "commit_")
_OPTIONAL_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})


@dataclass(frozen=True, slots=True)
class _Scope:
    qualname: str
    node: ast.AST  # a function definition, or the module for top-level code


class SilentFallbackCritic:
    topic: Topic = Topic.SILENT_FALLBACK
    languages: frozenset[Language] = frozenset({"python"})

    def check(self, changes: Sequence[FileChange]) -> Iterable[Finding | Skipped]:
        for change in changes:
            if change.new_text is None or not change.added_lines:
                continue
            yield from _FileCheck(change).findings()


CRITIC = SilentFallbackCritic()


class _FileCheck:
    """All rules over one changed file."""

    def __init__(self, change: FileChange) -> None:
        new_text = change.new_text
        if new_text is None:
            raise ValueError(f"{change.path}: no new side to check")
        self.change = change
        self.new_text = new_text
        self.old_text = change.old_text or ""
        self.new_tree = pyast.parse(new_text)
        self.old_tree = pyast.parse(change.old_text) if change.old_text is not None else None
        self.new_scopes = _scopes(self.new_tree)
        self.old_scopes = _scopes(self.old_tree) if self.old_tree is not None else {}
        self.suppress_names = _suppress_names(self.new_tree, self.new_text)
        self.old_suppress_names = _suppress_names(self.old_tree, self.old_text)
        self._file_handlers: dict[bool, Counter[str]] = {}

    def findings(self) -> Iterator[Finding]:
        for scope in self.new_scopes.values():
            if scope.qualname != MODULE_SCOPE and not self._touched(scope.node):
                continue  # the change did not touch this function: nothing it introduced
            old = self._counterpart(scope)
            defaults = list(self._raise_to_default(scope, old))
            taken = {f.start_line for f in defaults}
            yield from defaults
            yield from self._handlers(scope, old, taken)
            yield from self._suppress(scope, old)
            yield from self._index_to_default(scope, old)

    # -- matching old and new -------------------------------------------------------------

    def _counterpart(self, scope: _Scope) -> _Scope | None:
        """The old version of a scope: same qualified name, else (a rename) the old function
        whose body is identical."""
        same = self.old_scopes.get(scope.qualname)
        if same is not None:
            return same
        if not isinstance(scope.node, ast.FunctionDef | ast.AsyncFunctionDef):
            return None
        shape = _shape(scope.node)
        # Dumping is the costly part: only old functions of the same shape are compared.
        body = _function_body(scope.node)
        for name, candidate in self.old_scopes.items():
            if name in self.new_scopes:
                continue  # still there under its name: a copy, not a rename
            if _shape(candidate.node) == shape and _function_body(candidate.node) == body:
                return candidate
        return None

    def _file_handler_counts(self, *, new: bool) -> Counter[str]:
        """Handlers anywhere in the new or old file, computed once per side."""
        if new not in self._file_handlers:
            tree = self.new_tree if new else self.old_tree
            nodes = _statements(tree) if tree is not None else ()
            self._file_handlers[new] = Counter(
                _handler_key(h) for h in nodes if isinstance(h, ast.ExceptHandler)
            )
        return self._file_handlers[new]

    def _old_nodes(self, old: _Scope | None) -> Iterable[ast.AST]:
        """Where to look for a pre-existing copy of a pattern: the counterpart scope, or the
        whole old file when the function is new (code moved between functions)."""
        if old is not None:
            return pyast.walk_within(old.node)
        return _statements(self.old_tree) if self.old_tree is not None else ()

    def _touched(self, node: ast.AST) -> bool:
        start, end = pyast.span(node)
        return self.change.touches(start, end)

    # -- raise-to-default -----------------------------------------------------------------

    def _raise_to_default(self, scope: _Scope, old: _Scope | None) -> Iterator[Finding]:
        if old is None or scope.qualname == MODULE_SCOPE:
            return
        old_raises = [n for n in pyast.walk_within(old.node) if isinstance(n, ast.Raise)]
        new_raise_count = Counter(
            ast.dump(n) for n in pyast.walk_within(scope.node) if isinstance(n, ast.Raise)
        )
        gone: list[ast.Raise] = []
        for node in sorted(old_raises, key=lambda n: pyast.span(n)[0]):
            key = ast.dump(node)
            if new_raise_count[key] > 0:
                new_raise_count[key] -= 1
            else:
                gone.append(node)
        if not gone:
            return
        old_returns = Counter(
            ast.dump(n) for n in pyast.walk_within(old.node) if isinstance(n, ast.Return)
        )
        new_start = pyast.span(scope.node)[0]
        old_start = pyast.span(old.node)[0]
        returns = sorted(_returns(scope.node), key=lambda n: pyast.span(n)[0])
        for ret in returns:
            if not self._touched(ret):
                old_returns[ast.dump(ret)] -= 1  # an unchanged return accounts for its copy
        for ret in returns:
            if not self._touched(ret) or not _is_default(ret.value, None):
                continue
            key = ast.dump(ret)
            if old_returns[key] > 0:
                old_returns[key] -= 1
                continue
            offset = pyast.span(ret)[0] - new_start
            raised = min(gone, key=lambda r: abs((pyast.span(r)[0] - old_start) - offset))
            start, end = pyast.span(ret)
            yield Finding(
                topic=Topic.SILENT_FALLBACK,
                rule="raise-to-default",
                severity=Severity.MAJOR,
                path=self.change.path,
                start_line=start,
                end_line=end,
                claim=(
                    f"`{_short(scope.qualname)}` used to raise "
                    f"(`{_first_line(self.old_text, raised)}`) and now returns "
                    f"{_describe_return(ret)} there: the caller can no longer tell failure "
                    "from a real result."
                ),
                evidence=pyast.segment(self.new_text, ret),
                old_evidence=pyast.segment(self.old_text, raised),
            )

    # -- swallowing-handler and widened-except --------------------------------------------

    def _handlers(self, scope: _Scope, old: _Scope | None, taken: set[int]) -> Iterator[Finding]:
        tries = list(_tries(scope.node))
        touched = [t for t in tries if self._touched(t)]
        if not touched:
            return
        if old is not None:
            old_counts = Counter(
                _handler_key(h)
                for h in pyast.walk_within(old.node)
                if isinstance(h, ast.ExceptHandler)
            )
        else:
            # A new function: its handler may have moved here from elsewhere in the file. Old
            # copies still present in other new functions are not available to it.
            own = Counter(_handler_key(h) for t in tries for h in t.handlers)
            elsewhere = self._file_handler_counts(new=True) - own
            old_counts = self._file_handler_counts(new=False) - elsewhere
        for try_node in tries:
            if try_node not in touched:
                for handler in try_node.handlers:
                    # An unchanged handler accounts for its own old copy first.
                    old_counts[_handler_key(handler)] -= 1
        for try_node in touched:
            for index, handler in enumerate(try_node.handlers):
                key = _handler_key(handler)
                if old_counts[key] > 0:
                    old_counts[key] -= 1
                    continue
                found = self._handler_finding(scope, old, try_node, index, taken)
                if found is not None:
                    yield found

    def _handler_finding(
        self,
        scope: _Scope,
        old: _Scope | None,
        try_node: ast.Try | ast.TryStar,
        index: int,
        taken: set[int],
    ) -> Finding | None:
        handler = try_node.handlers[index]
        broad = _is_broad(handler.type)
        if not broad and self._narrowed(scope, old, try_node, index):
            return None  # the same swallowing body caught more before: the change narrowed it
        narrow = self._old_narrow_handler(scope, old, try_node, index) if broad else None
        outcome = _swallows(handler, broad=broad)
        if outcome is None and narrow is not None:
            # The old narrow handler's fallback was accepted for one error; widened, any
            # error now takes it, whatever it returns.
            outcome = _falls_back(handler)
        if outcome is None:
            return None
        if any(pyast.span(n)[0] in taken for n in ast.walk(handler) if isinstance(n, ast.Return)):
            return None  # already reported as raise-to-default, with the old raise as evidence
        if scope.qualname == MODULE_SCOPE and _is_optional_import(try_node, handler):
            return None
        start, end = pyast.span(handler)
        name = _short(scope.qualname)
        caught = _caught(handler.type)
        severity = Severity.CRITICAL if broad and _writes(try_node.body) else Severity.MAJOR
        if narrow is not None:
            return Finding(
                topic=Topic.SILENT_FALLBACK,
                rule="widened-except",
                severity=severity,
                path=self.change.path,
                start_line=start,
                end_line=end,
                claim=(
                    f"`{name}` widened `except {_caught(narrow.type)}` to `except {caught}`, "
                    f"and the handler {outcome}: every other error is now hidden too."
                ),
                evidence=pyast.segment(self.new_text, handler),
                old_evidence=pyast.segment(self.old_text, narrow),
            )
        return Finding(
            topic=Topic.SILENT_FALLBACK,
            rule="swallowing-handler",
            severity=severity,
            path=self.change.path,
            start_line=start,
            end_line=end,
            claim=(
                f"`{name}` now catches {caught} and {outcome} instead of letting the error "
                "surface: the failure is silent."
            ),
            evidence=pyast.segment(self.new_text, handler),
        )

    def _narrowed(
        self, scope: _Scope, old: _Scope | None, try_node: ast.Try | ast.TryStar, index: int
    ) -> bool:
        """True when this handler replaced a broad or bare one with the same body."""
        candidate = self._old_handler_at(scope, old, try_node, index)
        return (
            candidate is not None
            and (candidate.type is None or _is_broad(candidate.type))
            and _dump_list(candidate.body) == _dump_list(try_node.handlers[index].body)
        )

    def _old_narrow_handler(
        self, scope: _Scope, old: _Scope | None, try_node: ast.Try | ast.TryStar, index: int
    ) -> ast.ExceptHandler | None:
        """The narrow handler this broad one replaced (see `_old_handler_at`)."""
        candidate = self._old_handler_at(scope, old, try_node, index)
        if candidate is None or candidate.type is None or _is_broad(candidate.type):
            return None
        return candidate

    def _old_handler_at(
        self, scope: _Scope, old: _Scope | None, try_node: ast.Try | ast.TryStar, index: int
    ) -> ast.ExceptHandler | None:
        """The old handler in this handler's place: same try body in the old function,
        else the try at the same position, and the handler at the same index."""
        if old is None:
            return None
        old_tries = list(_tries(old.node))
        body = _dump_list(try_node.body)
        match = next((t for t in old_tries if _dump_list(t.body) == body), None)
        if match is None:
            if pyast.span(try_node)[0] in self.change.added_lines:
                return None  # a new `try:`: nothing was widened, the whole statement is new
            position = next(i for i, t in enumerate(_tries(scope.node)) if t is try_node)
            match = old_tries[position] if position < len(old_tries) else None
        if match is None or index >= len(match.handlers):
            return None
        return match.handlers[index]

    # -- suppress-broad -------------------------------------------------------------------

    def _suppress(self, scope: _Scope, old: _Scope | None) -> Iterator[Finding]:
        modules, functions = self.suppress_names
        if not modules and not functions:
            return
        candidates = [
            (node, caught)
            for node in pyast.walk_within(scope.node)
            if isinstance(node, ast.With | ast.AsyncWith)
            and (caught := _broad_suppress(node, modules, functions)) is not None
            and _does_work(node.body)
        ]
        if not candidates:
            return
        old_mods, old_funcs = self.old_suppress_names
        old_counts = Counter(
            ast.dump(n)
            for n in self._old_nodes(old)
            if isinstance(n, ast.With | ast.AsyncWith) and _broad_suppress(n, old_mods, old_funcs)
        )
        for node, caught in sorted(candidates, key=lambda c: pyast.span(c[0])[0]):
            key = ast.dump(node)
            if old_counts[key] > 0 or not self.change.touches(*_with_header(node)):
                old_counts[key] -= 1
                continue
            start, end = pyast.span(node)
            yield Finding(
                topic=Topic.SILENT_FALLBACK,
                rule="suppress-broad",
                severity=Severity.CRITICAL if _writes(node.body) else Severity.MAJOR,
                path=self.change.path,
                start_line=start,
                end_line=end,
                claim=(
                    f"`{_short(scope.qualname)}` wraps its work in `suppress({caught})`: any "
                    "error in that block is discarded and execution goes on as if it succeeded."
                ),
                evidence=pyast.segment(self.new_text, node),
            )

    # -- index-to-default -----------------------------------------------------------------

    def _index_to_default(self, scope: _Scope, old: _Scope | None) -> Iterator[Finding]:
        if old is None:
            return
        old_calls = Counter(
            ast.dump(n) for n in pyast.walk_within(old.node) if isinstance(n, ast.Call)
        )
        candidates = [
            (call, key)
            for call in pyast.walk_within(scope.node)
            if isinstance(call, ast.Call)
            and (key := _defaulted_lookup(call)) is not None
            and self._touched(call)
            and old_calls[ast.dump(call)] == 0
        ]
        if not candidates:
            return
        old_lookups: dict[tuple[str, str, str], list[ast.AST]] = {}
        for node in pyast.walk_within(old.node):
            found = _lookup_key(node)
            if found is not None:
                old_lookups.setdefault(found, []).append(node)
        new_counts = Counter(
            k for n in pyast.walk_within(scope.node) if (k := _lookup_key(n)) is not None
        )
        for call, key in sorted(candidates, key=lambda c: pyast.span(c[0])[0]):
            # Swapped only if the new code looks it up fewer times than the old did: a `.get`
            # added next to a kept `d[k]` is an addition, not a swap.
            if len(old_lookups.get(key, ())) <= new_counts[key]:
                continue
            replaced = old_lookups[key][0]
            start, end = pyast.span(call)
            yield Finding(
                topic=Topic.SILENT_FALLBACK,
                rule="index-to-default",
                severity=Severity.MAJOR,
                path=self.change.path,
                start_line=start,
                end_line=end,
                claim=(
                    f"`{_short(scope.qualname)}` replaced `{ast.unparse(replaced)}`, which "
                    f"raised when missing, by `{ast.unparse(call)}`, which returns "
                    f"{_default_of(call)}: a missing value is no longer an error."
                ),
                evidence=self.change.new_lines(start, end),
                old_evidence=pyast.segment(self.old_text, replaced),
            )


# -- AST helpers ----------------------------------------------------------------------------


def _scopes(tree: ast.Module | None) -> dict[str, _Scope]:
    if tree is None:
        return {}
    scopes = {MODULE_SCOPE: _Scope(MODULE_SCOPE, tree)}
    for name, function in pyast.functions(tree).items():
        scopes[name] = _Scope(name, function.node)
    return scopes


def _statements(node: ast.AST) -> Iterator[ast.AST]:
    """Every statement and except clause under `node`, nested functions included; skipping
    expressions makes a whole-file search cheap. (Both patterns searched are statements.)"""
    stack: list[ast.AST] = [node]
    while stack:
        current = stack.pop()
        for _, value in ast.iter_fields(current):
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.stmt | ast.excepthandler | ast.match_case):
                        yield item
                        stack.append(item)


def _shape(node: ast.AST) -> tuple[int, int] | None:
    """A cheap fingerprint of a function: statements in its body and lines it spans."""
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    start, end = pyast.span(node)
    return len(node.body), end - start


def _function_body(node: ast.AST) -> str | None:
    """A function's body as a comparable string; None for the module scope."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return _dump_list(node.body)
    return None


def _dump_list(nodes: Sequence[ast.AST]) -> str:
    return "\n".join(ast.dump(n) for n in nodes)


def _tries(node: ast.AST) -> Iterator[ast.Try | ast.TryStar]:
    found = [n for n in pyast.walk_within(node) if isinstance(n, ast.Try | ast.TryStar)]
    yield from sorted(found, key=lambda n: pyast.span(n)[0])


def _returns(node: ast.AST) -> Iterator[ast.Return]:
    for child in pyast.walk_within(node):
        if isinstance(child, ast.Return):
            yield child


def _type_names(expr: ast.expr | None) -> list[str]:
    if expr is None:
        return []
    if isinstance(expr, ast.Tuple):
        return [name for elt in expr.elts for name in _type_names(elt)]
    if isinstance(expr, ast.Name):
        return [expr.id]
    if isinstance(expr, ast.Attribute):
        return [expr.attr]
    return [ast.unparse(expr)]


def _is_broad(expr: ast.expr | None) -> bool:
    return expr is None or any(name in _BROAD for name in _type_names(expr))


def _caught(expr: ast.expr | None) -> str:
    return "everything (bare except)" if expr is None else ast.unparse(expr)


def _handler_key(handler: ast.ExceptHandler) -> str:
    """Identity of a handler for "was it already there": its exception types (order-free)
    and its body; the `as` name is ignored."""
    types = sorted(_type_names(handler.type)) if handler.type is not None else ["<bare>"]
    return ",".join(types) + "|" + _dump_list(handler.body)


def _is_logging(node: ast.AST) -> bool:
    if not isinstance(node, ast.Expr) or not isinstance(node.value, ast.Call):
        return False
    func = node.value.func
    if isinstance(func, ast.Attribute):
        return func.attr in _LOG_METHODS
    return isinstance(func, ast.Name) and func.id in _LOG_METHODS


def _is_filler(node: ast.stmt) -> bool:
    """Statements that do nothing about the error: pass, `...`, a docstring, a log call."""
    if isinstance(node, ast.Pass):
        return True
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return True
    return _is_logging(node)


def _uses_name(nodes: Iterable[ast.AST], name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for node in nodes for n in ast.walk(node))


def _swallows(handler: ast.ExceptHandler, *, broad: bool) -> str | None:
    """What a swallowing handler does, as a phrase for the claim; None when it does not
    swallow (it raises, records the exception, or does other real work)."""
    if any(isinstance(n, ast.Raise) for n in ast.walk(handler)):
        return None
    body = handler.body
    if handler.name is not None:
        kept = [stmt for stmt in body if not _is_logging(stmt)]
        if _uses_name(kept, handler.name):
            return None  # the exception is stored, returned or passed on
    logs = any(_is_logging(stmt) for stmt in body)
    rest = [stmt for stmt in body if not _is_filler(stmt)]
    prefix = "logs and " if logs else ""
    if not rest:
        return f"{prefix}carries on" if logs else "passes"
    *before, last = rest
    if isinstance(last, ast.Continue) and not before:
        return f"{prefix}continues with the next item"
    if isinstance(last, ast.Return) and all(_assigns_default(s) for s in before):
        if _is_default(last.value, handler.name):
            return f"{prefix}returns {_describe_return(last)}"
        return None
    if broad and all(_assigns_default(s) for s in rest):
        targets = ", ".join(ast.unparse(t) for s in rest for t in _targets(s))
        return f"{prefix}sets {targets} to a default"
    return None


def _falls_back(handler: ast.ExceptHandler) -> str | None:
    """Looser than `_swallows`: any handler that neither raises nor records the exception."""
    if any(isinstance(n, ast.Raise) for n in ast.walk(handler)):
        return None
    if handler.name is not None:
        kept = [stmt for stmt in handler.body if not _is_logging(stmt)]
        if _uses_name(kept, handler.name):
            return None
    last = handler.body[-1]
    if isinstance(last, ast.Return):
        return f"returns {_describe_return(last)}"
    return "goes on without raising"


def _targets(stmt: ast.stmt) -> list[ast.expr]:
    if isinstance(stmt, ast.Assign):
        return list(stmt.targets)
    if isinstance(stmt, ast.AnnAssign):
        return [stmt.target]
    return []


def _assigns_default(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Assign):
        return _is_default(stmt.value, None)
    if isinstance(stmt, ast.AnnAssign):
        return stmt.value is not None and _is_default(stmt.value, None)
    return False


def _is_default(expr: ast.expr | None, bound: str | None) -> bool:
    """A value that stands in for a result: None, a literal, an empty container, a plain
    name or attribute — anything that is not a computation and does not carry the error."""
    if expr is None:
        return True
    if bound is not None and _uses_name([expr], bound):
        return False
    if isinstance(expr, ast.Constant):
        return True
    if isinstance(expr, ast.UnaryOp):
        return isinstance(expr.operand, ast.Constant)
    if isinstance(expr, ast.List | ast.Tuple | ast.Set):
        return all(_is_default(e, bound) for e in expr.elts)
    if isinstance(expr, ast.Dict):
        return all(v is not None and _is_default(v, bound) for v in expr.values)
    if isinstance(expr, ast.Call):
        func = expr.func
        return (
            isinstance(func, ast.Name)
            and func.id in _EMPTY_CONSTRUCTORS
            and not expr.args
            and not expr.keywords
        )
    if isinstance(expr, ast.Name):
        return True
    if isinstance(expr, ast.Attribute):
        return _is_default(expr.value, bound) and not isinstance(expr.value, ast.Call)
    return False


def _describe_return(ret: ast.Return) -> str:
    if ret.value is None:
        return "None (a bare `return`)"
    return f"`{_clip(ast.unparse(ret.value))}`"


def _clip(code: str, limit: int = 60) -> str:
    """One line of code for a claim; the evidence carries the full text."""
    flat = " ".join(code.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _is_optional_import(try_node: ast.Try | ast.TryStar, handler: ast.ExceptHandler) -> bool:
    """`try: import x / except ImportError: x = None` at module level: an optional
    dependency, a deliberate and visible choice rather than a hidden failure."""
    names = _type_names(handler.type)
    return (
        bool(names)
        and all(n in _OPTIONAL_IMPORT_ERRORS for n in names)
        and all(isinstance(s, ast.Import | ast.ImportFrom) for s in try_node.body)
    )


def _call_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def _writes(body: Sequence[ast.stmt]) -> bool:
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call):
                name = _call_name(node)
                if name in _WRITE_VERBS or name.startswith(_WRITE_PREFIXES):
                    return True
    return False


def _does_work(body: Sequence[ast.stmt]) -> bool:
    return any(not isinstance(s, ast.Pass) and not _is_filler(s) for s in body)


def _suppress_names(tree: ast.Module | None, text: str) -> tuple[set[str], set[str]]:
    """Names bound to the contextlib module, and names bound to contextlib.suppress."""
    modules: set[str] = set()
    functions: set[str] = set()
    # A text pre-check: walking a whole module for imports is the costly part.
    if tree is None or "contextlib" not in text:
        return modules, functions
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "contextlib":
                    modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.ImportFrom) and node.module == "contextlib":
            for alias in node.names:
                if alias.name == "suppress":
                    functions.add(alias.asname or alias.name)
    return modules, functions


def _broad_suppress(
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
        broad = [name for arg in call.args for name in _type_names(arg) if name in _BROAD]
        if broad:
            return ", ".join(broad)
    return None


def _with_header(node: ast.With | ast.AsyncWith) -> tuple[int, int]:
    start = pyast.span(node)[0]
    end = max(pyast.span(item.context_expr)[1] for item in node.items)
    return start, end


def _lookup_key(node: ast.AST) -> tuple[str, str, str] | None:
    """`d[k]` / `o.a` read (not written) as a comparable key; None for anything else."""
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        return ("index", ast.dump(node.value), ast.dump(node.slice))
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
        return ("attr", ast.dump(node.value), node.attr)
    return None


def _defaulted_lookup(call: ast.Call) -> tuple[str, str, str] | None:
    """For `d.get(k[, default])` / `getattr(o, "a", default)`, the key of the lookup that
    would have raised; None for any other call."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "get" and 1 <= len(call.args) <= 2:
        return ("index", ast.dump(func.value), ast.dump(call.args[0]))
    if isinstance(func, ast.Name) and func.id == "getattr" and len(call.args) == 3:
        name = call.args[1]
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            return ("attr", ast.dump(call.args[0]), name.value)
    return None


def _default_of(call: ast.Call) -> str:
    if isinstance(call.func, ast.Attribute) and len(call.args) == 1:
        return "None"
    return f"`{ast.unparse(call.args[-1])}`"


def _short(qualname: str) -> str:
    return "module-level code" if qualname == MODULE_SCOPE else qualname


def _first_line(text: str, node: ast.AST) -> str:
    return pyast.segment(text, node).strip().splitlines()[0]
