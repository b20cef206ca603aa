"""Python `silent-fallback` topic: failures the change turned into quiet defaults.

Rules (all diff-aware: a pattern that was already in the old version of the same function,
matched by qualified name, is not reported):
    raise-to-default    a `raise` of the old function is gone and the new version returns a
                        default (None, a literal, an empty container, a plain name) instead
    swallowing-handler  a new except handler that only passes, continues, logs, or returns /
                        assigns a default, and neither raises nor records the exception
    widened-except      a narrow except widened (to Exception / BaseException / bare, or to
                        more named classes) with a body that does not raise
    suppress-broad      `contextlib.suppress(Exception | BaseException)` around real work
    index-to-default    `d[k]` replaced by `d.get(k[, default])`, or `o.a` by `getattr(o, "a", d)`

What is compared is what the code does, not which lines moved: a handler is new only when
the changed files hold more copies of it than before (moving one between functions, files
or branches adds none); a handler the function already had, applied to new code in a new
branch, is the same policy; a lookup the old code guarded (`hasattr`, `k in d`, a handler
of its missing-key error) rewritten as `getattr(o, "a", None)` / `d.get(k)` is the same
fallback; an optional-import probe (`try: import x / except ImportError`) at any level is a
deliberate choice.

Severity (the rules' catalogue below): major, and high confidence, where the change
demonstrably hides a failure that used to surface — a broad handler, a narrow one around
work that already existed, a raise turned into a default; critical when the swallowed work
writes (write, save, commit, delete, ...). A narrow handler around brand-new code, a narrow
handler made to catch a few more named classes, and a lookup given a default are minor: the
code handles an error it names, which may well be the intent.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from contend.critics.static import pyast
from contend.critics.static import silent_fallback_ast as sa
from contend.critics.static.base import (
    Confidence,
    FileChange,
    Finding,
    Language,
    Skipped,
    Topic,
    is_test_path,
)
from contend.critics.static.catalogue import PYTHON, RuleInfo, waiver_way
from contend.protocol.model import Severity

MODULE_SCOPE = "<module>"
_TOPIC = Topic.SILENT_FALLBACK
_WAIVE = waiver_way(_TOPIC)

RAISE_TO_DEFAULT = RuleInfo(
    rule="raise-to-default",
    topic=_TOPIC,
    severity=Severity.MAJOR,
    confidence=Confidence.HIGH,
    languages=PYTHON,
    why="the function used to raise here; now it returns a value the caller cannot tell "
    "from a real result, so the failure travels on as data",
    ways_out=(
        "raise again (the old exception or a narrower one) so the caller sees the failure",
        "or make the absence explicit in the return type and update every caller to check it",
        _WAIVE,
    ),
)
SWALLOWING_HANDLER = RuleInfo(
    rule="swallowing-handler",
    topic=_TOPIC,
    severity=Severity.CRITICAL,
    confidence=Confidence.HIGH,
    languages=PYTHON,
    why="a new except clause passes, logs or returns a default: the error it catches never "
    "reaches anyone who could act on it",
    ways_out=(
        "re-raise (bare `raise`, or `raise DomainError(...) from exc`) after any cleanup",
        "or catch only the exception the code means to handle and say why in the handler",
        _WAIVE,
    ),
)
WIDENED_EXCEPT = RuleInfo(
    rule="widened-except",
    topic=_TOPIC,
    severity=Severity.CRITICAL,
    confidence=Confidence.HIGH,
    languages=PYTHON,
    why="the handler now catches errors it did not catch before and treats them like the "
    "one it was written for, so unrelated failures are hidden too",
    ways_out=(
        "restore the narrower `except` clause shown under 'before the change'",
        "or handle the added exceptions in their own clause that raises or reports them",
        _WAIVE,
    ),
)
SUPPRESS_BROAD = RuleInfo(
    rule="suppress-broad",
    topic=_TOPIC,
    severity=Severity.CRITICAL,
    confidence=Confidence.HIGH,
    languages=PYTHON,
    why="`contextlib.suppress(Exception)` discards every error of the block and carries on "
    "as if it had succeeded",
    ways_out=(
        "suppress only the exception you expect (e.g. `suppress(FileNotFoundError)`)",
        "or let the error propagate",
        _WAIVE,
    ),
)
INDEX_TO_DEFAULT = RuleInfo(
    rule="index-to-default",
    topic=_TOPIC,
    severity=Severity.MINOR,
    confidence=Confidence.MEDIUM,
    languages=PYTHON,
    why="a lookup that raised when the key or attribute was missing now returns a default, "
    "so a missing value (or a typo in its name) passes unnoticed",
    ways_out=(
        "keep the raising lookup (`d[k]`, `o.a`) if the value must be there",
        "or handle the missing case explicitly where the default is decided",
        _WAIVE,
    ),
)
RULES: tuple[RuleInfo, ...] = (
    RAISE_TO_DEFAULT,
    SWALLOWING_HANDLER,
    WIDENED_EXCEPT,
    SUPPRESS_BROAD,
    INDEX_TO_DEFAULT,
)


@dataclass(frozen=True, slots=True)
class _Scope:
    qualname: str
    node: ast.AST  # a function definition, or the module for top-level code


@dataclass(slots=True)
class _ChangeSet:
    """Handler counts over every changed file, old side and new, computed once: a handler
    moved from one file or function to another adds no copy."""

    changes: Sequence[FileChange]
    _counts: dict[bool, Counter[str]] = field(default_factory=dict)
    _unguarded: frozenset[str] | None = None

    def handlers(self, *, new: bool) -> Counter[str]:
        if new not in self._counts:
            counts: Counter[str] = Counter()
            for change in self.changes:
                text = change.new_text if new else change.old_text
                if text is None or "except" not in text:
                    continue
                tree = _parse(text)
                if tree is not None:
                    counts.update(
                        sa.handler_key(h)
                        for h in sa.statements(tree)
                        if isinstance(h, ast.ExceptHandler)
                    )
            self._counts[new] = counts
        return self._counts[new]

    def added(self, key: str) -> bool:
        """Do the changed files hold more handlers of this key than before?"""
        return self.handlers(new=True)[key] > self.handlers(new=False)[key]

    def old_keys(self) -> Counter[str]:
        return self.handlers(new=False)

    def unguarded_old(self) -> frozenset[str]:
        """Every simple statement the old sides ran outside any `try`, by its source text
        with whitespace collapsed (cheaper than comparing trees, and as good to say
        "this statement was there")."""
        if self._unguarded is None:
            found: set[str] = set()
            for change in self.changes:
                text = change.old_text
                tree = _parse(text) if text is not None else None
                if tree is not None and text is not None:
                    lines = text.split("\n")
                    found.update(
                        _statement_text(lines, stmt) for stmt in _work(tree.body, skip_tries=True)
                    )
            self._unguarded = frozenset(found)
        return self._unguarded


def _statement_text(lines: list[str], stmt: ast.stmt) -> str:
    start, end = pyast.span(stmt)
    return " ".join(" ".join(lines[start - 1 : end]).split())


def _parse(text: str) -> ast.Module | None:
    try:
        return pyast.parse(text)
    # contend: allow silent-fallback -- the runner reports unparsable files as skipped
    except (SyntaxError, ValueError):
        return None


class SilentFallbackCritic:
    topic: Topic = Topic.SILENT_FALLBACK
    languages: frozenset[Language] = frozenset({"python"})

    def check(self, changes: Sequence[FileChange]) -> Iterable[Finding | Skipped]:
        python = [c for c in changes if c.language == "python"]
        context = _ChangeSet(python)
        for change in python:
            if change.new_text is None or not change.added_lines or is_test_path(change.path):
                continue  # a handler in a test expects its error: test-weakening's ground
            yield from _FileCheck(change, context).findings()


CRITIC = SilentFallbackCritic()


class _FileCheck:
    """All rules over one changed file."""

    def __init__(self, change: FileChange, context: _ChangeSet) -> None:
        new_text = change.new_text
        if new_text is None:
            raise ValueError(f"{change.path}: no new side to check")
        self.change = change
        self.context = context
        self.new_text = new_text
        self.new_lines = new_text.split("\n")
        self.old_text = change.old_text or ""
        self.new_tree = pyast.parse(new_text)
        self.old_tree = pyast.parse(change.old_text) if change.old_text is not None else None
        self.new_scopes = _scopes(self.new_tree)
        self.old_scopes = _scopes(self.old_tree) if self.old_tree is not None else {}
        self.suppress_names = sa.suppress_names(self.new_tree, self.new_text)
        self.old_suppress_names = sa.suppress_names(self.old_tree, self.old_text)

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

    def _finding(
        self,
        info: RuleInfo,
        scope: _Scope,
        node: ast.AST,
        claim: str,
        *,
        evidence: str | None = None,
        old_evidence: str | None = None,
        severity: Severity | None = None,
        confidence: Confidence | None = None,
    ) -> Finding:
        return info.finding(
            path=self.change.path,
            lines=pyast.span(node),
            claim=claim,
            evidence=evidence if evidence is not None else pyast.segment(self.new_text, node),
            old_evidence=old_evidence,
            symbol=None if scope.qualname == MODULE_SCOPE else pyast.symbol_of(scope.qualname),
            severity=severity,
            confidence=confidence,
        )

    # -- matching old and new -------------------------------------------------------------

    def _counterpart(self, scope: _Scope) -> _Scope | None:
        """The old version of a scope: same qualified name, else (a rename) the old function
        whose body is identical."""
        same = self.old_scopes.get(scope.qualname)
        if same is not None:
            return same
        if not isinstance(scope.node, ast.FunctionDef | ast.AsyncFunctionDef):
            return None
        shape = sa.shape(scope.node)
        # Dumping is the costly part: only old functions of the same shape are compared.
        body = sa.function_body(scope.node)
        for name, candidate in self.old_scopes.items():
            if name in self.new_scopes:
                continue  # still there under its name: a copy, not a rename
            if sa.shape(candidate.node) == shape and sa.function_body(candidate.node) == body:
                return candidate
        return None

    def _old_nodes(self, old: _Scope | None) -> Iterable[ast.AST]:
        """Where to look for a pre-existing copy of a pattern: the counterpart scope, or the
        whole old file when the function is new (code moved between functions)."""
        if old is not None:
            return pyast.walk_within(old.node)
        return sa.statements(self.old_tree) if self.old_tree is not None else ()

    def _touched(self, node: ast.AST) -> bool:
        start, end = pyast.span(node)
        return self.change.touches(start, end)

    # -- raise-to-default -----------------------------------------------------------------

    def _raise_to_default(self, scope: _Scope, old: _Scope | None) -> Iterator[Finding]:
        if old is None or scope.qualname == MODULE_SCOPE:
            return
        old_raises = [n for n in pyast.walk_within(old.node) if isinstance(n, ast.Raise)]
        # Raises are matched by what they raise, not their text: a message reworded, or one
        # check split in two (`raise ValueError("a or b")` -> two raises of ValueError),
        # raises as before.
        new_raise_count = Counter(
            _raised(n) for n in pyast.walk_within(scope.node) if isinstance(n, ast.Raise)
        )
        gone: list[ast.Raise] = []
        for node in sorted(old_raises, key=lambda n: pyast.span(n)[0]):
            key = _raised(node)
            if new_raise_count[key] > 0:
                new_raise_count[key] -= 1
            else:
                gone.append(node)
        if not gone:
            return
        old_returns = Counter(
            pyast.dump(n) for n in pyast.walk_within(old.node) if isinstance(n, ast.Return)
        )
        new_start = pyast.span(scope.node)[0]
        old_start = pyast.span(old.node)[0]
        returns = sorted(sa.returns(scope.node), key=lambda n: pyast.span(n)[0])
        for ret in returns:
            if not self._touched(ret):
                old_returns[pyast.dump(ret)] -= 1  # an unchanged return accounts for its copy
        procedure = all(r.value is None for r in returns) and not _generator(scope.node)
        for ret in returns:
            if not self._touched(ret) or not sa.is_default(ret.value, None):
                continue
            if procedure and _hands_on(scope.node, ret):
                continue
            key = pyast.dump(ret)
            if old_returns[key] > 0:
                old_returns[key] -= 1
                continue
            offset = pyast.span(ret)[0] - new_start
            raised = min(gone, key=lambda r: abs((pyast.span(r)[0] - old_start) - offset))
            yield self._finding(
                RAISE_TO_DEFAULT,
                scope,
                ret,
                claim=(
                    f"`{_short(scope.qualname)}` used to raise "
                    f"(`{sa.first_line(self.old_text, raised)}`) and now returns "
                    f"{sa.describe_return(ret)} there: the caller can no longer tell failure "
                    "from a real result."
                ),
                old_evidence=pyast.segment(self.old_text, raised),
            )

    # -- swallowing-handler and widened-except --------------------------------------------

    def _handlers(self, scope: _Scope, old: _Scope | None, taken: set[int]) -> Iterator[Finding]:
        tries = sa.tries(scope.node)
        touched = [t for t in tries if self._touched(t)]
        if not touched:
            return
        in_old = (
            Counter(
                sa.handler_key(h)
                for h in pyast.walk_within(old.node)
                if isinstance(h, ast.ExceptHandler)
            )
            if old is not None
            else Counter()
        )
        policy = set(in_old)  # the handlers this function already had, by key
        old_counts = in_old.copy()
        for try_node in tries:
            if try_node not in touched:
                for handler in try_node.handlers:
                    # An unchanged handler accounts for its own old copy first.
                    old_counts[sa.handler_key(handler)] -= 1
        for try_node in touched:
            for index, handler in enumerate(try_node.handlers):
                key = sa.handler_key(handler)
                if old_counts[key] > 0:
                    old_counts[key] -= 1
                    continue
                if not self.context.added(key):
                    continue  # moved here from another function, branch or file
                before = self._old_handler_at(scope, old, try_node, index)
                if _kept_fallback(before, handler):
                    continue  # this place already caught at least as much without raising
                newly = self._newly_guarded(try_node)
                widened = _widened_from(before, handler) is not None
                if not newly and not widened:
                    if key in policy or key in self.context.old_keys():
                        continue  # a handler the code already had, around moved or new code
                    if not sa.is_broad(handler.type):
                        continue  # a named error, handled by code written with its handler
                if (
                    sa.is_iteration_end(handler)
                    or sa.reports_failure(handler)
                    or sa.exits_with_error(handler)
                ):
                    continue
                lookups = sa.handler_guards_lookups(try_node, handler)
                if lookups:
                    wanted = frozenset(lookup[2] for lookup in lookups)
                    guarded = sa.guarded_lookups(self._old_nodes(old), wanted)
                    if all(lookup in guarded for lookup in lookups):
                        continue  # the old code checked hasattr / `in` for these lookups
                found = self._handler_finding(scope, try_node, index, taken, newly, before)
                if found is not None:
                    yield found

    def _newly_guarded(self, try_node: sa.Try) -> bool:
        """Does the try body hold work that ran unguarded before the change (in any changed
        file): the failures the handler now swallows used to surface?"""
        unguarded = self.context.unguarded_old()
        lines = self.new_lines
        return any(_statement_text(lines, stmt) in unguarded for stmt in _work(try_node.body))

    def _handler_finding(
        self,
        scope: _Scope,
        try_node: sa.Try,
        index: int,
        taken: set[int],
        newly: bool,
        before: ast.ExceptHandler | None,
    ) -> Finding | None:
        handler = try_node.handlers[index]
        broad = sa.is_broad(handler.type)
        widened = _widened_from(before, handler)
        outcome = sa.swallows(handler, broad=broad)
        if outcome is None and widened is not None:
            # The old narrow handler's fallback was accepted for one error; widened, more
            # errors now take it, whatever it returns.
            outcome = sa.falls_back(handler)
        if outcome is None:
            return None
        if any(pyast.span(n)[0] in taken for n in ast.walk(handler) if isinstance(n, ast.Return)):
            return None  # already reported as raise-to-default, with the old raise as evidence
        if sa.is_import_probe(try_node, handler):
            return None
        name = _short(scope.qualname)
        caught = sa.caught(handler.type)
        writes = sa.writes(try_node.body)
        # A comment in the handler explains the choice: an informal waiver, still shown.
        explained = sa.explained(self.new_text, handler)
        note = " (the handler's comment says why)" if explained else ""
        if widened is not None:
            blocking = broad and not explained
            return self._finding(
                WIDENED_EXCEPT,
                scope,
                handler,
                claim=(
                    f"`{name}` widened `except {sa.caught(widened.type)}` to `except {caught}`, "
                    f"and the handler {outcome}: "
                    + (
                        "every other error is now hidden too."
                        if broad
                        else "the added exception classes now take the same fallback."
                    )
                    + note
                ),
                old_evidence=pyast.segment(self.old_text, widened),
                severity=(Severity.CRITICAL if writes else Severity.MAJOR)
                if blocking
                else Severity.MINOR,
                confidence=None if blocking else Confidence.MEDIUM,
            )
        blocking = (broad or newly) and not explained
        severity = Severity.CRITICAL if broad and writes else Severity.MAJOR
        what = " (the work it guards ran unguarded before)" if newly else ""
        return self._finding(
            SWALLOWING_HANDLER,
            scope,
            handler,
            claim=(
                f"`{name}` now catches {caught} and {outcome} instead of letting the error "
                f"surface: the failure is silent{what}.{note}"
            ),
            old_evidence=pyast.segment(self.old_text, before) if before is not None else None,
            severity=severity if blocking else Severity.MINOR,
            confidence=None if blocking else Confidence.MEDIUM,
        )

    def _old_handler_at(
        self, scope: _Scope, old: _Scope | None, try_node: sa.Try, index: int
    ) -> ast.ExceptHandler | None:
        """The old handler in this handler's place: same try body in the old function,
        else the try at the same position, and the handler at the same index."""
        if old is None:
            return None
        old_tries = sa.tries(old.node)
        body = pyast.dump_list(try_node.body)
        match = next((t for t in old_tries if pyast.dump_list(t.body) == body), None)
        if match is None:
            if pyast.span(try_node)[0] in self.change.added_lines:
                return None  # a new `try:`: nothing was widened, the whole statement is new
            position = next(i for i, t in enumerate(sa.tries(scope.node)) if t is try_node)
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
            and (caught := sa.broad_suppress(node, modules, functions)) is not None
            and sa.does_work(node.body)
        ]
        if not candidates:
            return
        old_mods, old_funcs = self.old_suppress_names
        old_counts = Counter(
            pyast.dump(n)
            for n in self._old_nodes(old)
            if isinstance(n, ast.With | ast.AsyncWith) and sa.broad_suppress(n, old_mods, old_funcs)
        )
        for node, caught in sorted(candidates, key=lambda c: pyast.span(c[0])[0]):
            key = pyast.dump(node)
            if old_counts[key] > 0 or not self.change.touches(*sa.with_header(node)):
                old_counts[key] -= 1
                continue
            yield self._finding(
                SUPPRESS_BROAD,
                scope,
                node,
                claim=(
                    f"`{_short(scope.qualname)}` wraps its work in `suppress({caught})`: any "
                    "error in that block is discarded and execution goes on as if it succeeded."
                ),
                severity=Severity.CRITICAL if sa.writes(node.body) else Severity.MAJOR,
            )

    # -- index-to-default -----------------------------------------------------------------

    def _index_to_default(self, scope: _Scope, old: _Scope | None) -> Iterator[Finding]:
        if old is None:
            return
        candidates = [
            (call, key)
            for call in pyast.walk_within(scope.node)
            if isinstance(call, ast.Call)
            and (key := sa.defaulted_lookup(call)) is not None
            and self._touched(call)
        ]
        if not candidates:
            return
        old_calls = Counter(
            pyast.dump(n)
            for n in pyast.walk_within(old.node)
            if isinstance(n, ast.Call) and sa.defaulted_lookup(n) is not None
        )
        candidates = [(call, key) for call, key in candidates if not old_calls[pyast.dump(call)]]
        wanted = frozenset(key[2] for _, key in candidates)
        old_lookups: dict[sa.LookupKey, list[ast.AST]] = {}
        for node in pyast.walk_within(old.node):
            found = sa.lookup_key(node, wanted)
            if found is not None:
                old_lookups.setdefault(found, []).append(node)
        new_counts = Counter(
            k for n in pyast.walk_within(scope.node) if (k := sa.lookup_key(n, wanted)) is not None
        )
        guarded = sa.guarded_lookups(pyast.walk_within(old.node), wanted)
        handled = sa.handled_calls(scope.node)
        for call, key in sorted(candidates, key=lambda c: pyast.span(c[0])[0]):
            # Swapped only if the new code looks it up fewer times than the old did: a `.get`
            # added next to a kept `d[k]` is an addition, not a swap.
            if len(old_lookups.get(key, ())) <= new_counts[key]:
                continue
            # The old code already answered a missing key (`in`, hasattr, a handler) and
            # the default now does it; unless the `.get` sits in that handler's `try`,
            # whose fallback it has just made dead code.
            if key in guarded and id(call) not in handled:
                continue
            replaced = old_lookups[key][0]
            start, end = pyast.span(call)
            yield self._finding(
                INDEX_TO_DEFAULT,
                scope,
                call,
                claim=(
                    f"`{_short(scope.qualname)}` replaced `{pyast.unparse(replaced)}`, which "
                    f"raised when missing, by `{pyast.unparse(call)}`, which returns "
                    f"{sa.default_of(call)}: a missing value is no longer an error."
                ),
                evidence=self.change.new_lines(start, end),
                old_evidence=pyast.segment(self.old_text, replaced),
            )


def _kept_fallback(before: ast.ExceptHandler | None, handler: ast.ExceptHandler) -> bool:
    """The old handler in this one's place caught the same errors or more (a bare or broad
    clause, a superset of names) and did not raise either: the change kept, narrowed or
    reworded an existing fallback rather than adding one."""
    if before is None or sa.raises(before):
        return False
    if sa.is_broad(before.type):
        return True
    if sa.is_broad(handler.type):
        return False
    return set(sa.type_names(handler.type)) <= set(sa.type_names(before.type))


def _widened_from(
    before: ast.ExceptHandler | None, handler: ast.ExceptHandler
) -> ast.ExceptHandler | None:
    """The old narrow handler in this one's place, when this one catches more: a broad or
    bare clause, or a strict superset of the named classes with a body that did not raise."""
    if before is None or sa.is_broad(before.type):
        return None
    if sa.is_broad(handler.type):
        return before
    old_names, new_names = set(sa.type_names(before.type)), set(sa.type_names(handler.type))
    if old_names < new_names and not sa.raises(before):
        return before
    return None


def _work(body: Sequence[ast.stmt], *, skip_tries: bool = False) -> Iterator[ast.stmt]:
    """The simple statements under `body` that do something: not `pass`, `continue`,
    `break`, a docstring or a return of a default, which every function shares (with
    `skip_tries`, none of those a `try` with handlers guards)."""
    stack = list(body)
    while stack:
        stmt = stack.pop()
        if skip_tries and isinstance(stmt, ast.Try | ast.TryStar) and stmt.handlers:
            # the body ran guarded; the handlers' own bodies and what follows (else,
            # finally) did not
            stack.extend([*stmt.orelse, *stmt.finalbody])
            stack.extend(s for h in stmt.handlers for s in h.body)
            continue
        inner = [
            s
            for name in ("body", "orelse", "finalbody")
            for s in getattr(stmt, name, None) or ()
            if isinstance(s, ast.stmt)
        ]
        inner += [s for h in getattr(stmt, "handlers", ()) for s in h.body]
        inner += [s for c in getattr(stmt, "cases", ()) for s in c.body]
        if inner or hasattr(stmt, "body"):
            stack.extend(inner)
            continue
        if sa.is_filler(stmt) or isinstance(stmt, ast.Continue | ast.Break):
            continue
        if isinstance(stmt, ast.Return) and sa.is_default(stmt.value, None):
            continue
        yield stmt


def _raised(node: ast.Raise) -> str:
    """What a raise statement raises: its exception class, `<reraise>` for a bare one."""
    if node.exc is None:
        return "<reraise>"
    target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    return pyast.unparse(target)


def _scopes(tree: ast.Module | None) -> dict[str, _Scope]:
    if tree is None:
        return {}
    scopes = {MODULE_SCOPE: _Scope(MODULE_SCOPE, tree)}
    for name, function in pyast.functions(tree).items():
        scopes[name] = _Scope(name, function.node)
    return scopes


def _short(qualname: str) -> str:
    return "module-level code" if qualname == MODULE_SCOPE else qualname


def _generator(fn: ast.AST) -> bool:
    """A generator's bare `return` ends its iteration early: an empty result, a default."""
    return any(isinstance(n, ast.Yield | ast.YieldFrom) for n in pyast.walk_within(fn))


def _hands_on(fn: ast.AST, ret: ast.Return) -> bool:
    """Is `ret` a bare return of a function that returns no value anywhere, in an `except
    ... as e` handler that passes `e` to a call other than a log (`waiters.wake_all(e)`,
    `future.set_exception(e)`)? The failure is delivered, not lost, and there is no result
    a caller could mistake for a real one."""
    for handler in pyast.walk_within(fn):
        if not isinstance(handler, ast.ExceptHandler) or handler.name is None:
            continue
        if not any(n is ret for stmt in handler.body for n in ast.walk(stmt)):
            continue
        return any(
            isinstance(n, ast.Call)
            and pyast.callee_name(n) not in sa.LOG_METHODS
            and any(
                isinstance(a, ast.Name) and a.id == handler.name
                for a in [*n.args, *(k.value for k in n.keywords)]
            )
            for stmt in handler.body
            for n in ast.walk(stmt)
        )
    return False
