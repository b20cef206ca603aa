"""The `silent-fallback` topic for JavaScript / TypeScript / TSX: errors turned into defaults.

Rules (all `major`: each hides a failure from the caller), reported only where the change
added or modified the lines:

    js-catch-default         `.catch(cb)` (or `.then(ok, cb)`) whose callback returns a made-up
                             value (literal, object/array of literals, null, undefined), has an
                             empty body, only logs, or is a `noop`
    js-empty-catch           `catch {}` / `catch (e) {}` (comments do not count as handling)
    js-catch-return-default  a catch block that only (logs and) returns a made-up value
    js-catch-swallow         a catch block that only logs and/or assigns a made-up value
    js-throw-to-default      a function lost a `throw` and gained a `return <made-up value>`

Not flagged: a catch that rethrows (with or without logging), or returns / resolves to
something carrying the error (`return { ok: false, error: e }`, `.catch(e => wrap(e))`); a
catch that records the failure in a flag (`failed = true`, `process.exitCode = 1`); the
boolean probe `try { ...; return true } catch { return false }`; and a handler the old
version already had in the same function (editing a log line inside it is not introducing it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from tree_sitter import Node

from contend.critics.static.base import FileChange, Finding, Skipped, Topic
from contend.critics.static.base import Language as FileLanguage
from contend.critics.static.treesitter import (
    FUNCTION_TYPES,
    JsLanguage,
    callee_name,
    captures,
    is_default_value,
    js_language,
    lines_of,
    named_children,
    old_side_language,
    parse_checked,
    spans_any,
    text_of,
    unwrap,
    walk_within,
)
from contend.protocol.model import Severity

Swallow = Literal["empty", "return-default", "assign-default", "log-only"]

# Receivers whose calls only record a failure; the caller still never hears about it.
_LOG_RECEIVERS = frozenset({"console", "logger", "log", "logging", "Sentry"})
_CLASS_TYPES = frozenset({"class_declaration", "class", "abstract_class_declaration"})


def _is_logging_call(node: Node) -> bool:
    node = unwrap(node)
    if node.type == "await_expression":
        inner = named_children(node)
        node = unwrap(inner[0]) if inner else node
    if node.type != "call_expression":
        return False
    name = callee_name(node)
    return bool(name) and name.split(".")[0] in _LOG_RECEIVERS


def _statement_kind(stmt: Node) -> Swallow | None:
    """What a statement in a handler does, when it is one of the ways of doing nothing."""
    if stmt.type == "return_statement":
        values = named_children(stmt)
        return "return-default" if not values or is_default_value(values[0]) else None
    if stmt.type != "expression_statement":
        return None
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


def swallow_kind(block: Node) -> Swallow | None:
    """How a handler body swallows the error, or None when it does something real."""
    statements = named_children(block)
    if not statements:
        return "empty"
    kinds = [_statement_kind(stmt) for stmt in statements]
    if None in kinds:
        return None
    if "return-default" in kinds:
        return "return-default"
    return "assign-default" if "assign-default" in kinds else "log-only"


def callback_swallow(callback: Node) -> Swallow | None:
    """How a `.catch` callback swallows the rejection, or None when it does not."""
    callback = unwrap(callback)
    if callback.type in ("identifier", "member_expression"):
        name = "".join(text_of(callback).split())
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


def _returned_value(block: Node) -> str:
    for stmt in named_children(block):
        if stmt.type == "return_statement":
            values = named_children(stmt)
            return text_of(values[0]) if values else "undefined"
    return "undefined"


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


def qualname_of(node: Node) -> str:
    """`Class.method` / `outer.inner` of the named functions around `node`, "" at top level."""
    names: list[str] = []
    parent = node.parent
    while parent is not None:
        if parent.type in FUNCTION_TYPES:
            name = _function_name(parent)
            if name is not None:
                names.append(name)
        elif parent.type in _CLASS_TYPES:
            name_node = parent.child_by_field_name("name")
            if name_node is not None:
                names.append(text_of(name_node))
        parent = parent.parent
    return ".".join(reversed(names))


def _squash(text: str) -> str:
    return "".join(text.split())


def _is_boolean_probe(catch_clause: Node, body: Node) -> bool:
    """`try { ...; return true } catch { return false }`: a predicate whose answer is the
    outcome of the attempt (isValidJson), not a fallback that hides a failure."""
    statements = named_children(body)
    if len(statements) != 1 or statements[0].type != "return_statement":
        return False
    values = named_children(statements[0])
    if not values or unwrap(values[0]).type not in ("true", "false"):
        return False
    try_statement = catch_clause.parent
    block = try_statement.child_by_field_name("body") if try_statement is not None else None
    if block is None:
        return False
    opposite = "true" if unwrap(values[0]).type == "false" else "false"
    return any(
        node.type == "return_statement"
        and (returned := named_children(node))
        and unwrap(returned[0]).type == opposite
        for node in walk_within(block)
    )


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


def _handlers(root: Node, language: JsLanguage, lines: Collection[int] | None) -> _Handlers:
    """The handler nodes of a tree; with `lines`, only those spanning one of them."""
    found = captures(root, language, _HANDLERS)
    calls, catches = found.get("call", []), found.get("catch", [])
    if lines is not None:
        ordered = sorted(lines)
        calls = [node for node in calls if spans_any(node, ordered)]
        catches = [node for node in catches if spans_any(node, ordered)]
    return _Handlers(calls, catches)


def _hits(handlers: _Handlers) -> list[_Hit]:
    return [*_promise_catches(handlers.calls), *_catch_clauses(handlers.catches)]


def _promise_catches(calls: list[Node]) -> Iterator[_Hit]:
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
        yield _Hit(
            "js-catch-default",
            start,
            lines_of(node)[1],
            f"`.{method}({shown})` turns every rejection of `{source}` into a normal result: "
            f"the handler {outcome}, so an outage or a bug looks like real data to the caller",
            key=("js-catch-default", qualname_of(node), _squash(_value_of(callback))),
        )


def _value_of(callback: Node) -> str:
    callback = unwrap(callback)
    body = callback.child_by_field_name("body")
    if body is None:
        return "undefined"
    if body.type == "statement_block":
        return _returned_value(body)
    return " ".join(text_of(body).split())


def _catch_clauses(catches: list[Node]) -> Iterator[_Hit]:
    for node in catches:
        body = node.child_by_field_name("body")
        if body is None:
            continue
        kind = swallow_kind(body)
        if kind is None or _is_boolean_probe(node, body):
            continue
        start, end = lines_of(node)
        scope = qualname_of(node)
        if kind == "empty":
            yield _Hit(
                "js-empty-catch",
                start,
                end,
                "empty catch block: every exception of the try block is swallowed and the "
                "code carries on as if it had succeeded",
                key=("js-empty-catch", scope, ""),
            )
        elif kind == "return-default":
            value = " ".join(_returned_value(body).split())
            yield _Hit(
                "js-catch-return-default",
                start,
                end,
                f"catch block returns the made-up value `{value}` instead of failing: the "
                "caller cannot tell an error from a real result",
                key=("js-catch-return-default", scope, _squash(value)),
            )
        else:
            action = "only logs" if kind == "log-only" else "assigns a made-up value"
            yield _Hit(
                "js-catch-swallow",
                start,
                end,
                f"catch block {action} and carries on: the failure never reaches the caller",
                key=("js-catch-swallow", scope, kind),
            )


def _function_name(fn: Node) -> str | None:
    """A function's own name, the name it is bound to, or for a callback `<callee>(...)`."""
    name = fn.child_by_field_name("name")
    if name is not None:
        return text_of(name)
    parent = fn.parent
    if parent is None:
        return None
    if parent.type == "arguments" and parent.parent is not None:
        call = parent.parent
        callee = call.child_by_field_name("function") or call.child_by_field_name("constructor")
        # Named by its callee, not by position: adding a callback elsewhere renames nothing.
        return f"{_squash(text_of(callee))[:60]}(...)" if callee is not None else None
    if parent.type == "return_statement":
        return "(returned)"
    field = {
        "variable_declarator": "name",
        "pair": "key",
        "assignment_expression": "left",
        "public_field_definition": "name",
        "field_definition": "property",
    }.get(parent.type)
    target = parent.child_by_field_name(field) if field else None
    return _squash(text_of(target)) if target is not None else None


_FUNCTIONS = "[{}] @fn".format(" ".join(f"({kind})" for kind in sorted(FUNCTION_TYPES)))


def functions(root: Node, language: JsLanguage) -> dict[str, Node]:
    """Functions and methods by qualified name (`Class.method`, `outer.inner`,
    `load.fetch(...).catch(...)`); a repeated name gets `#2`, `#3` in source order."""
    found: dict[str, Node] = {}
    qualnames: dict[int, str] = {}
    nodes = captures(root, language, _FUNCTIONS).get("fn", [])
    for fn in sorted(nodes, key=lambda node: node.start_byte):  # outer before inner
        classes: list[str] = []
        parent = fn.parent
        while parent is not None and parent.type not in FUNCTION_TYPES:
            class_name = parent.child_by_field_name("name") if parent.type in _CLASS_TYPES else None
            if class_name is not None:
                classes.append(text_of(class_name))
            parent = parent.parent
        outer = qualnames.get(parent.id, "?") if parent is not None else ""
        name = _function_name(fn)
        base = ".".join(part for part in (outer, *reversed(classes), name or "?") if part)
        qualname, count = base, 1
        while qualname in found:
            count += 1
            qualname = f"{base}#{count}"
        qualnames[fn.id] = qualname
        if name is not None:
            found[qualname] = fn
    return found


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
            )


def _introduced(
    hits: list[_Hit], old_root: Node, old_language: JsLanguage, new_root: Node, language: JsLanguage
) -> list[_Hit]:
    """Drop hits the old version already had: a fallback that was there before the change
    is not the change's doing, even when the change edited a line inside it. A function that
    now holds more handlers of one kind than before keeps them all reported."""
    if not hits:
        return hits
    old_counts = Counter(hit.key for hit in _hits(_handlers(old_root, old_language, None)))
    new_counts = Counter(hit.key for hit in _hits(_handlers(new_root, language, None)))
    return [hit for hit in hits if new_counts[hit.key] > old_counts[hit.key]]


def check_file(change: FileChange) -> Iterator[Finding | Skipped]:
    language = js_language(change.language)
    if language is None or change.new_text is None:
        return
    new_root = parse_checked(change.new_text, language, path=change.path, topic=TOPIC)
    if isinstance(new_root, Skipped):
        yield new_root
        return
    hits = [
        hit
        for hit in _hits(_handlers(new_root, language, change.added_lines))
        if change.touches(hit.start_line, hit.end_line)
    ]
    if change.old_text is not None:
        old_language = old_side_language(change) or language
        old_root = parse_checked(
            change.old_text, old_language, path=change.path, topic=TOPIC, side="old side"
        )
        if isinstance(old_root, Skipped):
            yield old_root
        else:
            hits = _introduced(hits, old_root, old_language, new_root, language)
            covered = {line for hit in hits for line in range(hit.start_line, hit.end_line + 1)}
            hits.extend(
                hit
                for hit in _throws_to_defaults(change, old_root, old_language, new_root, language)
                if hit.start_line not in covered
            )
    for hit in sorted(hits, key=lambda item: (item.start_line, item.rule)):
        yield Finding(
            topic=TOPIC,
            rule=hit.rule,
            severity=Severity.MAJOR,
            path=change.path,
            start_line=hit.start_line,
            end_line=hit.end_line,
            claim=hit.claim,
            evidence=change.new_lines(hit.start_line, hit.end_line),
            old_evidence=hit.old_evidence,
        )


TOPIC = Topic.SILENT_FALLBACK


class JsSilentFallback:
    topic = TOPIC
    languages: frozenset[FileLanguage] = frozenset({"javascript", "typescript", "tsx"})

    def check(self, changes: Sequence[FileChange]) -> Iterable[Finding | Skipped]:
        results: list[Finding | Skipped] = []
        for change in changes:
            results.extend(check_file(change))
        return results


CRITIC = JsSilentFallback()
