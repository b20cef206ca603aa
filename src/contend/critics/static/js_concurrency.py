"""The `concurrency` topic for JavaScript / TypeScript: the change loses a promise or opens a
race at a suspension point. Calibrated like the Python critic.

    js-await-dropped                major  `await f(...)` in a function became a bare `f(...)`
                                           statement: the work now runs unordered and its
                                           failure becomes an unhandled rejection (not for
                                           an assertion known to be synchronous,
                                           `await expect(x).toBe(y)`: it waited for nothing)
    js-floating-promise             major  a bare call, inside an async function, of an async
                                           function of the same file (`void f()` marks a
                                           deliberate fire-and-forget and is not reported)
    js-check-then-act-across-await  major  `this.x` read, then an `await`, then `this.x`
                                           written with no write in between: the write acts
                                           on what was read before the suspension, so two
                                           interleaved calls lose an update

Each compares with the old version of the same function (by qualified name): what the old
function already did is not the change's doing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from tree_sitter import Node

from contend.critics.static.base import Confidence, FileChange, Finding, Skipped, Topic
from contend.critics.static.base import Language as FileLanguage
from contend.critics.static.catalogue import RuleInfo
from contend.critics.static.js_assertions import synchronous
from contend.critics.static.treesitter import (
    FUNCTION_TYPES,
    JS_LANGUAGES,
    JsLanguage,
    SourceLines,
    callee_name,
    function_name,
    functions,
    js_language,
    lines_of,
    misparsed_await,
    named_children,
    old_side_language,
    parse_checked,
    squash,
    text_of,
    unwrap,
    walk_within,
)
from contend.protocol.model import Severity

TOPIC = Topic.CONCURRENCY
_JS: frozenset[FileLanguage] = frozenset(JS_LANGUAGES)
_WAYS_OUT = (
    "await (or return) the promise, or make the update atomic across the suspension",
    "or mark a deliberate fire-and-forget with `void` and a reason: "
    "`// contend: allow concurrency -- <reason>`",
)


def _rule(rule: str, why: str) -> RuleInfo:
    return RuleInfo(rule, TOPIC, Severity.MAJOR, Confidence.HIGH, _JS, why, _WAYS_OUT)


RULES = (
    _rule("js-await-dropped", "the work runs unordered and its failure is never seen"),
    _rule(
        "js-floating-promise",
        "nobody waits for the promise: ordering is lost and a rejection goes unhandled",
    ),
    _rule(
        "js-check-then-act-across-await",
        "another call can change the value during the await; the write then loses its update",
    ),
)
_CONFIDENCE = {info.rule: info.confidence for info in RULES}


@dataclass(frozen=True, slots=True)
class _Hit:
    rule: str
    line: int
    claim: str
    symbol: str
    node: Node


def _is_async(fn: Node) -> bool:
    return any(child.type == "async" for child in fn.children)


def _bare_calls(fn: Node) -> list[Node]:
    """Calls whose value is thrown away: `f(x);` as a statement (not awaited, returned,
    chained or marked `void`)."""
    found: list[Node] = []
    for node in walk_within(fn):
        if node.type != "expression_statement":
            continue
        exprs = named_children(node)
        if (
            exprs
            and unwrap(exprs[0]).type == "call_expression"
            and misparsed_await(unwrap(exprs[0])) is None
        ):
            found.append(unwrap(exprs[0]))
    return found


def _awaited_calls(fn: Node) -> Counter[str]:
    found: Counter[str] = Counter()
    for node in walk_within(fn):
        if node.type == "call_expression" and misparsed_await(node) is not None:
            found[squash(text_of(node)).removeprefix("await")] += 1
            continue
        if node.type != "await_expression":
            continue
        inner = named_children(node)
        if inner and unwrap(inner[0]).type == "call_expression":
            found[squash(text_of(unwrap(inner[0])))] += 1
    return found


def _never_rejects(fn: Node) -> bool:
    """An async function whose whole body is a `try` with a catch that does not rethrow:
    calling it without waiting loses no failure (it reports its own, e.g. by an event)."""
    body = fn.child_by_field_name("body")
    statements = named_children(body) if body is not None and body.type == "statement_block" else []
    if len(statements) != 1 or statements[0].type != "try_statement":
        return False
    handler = statements[0].child_by_field_name("handler")
    block = handler.child_by_field_name("body") if handler is not None else None
    return block is not None and not any(
        node.type == "throw_statement" for node in walk_within(block)
    )


def _local_async_names(root: Node, language: JsLanguage) -> frozenset[str]:
    """Callee texts that name an async function of this file: `f` and `this.m`."""
    names: set[str] = set()
    for fn in functions(root, language).values():
        if not _is_async(fn) or _never_rejects(fn):
            continue
        name = function_name(fn)
        if name is None or "(" in name:
            continue
        names.add(f"this.{name}" if fn.type == "method_definition" else name)
    return frozenset(names)


def _dropped_and_floating(
    change: FileChange, qualname: str, fn: Node, old_fn: Node | None, local_async: frozenset[str]
) -> Iterator[_Hit]:
    old_awaited = _awaited_calls(old_fn) if old_fn is not None else Counter()
    new_awaited = _awaited_calls(fn)
    old_bare = Counter(squash(text_of(c)) for c in _bare_calls(old_fn)) if old_fn else Counter()
    for call in _bare_calls(fn):
        if not change.touches(*lines_of(call)):
            continue
        text = squash(text_of(call))
        if old_bare[text] > 0:
            old_bare[text] -= 1
            continue  # the old function already called it this way
        shown = " ".join(text_of(call).split())
        if old_awaited[text] > new_awaited[text]:
            new_awaited[text] += 1
            if synchronous(call):
                continue  # `await expect(x).toBe(y)` waited for nothing: no promise to lose
            yield _Hit(
                "js-await-dropped",
                lines_of(call)[0],
                f"`{qualname}` used to `await {shown}` and now calls it without waiting: "
                "what follows no longer sees its effect, and its failure is unhandled",
                qualname,
                call,
            )
        elif _is_async(fn) and callee_name(call) in local_async:
            yield _Hit(
                "js-floating-promise",
                lines_of(call)[0],
                f"`{shown}` starts an async function of this file and nobody waits for it: "
                "ordering is lost and a rejection goes unhandled (use `await`, or `void` "
                "for a deliberate fire-and-forget)",
                qualname,
                call,
            )


def _events(fn: Node) -> list[tuple[int, str, str, Node]]:
    """(position, kind, attribute, node) in evaluation order: reads of `this.x`, awaits, and
    writes of `this.x` (placed at the end of their assignment, after its right side)."""
    events: list[tuple[int, str, str, Node]] = []
    for node in walk_within(fn):
        if node.type == "await_expression":
            events.append((node.start_byte, "await", "", node))
        elif node.type in ("assignment_expression", "augmented_assignment_expression"):
            left = node.child_by_field_name("left")
            if left is not None and _this_member(left):
                events.append((node.end_byte, "write", squash(text_of(left)), node))
                if node.type == "augmented_assignment_expression":
                    events.append((left.start_byte, "read", squash(text_of(left)), left))
        elif node.type == "member_expression" and _this_member(node):
            parent = node.parent
            is_target = (
                parent is not None
                and parent.type in ("assignment_expression", "augmented_assignment_expression")
                and (target := parent.child_by_field_name("left")) is not None
                and target.id == node.id
            )
            callee = (
                parent is not None
                and parent.type == "call_expression"
                and (function := parent.child_by_field_name("function")) is not None
                and function.id == node.id
            )
            if not is_target and not callee:
                events.append((node.start_byte, "read", squash(text_of(node)), node))
    events.sort(key=lambda item: item[0])
    return events


def _this_member(node: Node) -> bool:
    if node.type != "member_expression":
        return False
    obj = node.child_by_field_name("object")
    return obj is not None and obj.type == "this"


def _races(fn: Node) -> list[tuple[str, Node]]:
    """(attribute, write) for each write that acts on a read from before an await."""
    found: list[tuple[str, Node]] = []
    read_before_await: set[str] = set()  # attributes read, then an await, not written since
    read_since: set[str] = set()
    for _pos, kind, attribute, node in _events(fn):
        if kind == "read":
            read_since.add(attribute)
        elif kind == "await":
            read_before_await |= read_since
            read_since = set()
        elif kind == "write":
            if attribute in read_before_await:
                found.append((attribute, node))
            read_before_await.discard(attribute)
            read_since.discard(attribute)
    return found


def _check_then_act(
    change: FileChange, qualname: str, fn: Node, old_fn: Node | None
) -> Iterator[_Hit]:
    if not _is_async(fn):
        return
    old = Counter(attribute for attribute, _ in _races(old_fn)) if old_fn is not None else Counter()
    for attribute, write in _races(fn):
        if old[attribute] > 0:
            old[attribute] -= 1
            continue
        if not change.touches(*lines_of(write)):
            continue
        yield _Hit(
            "js-check-then-act-across-await",
            lines_of(write)[0],
            f"`{qualname}` reads `{attribute}`, awaits, then writes `{attribute}` from what it "
            "read: a second call interleaved at the await loses its update",
            qualname,
            write,
        )


def check_file(change: FileChange) -> Iterator[Finding | Skipped]:
    language = js_language(change.language)
    if language is None or change.new_text is None:
        return
    new_root = parse_checked(change.new_text, language, path=change.path, topic=TOPIC)
    if isinstance(new_root, Skipped):
        yield new_root
        return
    old_functions: dict[str, Node] = {}
    old_root_of: Node | None = None
    if change.old_text is not None:
        old_language = old_side_language(change) or language
        old_root = parse_checked(
            change.old_text, old_language, path=change.path, topic=TOPIC, side="old side"
        )
        if isinstance(old_root, Skipped):
            yield old_root
            return
        old_functions = functions(old_root, old_language)
        old_root_of = old_root
    local_async = _local_async_names(new_root, language)
    added = sorted(change.added_lines)
    hits: list[_Hit] = []
    if old_root_of is not None:
        # Top-level await (ES modules): the module body is one more async scope.
        hits.extend(_dropped_and_floating(change, "(module)", new_root, old_root_of, frozenset()))
    for qualname, fn in functions(new_root, language).items():
        if fn.type not in FUNCTION_TYPES or not added:
            continue
        start, end = lines_of(fn)
        if not change.touches(start, end):
            continue
        old_fn = old_functions.get(qualname)
        hits.extend(_dropped_and_floating(change, qualname, fn, old_fn, local_async))
        hits.extend(_check_then_act(change, qualname, fn, old_fn))
    lines = SourceLines(change.new_text)
    for hit in sorted(hits, key=lambda item: (item.line, item.rule)):
        yield Finding(
            topic=TOPIC,
            rule=hit.rule,
            severity=Severity.MAJOR,
            path=change.path,
            start_line=hit.line,
            end_line=hit.line,
            claim=hit.claim,
            evidence=lines.evidence(hit.line, hit.line, hit.node),
            ways_out=_WAYS_OUT,
            confidence=_CONFIDENCE[hit.rule],
            symbol=hit.symbol or None,
        )


class JsConcurrency:
    topic = TOPIC
    languages: frozenset[FileLanguage] = _JS

    def check(self, changes: Sequence[FileChange]) -> Iterable[Finding | Skipped]:
        results: list[Finding | Skipped] = []
        for change in changes:
            results.extend(check_file(change))
        return results


CRITIC = JsConcurrency()
