"""The `boundary-typing` topic for TypeScript / JavaScript: the change erodes a type or a
validation boundary. Calibrated like the Python critic: a finding blocks only where the change
demonstrably removes a check; an escape hatch on a changed line is a matter of taste (minor).

    js-validation-guard-removed  major  `if (cond) throw new XError(...)` on a parameter gone
                                        from a function that still exists, not moved to a
                                        helper call (`assertX(...)`, `validate...`) or to
                                        another function of the file, nor kept inside a
                                        condition with more alternatives (`cond || other`);
                                        only a branch that throws itself is a guard (a
                                        rethrow in a nested catch is cleanup)
    ts-non-null-replaced-check   major  a null check that threw (`if (!card) throw ...`) gone,
                                        and `card!` asserted instead: the runtime check became
                                        a promise to the compiler
    ts-cast-to-any-added         minor  `x as any` / `<any>x` added to an expression the old
                                        function already had (the change silenced its type)
    ts-any-annotation-added      minor  `: any` where the old function typed the same name (a
                                        parameter, a `private x` parameter property, a rest or
                                        destructured parameter, a callback type's parameter)
    ts-ignore-added              minor  `// @ts-ignore` or `// @ts-expect-error` with no reason,
                                        or `// @ts-nocheck`, added

Escape hatches are counted per function: one that moved, or a `@ts-ignore` narrowed to a
`@ts-expect-error`, is no new one. `any` in new, previously untyped code (a JS-to-TS port),
an `as any` in new code, an ignore that states its reason, and `any` as a generic argument
(`Schema<any>`) are decisions of taste, not a check the change removed: not reported. Test
code is exempt (a test passes wrong types on purpose, and `@ts-expect-error` there asserts a
type error).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from tree_sitter import Node

from contend.critics.static.base import Confidence, FileChange, Finding, Skipped, Topic
from contend.critics.static.base import Language as FileLanguage
from contend.critics.static.catalogue import RuleInfo
from contend.critics.static.js_guard_forms import (
    guards,
    kept_reading_elsewhere,
    kept_under_rename,
    rename_candidates,
    validating_calls,
)
from contend.critics.static.js_tests_model import is_test_code
from contend.critics.static.js_type_members import (
    MemberTypes,
    declared_names,
    member_types,
    type_declaration,
    widens_member,
)
from contend.critics.static.treesitter import (
    JS_LANGUAGES,
    JsLanguage,
    SourceLines,
    captures,
    functions,
    js_language,
    lines_of,
    named_children,
    old_side_language,
    parse_checked,
    qualname_of,
    squash,
    text_of,
    walk,
    walk_within,
)
from contend.protocol.model import Severity

TOPIC = Topic.BOUNDARY_TYPING
_JS: frozenset[FileLanguage] = frozenset(JS_LANGUAGES)
_GUARD_WAYS_OUT = (
    "restore the check at the boundary, or show where the same input is now rejected",
    "or waive it in code with a reason: `// contend: allow boundary-typing -- <reason>`",
)
_HATCH_WAYS_OUT = (
    "type the value (a narrowing check, a precise type, a parser at the boundary)",
    "or say why in the code: `// contend: allow boundary-typing -- <reason>`",
)

RULES = (
    RuleInfo(
        "js-validation-guard-removed",
        TOPIC,
        Severity.MAJOR,
        Confidence.HIGH,
        _JS,
        "input the function used to reject now flows into it unchecked",
        _GUARD_WAYS_OUT,
    ),
    RuleInfo(
        "ts-non-null-replaced-check",
        TOPIC,
        Severity.MAJOR,
        Confidence.HIGH,
        frozenset({"typescript", "tsx"}),
        "a runtime null check became a non-null assertion the compiler cannot verify",
        _GUARD_WAYS_OUT,
    ),
    RuleInfo(
        "ts-cast-to-any-added",
        TOPIC,
        Severity.MINOR,
        Confidence.MEDIUM,
        frozenset({"typescript", "tsx"}),
        "`as any` switches the type checker off for this value",
        _HATCH_WAYS_OUT,
    ),
    RuleInfo(
        "ts-any-annotation-added",
        TOPIC,
        Severity.MINOR,
        Confidence.MEDIUM,
        frozenset({"typescript", "tsx"}),
        "an `any` annotation accepts every value without a check",
        _HATCH_WAYS_OUT,
    ),
    RuleInfo(
        "ts-ignore-added",
        TOPIC,
        Severity.MINOR,
        Confidence.MEDIUM,
        _JS,
        "a type error on this line is silenced rather than fixed",
        _HATCH_WAYS_OUT,
    ),
)
_INFO = {info.rule: info for info in RULES}

_DIRECTIVE = re.compile(r"@ts-(ignore|expect-error|nocheck)\b")
_HATCHES = """
(predefined_type) @type
(comment) @comment
"""
_JS_HATCHES = "(comment) @comment"  # plain JavaScript has no types, only directives


@dataclass(frozen=True, slots=True)
class _Hit:
    rule: str
    line: int
    claim: str
    symbol: str
    node: Node
    old_evidence: str | None = None


def _hatches(root: Node, language: JsLanguage) -> list[tuple[str, str, Node]]:
    """(rule, enclosing function, node) of every escape hatch in a tree."""
    found = captures(root, language, _JS_HATCHES if language == "javascript" else _HATCHES)
    result: list[tuple[str, str, Node]] = []
    for node in found.get("type", []):
        if text_of(node) != "any":
            continue
        holder = node.parent
        while holder is not None and holder.type in ("array_type", "union_type"):
            holder = holder.parent
        if holder is None:
            continue
        if holder.type in ("as_expression", "type_assertion"):
            result.append(("ts-cast-to-any-added", qualname_of(node), node))
        elif holder.type == "type_annotation" and not _type_level(holder):
            # A value's own type (a parameter, variable, property or return value); `any` as
            # a generic argument or constraint (`Schema<any>`, `T extends Foo<any>`) is how
            # library typings say "any instantiation", not an unchecked value.
            result.append(("ts-any-annotation-added", qualname_of(node), node))
    for node in found.get("comment", []):
        if _DIRECTIVE.search(text_of(node)):
            result.append(("ts-ignore-added", qualname_of(node), node))
    return result


# A callback's function type (`render: (props: Props) => Result`) types real values; inside
# one of these it is a pattern over types.
_TYPE_LEVEL = frozenset({"conditional_type", "type_arguments", "constraint", "type_parameter"})


def _type_level(node: Node) -> bool:
    """Inside a type-level construct (`T extends (arg: any) => infer R ? ...`): a pattern
    over types, not a value the program receives."""
    parent = node.parent
    while parent is not None and parent.type not in ("statement_block", "program"):
        if parent.type in _TYPE_LEVEL:
            return True
        parent = parent.parent
    return False


def _escape_hatches(
    change: FileChange,
    old_root: Node | None,
    old_language: JsLanguage,
    new_root: Node,
    language: JsLanguage,
) -> Iterator[_Hit]:
    old_counts = Counter(
        (rule, scope)
        for rule, scope, _node in (_hatches(old_root, old_language) if old_root else [])
    )
    new_hatches = _hatches(new_root, language)
    new_counts = Counter((rule, scope) for rule, scope, _node in new_hatches)
    old_scopes = _scope_texts(old_root, old_language) if old_root is not None else {}
    old_members: MemberTypes | None = None
    old_types: frozenset[str] = frozenset()
    budget = {key: new_counts[key] - old_counts[key] for key in new_counts}
    reported: set[tuple[str, int]] = set()
    for rule, scope, node in new_hatches:
        line = lines_of(node)[0]
        if budget[(rule, scope)] <= 0 or line not in change.added_lines:
            continue
        if (rule, line) in reported:
            continue  # one finding per line and rule: `(a as any) || (b as any)` is one
        declaration = type_declaration(node) if rule == "ts-any-annotation-added" else None
        if declaration is not None:
            # A member of a `type` / `interface`: compared with the old declaration of that
            # name, member by member (a new type is new code, whatever names it reuses).
            if old_members is None:
                old_members = member_types(old_root) if old_root is not None else {}
                old_types = declared_names(old_root) if old_root is not None else frozenset()
            if not widens_member(node, declaration, old_members, old_types):
                continue
        elif not _weakens(rule, node, old_scopes.get(scope)):
            continue
        reported.add((rule, line))
        budget[(rule, scope)] -= 1
        where = f" in `{scope}`" if scope else ""
        what = {
            "ts-cast-to-any-added": "`as any` added",
            "ts-any-annotation-added": "an `any` annotation added",
            "ts-ignore-added": f"`{' '.join(text_of(node).split())[:80]}` added",
        }[rule]
        yield _Hit(
            rule,
            line,
            f"{what}{where}: {_INFO[rule].why}",
            scope,
            node,
        )


def _scope_texts(root: Node, language: JsLanguage) -> dict[str, str]:
    """Squashed code of each function of a tree by qualified name ("" for the module),
    comments left out: a name typed only in a comment (code left as a note) had no type."""
    texts = {name: squash(_code_text(fn)) for name, fn in functions(root, language).items()}
    texts[""] = squash(_code_text(root))
    return texts


def _code_text(node: Node) -> str:
    """The text of `node` without its comments."""
    source = node.text or b""
    base = node.start_byte
    pieces: list[bytes] = []
    cursor = 0
    for comment in (item for item in walk(node) if item.type == "comment"):
        start, end = comment.start_byte - base, comment.end_byte - base
        if start < cursor:
            continue
        pieces.append(source[cursor:start])
        cursor = end
    pieces.append(source[cursor:])
    return b" ".join(pieces).decode("utf-8", "replace")


_REASON = re.compile(r"@ts-(?:ignore|expect-error)\b[\s:\-–—]*(?P<reason>.*?)(?:\*/)?$", re.S)


def _weakens(rule: str, node: Node, old_scope: str | None) -> bool:
    """Whether an escape hatch silences a check the code had, rather than being a choice
    made in new code (taste, and not reported):

    - `x as any` on an expression the old function already had without the cast;
    - `: any` where the old function gave the same name a specific type;
    - `@ts-ignore` / `@ts-expect-error` with no reason after it (with one, the author
      documented the decision), and `@ts-nocheck` always."""
    if rule == "ts-ignore-added":
        text = text_of(node)
        if "@ts-nocheck" in text:
            return True
        match = _REASON.search(text)
        return match is None or not re.search(r"\w", match.group("reason"))
    if old_scope is None:
        return False  # new code: no check existed to be silenced
    if rule == "ts-cast-to-any-added":
        cast = node.parent
        while cast is not None and cast.type not in ("as_expression", "type_assertion"):
            cast = cast.parent
        inner = named_children(cast)[0] if cast is not None and named_children(cast) else None
        if inner is None:
            return False
        expression = squash(text_of(inner))
        return expression in old_scope and f"{expression}asany" not in old_scope
    name = _annotated_name(node)
    if name is None:
        return False
    # Up to the next `;` (a property) or `=`, a little past a parameter's end: generous, so
    # `Record<string, any>` is read whole (a neighbour's `any` only makes this quieter).
    # The scope text is squashed: `private session:` reads `privatesession:`.
    earlier = re.finditer(
        rf"(?:(?<![\w$])|(?<=private)|(?<=readonly)|(?<=public)|(?<=protected)){re.escape(name)}"
        r"\??:([^;=]{1,120})",
        old_scope,
    )
    # Widened: the name had a type with no `any` in it (`Record<string, any>` -> `{[k:
    # string]: any}` is the same type written another way), and never an `any` one: where
    # the old code already typed the name `any` (`(...args: any[]) => any` beside
    # `(args: Parameters<F>)`), the new `any` follows the code's own practice.
    typed = [bool(re.search(r"\bany\b", match.group(1))) for match in earlier]
    return bool(typed) and not any(typed)


def _annotated_name(node: Node) -> str | None:
    """The parameter, variable or property whose own type annotation holds `node`."""
    annotation = node.parent
    while annotation is not None and (
        annotation.type != "type_annotation"
        # `{[key: string]: any}`: the value type of an index signature belongs to the
        # property that holds the object type, not to `key`.
        or (annotation.parent is not None and annotation.parent.type == "index_signature")
    ):
        annotation = annotation.parent
    owner = annotation.parent if annotation is not None else None
    if owner is None:
        return None
    for field in ("pattern", "name"):
        target = owner.child_by_field_name(field)
        if target is not None and target.type == "rest_pattern" and named_children(target):
            target = named_children(target)[0]  # `...columns: any`
        if target is not None and target.type in (
            "identifier",
            "property_identifier",
            "shorthand_property_identifier_pattern",
        ):
            return text_of(target)
        if target is not None and target.type in ("object_pattern", "array_pattern"):
            return squash(text_of(target))  # a destructured parameter: the pattern names it
    return None


def _non_null_of(fn: Node, subject: str, change: FileChange) -> Node | None:
    for node in walk_within(fn):
        if node.type != "non_null_expression" or not change.touches(*lines_of(node)):
            continue
        inner = named_children(node)
        if inner and squash(text_of(inner[0])) == subject:
            return node
    return None


def _removed_guards(
    change: FileChange,
    old_root: Node,
    old_language: JsLanguage,
    new_root: Node,
    language: JsLanguage,
    old_lines: SourceLines,
) -> Iterator[_Hit]:
    old_functions = functions(old_root, old_language)
    new_functions = functions(new_root, language)
    added = change.added_lines | {0}
    all_new_conditions = Counter(
        guard.condition for fn in new_functions.values() for guard in guards(fn)
    )
    for qualname, fn in new_functions.items():
        old_fn = old_functions.get(qualname)
        if old_fn is None:
            continue
        start, end = lines_of(fn)
        if fn.text == old_fn.text:
            continue
        new_conditions = Counter(guard.condition for guard in guards(fn))
        renamed = rename_candidates(old_fn, fn)
        for guard in guards(old_fn):
            if new_conditions[guard.condition] > 0:
                new_conditions[guard.condition] -= 1
                continue
            if all_new_conditions[guard.condition] > 0:
                continue  # moved to another function of the file
            if any(new.rejects_all_of(guard) for new in guards(fn, on_parameters=False)):
                continue  # the condition gained alternatives: it rejects more, not less
            evidence = old_lines.lines(*lines_of(guard.node))
            asserted = (
                _non_null_of(fn, guard.subject, change) if guard.subject is not None else None
            )
            if asserted is not None and language != "javascript":
                yield _Hit(
                    "ts-non-null-replaced-check",
                    lines_of(asserted)[0],
                    f"`{qualname}` no longer checks `{guard.subject}` (the old guard threw) and "
                    f"asserts `{text_of(asserted)}` instead: a null now fails later, as a "
                    "TypeError somewhere else, or not at all",
                    qualname,
                    asserted,
                    evidence,
                )
                continue
            if validating_calls(fn) > validating_calls(old_fn):
                continue  # the check moved into a helper the function now calls
            if kept_reading_elsewhere(guard, fn):
                continue  # the same test and throw, its operand read from another object
            if kept_under_rename(guard, renamed):
                continue  # the same test and throw, on values the change renamed
            line = (
                start
                if start in added
                else next((n for n in sorted(change.added_lines) if start <= n <= end), start)
            )
            condition = guard.node.child_by_field_name("condition") or guard.node
            yield _Hit(
                "js-validation-guard-removed",
                line,
                f"`{qualname}` no longer rejects input failing "
                f"`{' '.join(text_of(condition).split())}`: values it used to refuse now "
                "flow into it",
                qualname,
                fn,
                evidence,
            )


def check_file(change: FileChange) -> Iterator[Finding | Skipped]:
    language = js_language(change.language)
    if language is None or change.new_text is None:
        return
    new_root = parse_checked(change.new_text, language, path=change.path, topic=TOPIC)
    if isinstance(new_root, Skipped):
        yield new_root
        return
    old_language = old_side_language(change) or language
    old_root: Node | None = None
    if change.old_text is not None:
        parsed = parse_checked(
            change.old_text, old_language, path=change.path, topic=TOPIC, side="old side"
        )
        if isinstance(parsed, Skipped):
            yield parsed
            return
        old_root = parsed
    hits: list[_Hit] = []
    if not is_test_code(change, old_root, new_root, old_language, language):
        hits.extend(_escape_hatches(change, old_root, old_language, new_root, language))
    if old_root is not None:
        old_lines = SourceLines(change.old_text or "")
        hits.extend(_removed_guards(change, old_root, old_language, new_root, language, old_lines))
    lines = SourceLines(change.new_text)
    for hit in sorted(hits, key=lambda item: (item.line, item.rule)):
        info = _INFO[hit.rule]
        yield Finding(
            topic=TOPIC,
            rule=hit.rule,
            severity=info.severity,
            path=change.path,
            start_line=hit.line,
            end_line=hit.line,
            claim=hit.claim,
            evidence=lines.evidence(hit.line, hit.line, hit.node),
            old_evidence=hit.old_evidence,
            ways_out=info.ways_out,
            confidence=info.confidence,
            symbol=hit.symbol or None,
        )


class JsBoundaryTyping:
    topic = TOPIC
    languages: frozenset[FileLanguage] = _JS

    def check(self, changes: Sequence[FileChange]) -> Iterable[Finding | Skipped]:
        results: list[Finding | Skipped] = []
        for change in changes:
            results.extend(check_file(change))
        return results


CRITIC = JsBoundaryTyping()
