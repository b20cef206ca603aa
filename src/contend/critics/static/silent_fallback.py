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
deliberate choice. A Sphinx configuration (`docs/conf.py`) is not read: it runs only to build
the docs, where a failure shows as a broken page.

Severity (the rules' catalogue is silent_fallback_rules.py): major, and high confidence,
where the change demonstrably hides a failure that used to surface — a broad handler, a
narrow one around work that already existed, a raise turned into a default; critical when
the swallowed work writes (write, save, commit, delete, ...). A narrow handler around
brand-new code, a narrow handler made to catch a few more named classes, and a lookup given
a default are minor: the code handles an error it names, which may well be the intent.

This module owns the critic and the per-file check of each rule; what it reads around a
handler (change-wide handler counts, scopes, handler predicates) is silent_fallback_context's.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

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
from contend.critics.static.catalogue import RuleInfo
from contend.critics.static.silent_fallback_context import (
    MODULE_SCOPE,
    ChangeSet,
    Scope,
    collected,
    hands_on,
    is_generator,
    kept_fallback,
    raised_name,
    scopes_of,
    short_name,
    statement_text,
    widened_from,
    work_statements,
)
from contend.critics.static.silent_fallback_rules import (
    INDEX_TO_DEFAULT,
    RAISE_TO_DEFAULT,
    RULES,
    SUPPRESS_BROAD,
    SWALLOWING_HANDLER,
    WIDENED_EXCEPT,
)
from contend.protocol.model import Severity

# Re-exported: callers read the catalogue as `silent_fallback.RULES`.
__all__ = ["CRITIC", "RULES", "SilentFallbackCritic"]


class SilentFallbackCritic:
    topic: Topic = Topic.SILENT_FALLBACK
    languages: frozenset[Language] = frozenset({"python"})

    def check(self, changes: Sequence[FileChange]) -> Iterable[Finding | Skipped]:
        python = [c for c in changes if c.language == "python"]
        context = ChangeSet(python)
        for change in python:
            if change.new_text is None or not change.added_lines or is_test_path(change.path):
                continue  # a handler in a test expects its error: test-weakening's ground
            if is_docs_configuration(change.path):
                continue  # runs only to build the docs, where a failure is a broken page
            yield from _FileCheck(change, context).findings()


CRITIC = SilentFallbackCritic()


def is_docs_configuration(path: str) -> bool:
    """A Sphinx configuration: a `conf.py` in a `doc` / `docs` directory (or below one)."""
    parts = path.replace("\\", "/").lower().split("/")
    return parts[-1] == "conf.py" and any(p in ("doc", "docs") for p in parts[:-1])


class _FileCheck:
    """All rules over one changed file."""

    def __init__(self, change: FileChange, context: ChangeSet) -> None:
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
        self.new_scopes = scopes_of(self.new_tree)
        self.old_scopes = scopes_of(self.old_tree) if self.old_tree is not None else {}
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
        scope: Scope,
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

    def _counterpart(self, scope: Scope) -> Scope | None:
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

    def _old_nodes(self, old: Scope | None) -> Iterable[ast.AST]:
        """Where to look for a pre-existing copy of a pattern: the counterpart scope, or the
        whole old file when the function is new (code moved between functions)."""
        if old is not None:
            return pyast.walk_within(old.node)
        return sa.statements(self.old_tree) if self.old_tree is not None else ()

    def _touched(self, node: ast.AST) -> bool:
        start, end = pyast.span(node)
        return self.change.touches(start, end)

    # -- raise-to-default -----------------------------------------------------------------

    def _raise_to_default(self, scope: Scope, old: Scope | None) -> Iterator[Finding]:
        if old is None or scope.qualname == MODULE_SCOPE:
            return
        old_raises = [n for n in pyast.walk_within(old.node) if isinstance(n, ast.Raise)]
        # Raises are matched by what they raise, not their text: a message reworded, or one
        # check split in two (`raise ValueError("a or b")` -> two raises of ValueError),
        # raises as before.
        new_raise_count = Counter(
            raised_name(n) for n in pyast.walk_within(scope.node) if isinstance(n, ast.Raise)
        )
        gone: list[ast.Raise] = []
        for node in sorted(old_raises, key=lambda n: pyast.span(n)[0]):
            key = raised_name(node)
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
        procedure = all(r.value is None for r in returns) and not is_generator(scope.node)
        for ret in returns:
            if not self._touched(ret) or not sa.is_default(ret.value, None):
                continue
            if procedure and hands_on(scope.node, ret):
                continue
            if collected(scope.node, ret):
                continue  # the errors went to a collector whose exit raises them
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
                    f"`{short_name(scope.qualname)}` used to raise "
                    f"(`{sa.first_line(self.old_text, raised)}`) and now returns "
                    f"{sa.describe_return(ret)} there: the caller can no longer tell failure "
                    "from a real result."
                ),
                old_evidence=pyast.segment(self.old_text, raised),
            )

    # -- swallowing-handler and widened-except --------------------------------------------

    def _handlers(self, scope: Scope, old: Scope | None, taken: set[int]) -> Iterator[Finding]:
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
                if kept_fallback(before, handler):
                    continue  # this place already caught at least as much without raising
                newly = self._newly_guarded(try_node)
                widened = widened_from(before, handler) is not None
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
        return any(
            statement_text(lines, stmt) in unguarded for stmt in work_statements(try_node.body)
        )

    def _handler_finding(
        self,
        scope: Scope,
        try_node: sa.Try,
        index: int,
        taken: set[int],
        newly: bool,
        before: ast.ExceptHandler | None,
    ) -> Finding | None:
        handler = try_node.handlers[index]
        broad = sa.is_broad(handler.type)
        widened = widened_from(before, handler)
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
        name = short_name(scope.qualname)
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
        # A narrow handler of a named error is an expected condition far more often than a
        # hidden failure: of 33 blocking findings labelled on real commits, none was TRUE, and
        # nearly all were narrow (StopIteration, NotImplementedError probes, queue.Empty…).
        # Only a broad handler demonstrably hides every failure, so only it blocks.
        blocking = broad and not explained
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
        self, scope: Scope, old: Scope | None, try_node: sa.Try, index: int
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

    def _suppress(self, scope: Scope, old: Scope | None) -> Iterator[Finding]:
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
                    f"`{short_name(scope.qualname)}` wraps its work in `suppress({caught})`: any "
                    "error in that block is discarded and execution goes on as if it succeeded."
                ),
                severity=Severity.CRITICAL if sa.writes(node.body) else Severity.MAJOR,
            )

    # -- index-to-default -----------------------------------------------------------------

    def _index_to_default(self, scope: Scope, old: Scope | None) -> Iterator[Finding]:
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
                    f"`{short_name(scope.qualname)}` replaced `{pyast.unparse(replaced)}`, which "
                    f"raised when missing, by `{pyast.unparse(call)}`, which returns "
                    f"{sa.default_of(call)}: a missing value is no longer an error."
                ),
                evidence=self.change.new_lines(start, end),
                old_evidence=pyast.segment(self.old_text, replaced),
            )
