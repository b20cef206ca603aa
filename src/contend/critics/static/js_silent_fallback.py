"""The `silent-fallback` topic for JavaScript / TypeScript / TSX: errors turned into defaults.

Rules, reported only where the change added or modified the lines (severity `major`; `critical`
when the swallowed work writes — a write, save, delete, send or commit whose failure nobody
hears of loses data; `minor` when a comment in the handler gives the reason, three words or
more or a link — a documented decision, shown but not blocking):

    js-catch-default         `.catch(cb)` (or `.then(ok, cb)`) whose callback returns a made-up
                             value (literal, object/array of literals, null, undefined), has an
                             empty body, only logs, or is a `noop`
    js-empty-catch           `catch {}` / `catch (e) {}` (comments do not count as handling)
    js-catch-return-default  a catch block that only (logs and) returns a made-up value, or
                             resolves a Promise executor with one (`resolve(undefined)`)
    js-catch-swallow         a catch block that only logs and/or assigns a made-up value
    js-throw-to-default      a function lost a `throw` and gained a `return <made-up value>`

Not flagged: a catch that rethrows (with or without logging), or returns / resolves to
something carrying the error (`return { ok: false, error: e }`, `.catch(e => wrap(e))`); a
catch that records the failure in a flag (`failed = true`, `process.exitCode = 1`); the
boolean probe `try { ...; return true } catch { return false }`; a handler the old version
already had in the same function (editing a log line inside it is not introducing it), or a
catch of the same work whose old handler carried on with a substitute value
(`js_fallback_kept`: an optional dependency's probe restructured, a parser swapped for a
drop-in replacement); and the handlers `js_fallback_context` and `js_fallback_absence` show
to leave the failure with someone (a rethrowing outer catch, a feature probe, a
try-each-candidate loop that throws after the last, a detached `p.catch(noop)` while `p` is
awaited elsewhere, a null checked right after on a reporting path, a variable the try alone
assigns that the handler leaves unset and the code tests for absence right after — `if
(!storage) return config(...)` —, an `await p.catch(noop)` that only waits, a `.then(store,
noop)` whose stored value only decorates the error a `catch` reports, a handler in the
branch of an option that asks for failures to be ignored — `if
(options.ignoreInvalidCookies)` — which the caller chose); in test code, a caught rejection
unless the guarded code asserts (an expected rejection is what the test checks).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from tree_sitter import Node

from contend.critics.static import js_fallback_absence as absence
from contend.critics.static import js_fallback_context as context
from contend.critics.static.base import Confidence, FileChange, Finding, Skipped, Topic
from contend.critics.static.base import Language as FileLanguage
from contend.critics.static.catalogue import RuleInfo
from contend.critics.static.js_fallback_kept import kept_from_old
from contend.critics.static.js_runner_config import NO_LAYOUT, TestLayout, layout_of
from contend.critics.static.js_tests_model import is_test_code
from contend.critics.static.treesitter import (
    FUNCTION_TYPES,
    JS_LANGUAGES,
    JsLanguage,
    SourceLines,
    callee_name,
    captures,
    functions,
    is_default_value,
    js_language,
    lines_of,
    named_children,
    old_side_language,
    parse_checked,
    qualname_of,
    spans_any,
    squash,
    text_of,
    unwrap,
    walk,
    walk_within,
)
from contend.protocol.model import Severity

TOPIC = Topic.SILENT_FALLBACK
_JS: frozenset[FileLanguage] = frozenset(JS_LANGUAGES)
_WAYS_OUT = (
    "let the failure reach the caller: rethrow (with context), reject, or return a result "
    "that carries the error",
    "or waive it in code with a reason: `// contend: allow silent-fallback -- <reason>`",
)


def _rule(rule: str, confidence: Confidence, why: str) -> RuleInfo:
    return RuleInfo(rule, TOPIC, Severity.CRITICAL, confidence, _JS, why, _WAYS_OUT)


# Default severity is the highest a finding of the rule may get (critical, around a write);
# anything else is major.
RULES = (
    _rule(
        "js-catch-default",
        Confidence.HIGH,
        "a rejected promise resolves to a made-up value, so an outage reads as real data",
    ),
    _rule(
        "js-empty-catch",
        Confidence.HIGH,
        "every exception of the try block is dropped and the code carries on",
    ),
    _rule(
        "js-catch-return-default",
        Confidence.HIGH,
        "the caller cannot tell a failure from a real result",
    ),
    _rule(
        "js-catch-swallow",
        Confidence.HIGH,
        "the failure is logged at most; the caller carries on as if it had succeeded",
    ),
    _rule(
        "js-throw-to-default",
        Confidence.HIGH,
        "a failure the function used to raise became an ordinary return value",
    ),
)
_CONFIDENCE = {info.rule: info.confidence for info in RULES}

Swallow = Literal["empty", "return-default", "assign-default", "log-only"]

# Receivers whose calls only record a failure; the caller still never hears about it.
_LOG_RECEIVERS = frozenset({"console", "logger", "log", "logging", "Sentry"})
# Work whose silent failure loses data: a write, save, delete, send or commit.
_WRITE_CALL = re.compile(
    r"(?:^|\.)(?:write|save|commit|delete|remove|unlink|rm|rmdir|send|insert|upsert|flush"
    r"|truncate|execute|persist|append|put|post)(?:[A-Z_]\w*)?$"
)


def _is_logging_call(node: Node) -> bool:
    node = unwrap(node)
    if node.type == "await_expression":
        inner = named_children(node)
        node = unwrap(inner[0]) if inner else node
    if node.type != "call_expression":
        return False
    name = callee_name(node)
    return bool(name) and name.split(".")[0] in _LOG_RECEIVERS


def _statement_kind(stmt: Node, resolvers: frozenset[str]) -> Swallow | None:
    """What a statement in a handler does, when it is one of the ways of doing nothing."""
    if stmt.type == "return_statement":
        values = named_children(stmt)
        return "return-default" if not values or is_default_value(values[0]) else None
    if stmt.type != "expression_statement":
        return None
    resolved = context.resolves_default(stmt, resolvers)
    if resolved is not None:
        return "return-default" if resolved else None
    exprs = named_children(stmt)
    if not exprs:
        return None
    expr = unwrap(exprs[0])
    if _is_logging_call(expr):
        return "log-only"
    if expr.type == "assignment_expression":
        right = expr.child_by_field_name("right")
        # `failed = true` / `process.exitCode = 1` record the failure: that is handling it.
        if (
            right is not None
            and is_default_value(right)
            and unwrap(right).type not in ("true", "false", "number")
        ):
            return "assign-default"
    return None


def swallow_kind(block: Node, resolvers: frozenset[str] = frozenset()) -> Swallow | None:
    """How a handler body swallows the error, or None when it does something real."""
    statements = named_children(block)
    if not statements:
        return "empty"
    kinds = [_statement_kind(stmt, resolvers) for stmt in statements]
    if None in kinds:
        return None
    if "return-default" in kinds:
        return "return-default"
    return "assign-default" if "assign-default" in kinds else "log-only"


def callback_swallow(callback: Node) -> Swallow | None:
    """How a `.catch` callback swallows the rejection, or None when it does not."""
    callback = unwrap(callback)
    if callback.type in ("identifier", "member_expression"):
        name = squash(text_of(callback))
        if name.lower().endswith("noop"):
            return "empty"
        return "log-only" if name.split(".")[0] in _LOG_RECEIVERS else None
    if callback.type not in FUNCTION_TYPES:
        return None
    body = callback.child_by_field_name("body")
    if body is None:
        return None
    if body.type == "statement_block":
        return swallow_kind(body)
    if is_default_value(body):
        return "return-default"
    return "log-only" if _is_logging_call(body) else None


def _returned_value(block: Node, resolvers: frozenset[str] = frozenset()) -> str:
    for stmt in named_children(block):
        if stmt.type == "return_statement":
            values = named_children(stmt)
            return text_of(values[0]) if values else "undefined"
        if context.resolves_default(stmt, resolvers):
            return " ".join(text_of(stmt).rstrip(";").split())
    return "undefined"


def _writes(node: Node | None) -> bool:
    """Whether the guarded code calls a write (write*, save*, delete*, send*, commit*...)."""
    if node is None:
        return False
    return any(
        item.type == "call_expression" and _WRITE_CALL.search(callee_name(item))
        for item in [node, *walk(node)]
    )


@dataclass(frozen=True, slots=True)
class _Hit:
    rule: str
    start_line: int
    end_line: int
    claim: str
    old_evidence: str | None = None
    # (rule, enclosing function, what the handler yields): the same key on the old side
    # means the fallback was already there and the change only edited around it.
    key: tuple[str, str, str] = ("", "", "")
    node: Node | None = None
    severity: Severity = Severity.MAJOR
    symbol: str = ""


# Error handlers: catch clauses, and `.catch(...)` / `.then(...)` calls (filtered further below).
_HANDLERS = """
(catch_clause) @catch
(call_expression
  function: (member_expression property: (property_identifier) @method
                               (#any-of? @method "catch" "then"))) @call
"""


@dataclass(frozen=True, slots=True)
class _Handlers:
    calls: list[Node]
    catches: list[Node]
    test_code: bool


def _handlers(
    root: Node, language: JsLanguage, lines: Collection[int] | None, test_code: bool
) -> _Handlers:
    """The handler nodes of a tree; with `lines`, only those spanning one of them."""
    found = captures(root, language, _HANDLERS)
    calls, catches = found.get("call", []), found.get("catch", [])
    if lines is not None:
        ordered = sorted(lines)
        calls = [node for node in calls if spans_any(node, ordered)]
        catches = [node for node in catches if spans_any(node, ordered)]
    return _Handlers(calls, catches, test_code)


def _hits(handlers: _Handlers) -> list[_Hit]:
    index = context.ConsumedIndex()
    return [
        *_promise_catches(handlers.calls, handlers.test_code, index),
        *_catch_clauses(handlers.catches, handlers.test_code),
    ]


def _promise_catches(
    calls: list[Node], test_code: bool, index: context.ConsumedIndex
) -> Iterator[_Hit]:
    for node in calls:
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        if function is None or arguments is None or function.type != "member_expression":
            continue
        prop = function.child_by_field_name("property")
        method = text_of(prop) if prop is not None else ""
        args = named_children(arguments)
        if method == "catch" and len(args) == 1:
            callback = args[0]
        elif method == "then" and len(args) == 2:
            callback = args[1]
        else:
            continue
        kind = callback_swallow(callback)
        if kind is None:
            continue
        receiver = function.child_by_field_name("object")
        if (
            context.in_assertion_free_test_code(node, test_code)
            or (kind == "empty" and context.only_waits_for_settlement(node))
            or context.marks_handled_while_awaited(node, receiver, index)
            or (method == "then" and context.only_decorates_an_error(node))
            or (kind == "return-default" and absence.null_checked_after(node, _made_up(callback)))
            # the caller asked for these failures to be ignored, by the option's name
            or context.behind_an_opt_in(node)
        ):
            continue
        source = " ".join(text_of(receiver).split()) if receiver is not None else "the promise"
        handler = " ".join(text_of(callback).split())
        shown = f"..., {handler}" if method == "then" else handler
        outcome = {
            "empty": "resolves to undefined",
            "log-only": "only logs and resolves to undefined",
            "return-default": f"resolves to the made-up value `{_value_of(callback)}`",
            "assign-default": "only assigns a made-up value and resolves to undefined",
        }[kind]
        start = prop.start_point.row + 1 if prop is not None else lines_of(node)[0]
        scope = qualname_of(node)
        severity = Severity.CRITICAL if _writes(receiver) else Severity.MAJOR
        yield _Hit(
            "js-catch-default",
            start,
            lines_of(node)[1],
            f"`.{method}({shown})` turns every rejection of `{source}` into a normal result: "
            f"the handler {outcome}, so an outage or a bug looks like real data to the caller",
            key=("js-catch-default", scope, squash(_value_of(callback))),
            node=node,
            severity=severity,
            symbol=scope,
        )


def _made_up(callback: Node) -> Node | None:
    """The value a `.catch` callback resolves to: its expression body or returned value."""
    callback = unwrap(callback)
    body = callback.child_by_field_name("body")
    if body is None or body.type != "statement_block":
        return body
    for stmt in named_children(body):
        if stmt.type == "return_statement":
            values = named_children(stmt)
            return values[0] if values else None
    return None


def _value_of(callback: Node) -> str:
    callback = unwrap(callback)
    body = callback.child_by_field_name("body")
    if body is None:
        return "undefined"
    if body.type == "statement_block":
        return _returned_value(body)
    return " ".join(text_of(body).split())


_URL = re.compile(r"https?://")


def _explains_itself(body: Node) -> bool:
    """A handler body whose comment gives a reason: three words or more, or a link (a bare
    `// ignore` or `// noop` explains nothing)."""
    for comment in body.named_children:
        if comment.type != "comment":
            continue
        text = text_of(comment).lstrip("/*").rstrip("*/")
        if _URL.search(text) or len(re.findall(r"[A-Za-z']+", text)) >= 3:
            return True
    return False


def _not_a_fallback(node: Node, body: Node, test_code: bool) -> bool:
    """Handlers that look like swallows but leave the failure with someone."""
    return (
        context.is_boolean_probe(node, body)
        or context.guards_only_cleanup(node)
        or context.in_assertion_free_test_code(node, test_code)
        or context.decorates_rethrown_error(node)
        or context.is_feature_probe(node)
        or context.tries_each_candidate(node)
    )


def _catch_clauses(catches: list[Node], test_code: bool) -> Iterator[_Hit]:
    for node in catches:
        body = node.child_by_field_name("body")
        if body is None:
            continue
        resolvers = context.resolve_names(node)
        kind = swallow_kind(body, resolvers)
        if kind is None or _not_a_fallback(node, body, test_code) or context.behind_an_opt_in(node):
            continue  # (behind an option that asks for failures to be ignored: chosen)
        if kind in ("empty", "log-only") and absence.unset_checked_after(node):
            continue  # the value it leaves unset is tested for right after, on its own path
        start, end = lines_of(node)
        scope = qualname_of(node)
        try_statement = node.parent
        guarded = try_statement.child_by_field_name("body") if try_statement else None
        severity = Severity.CRITICAL if _writes(guarded) else Severity.MAJOR
        if _explains_itself(body):
            # The author wrote down why the failure is dropped ("skip files we cannot
            # read", a link to the discussion): a documented decision, shown, not blocking.
            severity = Severity.MINOR
        if kind == "empty":
            yield _Hit(
                "js-empty-catch",
                start,
                end,
                "empty catch block: every exception of the try block is swallowed and the "
                "code carries on as if it had succeeded",
                key=("js-empty-catch", scope, ""),
                node=node,
                severity=severity,
                symbol=scope,
            )
        elif kind == "return-default":
            value = " ".join(_returned_value(body, resolvers).split())
            yield _Hit(
                "js-catch-return-default",
                start,
                end,
                f"catch block returns the made-up value `{value}` instead of failing: the "
                "caller cannot tell an error from a real result",
                key=("js-catch-return-default", scope, squash(value)),
                node=node,
                severity=severity,
                symbol=scope,
            )
        else:
            action = "only logs" if kind == "log-only" else "assigns a made-up value"
            yield _Hit(
                "js-catch-swallow",
                start,
                end,
                f"catch block {action} and carries on: the failure never reaches the caller",
                key=("js-catch-swallow", scope, kind),
                node=node,
                severity=severity,
                symbol=scope,
            )


def _throws(fn: Node) -> Counter[str]:
    return Counter(
        " ".join(text_of(node).split())
        for node in walk_within(fn)
        if node.type == "throw_statement"
    )


def _throws_to_defaults(
    change: FileChange,
    old_root: Node,
    old_language: JsLanguage,
    new_root: Node,
    language: JsLanguage,
) -> Iterator[_Hit]:
    old_functions = functions(old_root, old_language)
    added = sorted(change.added_lines)
    for qualname, fn in functions(new_root, language).items():
        old_fn = old_functions.get(qualname)
        if old_fn is None or not spans_any(fn, added):
            continue
        old_throws, new_throws = _throws(old_fn), _throws(fn)
        # By count, not text: a throw whose message was edited was not turned into anything.
        if old_throws.total() <= new_throws.total():
            continue
        lost = old_throws - new_throws
        old_evidence = "\n".join(lost.elements())
        for node in walk_within(fn):
            if node.type != "return_statement" or not change.touches(*lines_of(node)):
                continue
            values = named_children(node)
            if values and not is_default_value(values[0]):
                continue
            value = " ".join(text_of(values[0]).split()) if values else "undefined"
            yield _Hit(
                "js-throw-to-default",
                *lines_of(node),
                f"`{qualname}` no longer throws (`{next(iter(lost))}` was removed) and now "
                f"returns the made-up value `{value}`: a failure became an ordinary result",
                old_evidence,
                node=node,
                symbol=qualname,
            )


def _introduced(hits: list[_Hit], old: _Handlers, new: _Handlers) -> list[_Hit]:
    """Drop hits the old version already had: a fallback that was there before the change
    is not the change's doing, even when the change edited a line inside it. A function that
    now holds more handlers of one kind than before keeps them all reported."""
    if not hits:
        return hits
    old_counts = Counter(hit.key for hit in _hits(old))
    new_counts = Counter(hit.key for hit in _hits(new))
    return [hit for hit in hits if new_counts[hit.key] > old_counts[hit.key]]


def check_file(change: FileChange, layout: TestLayout = NO_LAYOUT) -> Iterator[Finding | Skipped]:
    language = js_language(change.language)
    if language is None or change.new_text is None:
        return
    new_root = parse_checked(change.new_text, language, path=change.path, topic=TOPIC)
    if isinstance(new_root, Skipped):
        yield new_root
        return
    old_root: Node | None = None
    old_language = old_side_language(change) or language
    if change.old_text is not None:
        parsed = parse_checked(
            change.old_text, old_language, path=change.path, topic=TOPIC, side="old side"
        )
        if isinstance(parsed, Skipped):
            yield parsed
        else:
            old_root = parsed
    test_code = is_test_code(change, old_root, new_root, layout=layout)
    hits = [
        hit
        for hit in _hits(_handlers(new_root, language, change.added_lines, test_code))
        if change.touches(hit.start_line, hit.end_line)
    ]
    if old_root is not None:
        old_handlers = _handlers(old_root, old_language, None, test_code)
        new_handlers = _handlers(new_root, language, None, test_code)
        hits = [
            hit
            for hit in _introduced(hits, old_handlers, new_handlers)
            if not kept_from_old(hit.node, old_handlers.catches, new_handlers.catches)
        ]
        covered = {line for hit in hits for line in range(hit.start_line, hit.end_line + 1)}
        # In test code a function that stops throwing is a mock or fixture changed, not a
        # failure hidden from a caller.
        if not test_code:
            hits.extend(
                hit
                for hit in _throws_to_defaults(change, old_root, old_language, new_root, language)
                if hit.start_line not in covered
            )
    lines = SourceLines(change.new_text)
    for hit in sorted(hits, key=lambda item: (item.start_line, item.rule)):
        yield Finding(
            topic=TOPIC,
            rule=hit.rule,
            severity=hit.severity,
            path=change.path,
            start_line=hit.start_line,
            end_line=hit.end_line,
            claim=hit.claim,
            evidence=lines.evidence(hit.start_line, hit.end_line, hit.node),
            old_evidence=hit.old_evidence,
            ways_out=_WAYS_OUT,
            confidence=_CONFIDENCE[hit.rule],
            symbol=hit.symbol or None,
        )


class JsSilentFallback:
    topic = TOPIC
    languages: frozenset[FileLanguage] = _JS

    def check(self, changes: Sequence[FileChange]) -> Iterable[Finding | Skipped]:
        return self.check_in_project(changes, {})

    def check_in_project(
        self, changes: Sequence[FileChange], project_files: Mapping[str, str]
    ) -> Iterable[Finding | Skipped]:
        """`check`, with the project's root config files (its test runner's config says
        which files are tests)."""
        layout = layout_of(project_files)
        results: list[Finding | Skipped] = []
        for change in changes:
            results.extend(check_file(change, layout))
        return results


CRITIC = JsSilentFallback()
