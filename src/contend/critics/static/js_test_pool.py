"""What a whole change does to the checks of its JS/TS test files, across files.

`js_weakened_tests` compares each test with its old version; this module holds what that
comparison needs from the rest of the change: how often each check (an assertion, by its
framework-independent key) was asserted before and after, the bodies of tests that arrived
in a file, and the code the change removed — functions no longer defined, member names and
string words no longer mentioned, and whether the change takes code away at all — so a test
that moved, or went together with the behaviour it tested, is not read as a lost check.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from tree_sitter import Node

from contend.critics.static.base import FileChange
from contend.critics.static.js_tests_model import TestCall
from contend.critics.static.treesitter import (
    callee_name,
    functions,
    js_language,
    named_children,
    old_side_language,
    parse,
    text_of,
    walk,
)


@dataclass(slots=True)
class Pool:
    """What the whole change asserts, across its test files: a check that left one test (or
    file) and arrived in another is moved, not lost."""

    old_counts: Counter[str] = field(default_factory=Counter)
    new_counts: Counter[str] = field(default_factory=Counter)
    # Functions the change deleted from non-test code: tests of them go with them.
    removed_names: frozenset[str] = frozenset()
    # Member names and string words the change's code stopped mentioning altogether.
    removed_words: frozenset[str] = frozenset()
    # Messages and comments of deleted code that the new code no longer holds.
    removed_phrases: tuple[RemovedPhrase, ...] = ()
    # Whether the change takes non-test code away (a behaviour may have gone).
    code_removed: bool = False
    # Normalised bodies of tests that are new in their file (moved-in candidates).
    arrived: Counter[str] = field(default_factory=Counter)
    # Tests that are new in their file, in any test file of the change (heirs of a move).
    arrived_tests: list[TestCall] = field(default_factory=list)
    # The functions those new tests run their checks in (spec factories, shared helpers).
    arrived_helpers: list[Node] = field(default_factory=list)
    # Object property names the change's code builds fewer times than before (`id: req.id`
    # taken out of a serializer): a check of that property went with it.
    removed_keys: frozenset[str] = frozenset()
    # Source modules (paths without extension) the change deletes: a test that imports from
    # one tested it, and goes with it.
    deleted_modules: DeletedModules = field(default_factory=lambda: DeletedModules())
    # Functions the change's files define (new side), by name: a test that hands a subject
    # and its expected value to one of them is read with the helper's code.
    helpers: dict[str, Node] = field(default_factory=dict)
    # Names the change's code renamed (a declaration rewritten under a new name, the old one
    # gone from the code): a check of the old name checks the same value.
    renames: dict[str, str] = field(default_factory=dict)

    def kept(self, text: str) -> bool:
        return self.new_counts[text] >= self.old_counts[text]


def about_removed_code(node: Node | None, removed: frozenset[str]) -> bool:
    """Whether a test (or assertion) calls a function the change deleted from the code."""
    if node is None or not removed:
        return False
    for item in [node, *walk(node)]:
        if item.type != "call_expression":
            continue
        name = callee_name(item).rsplit(".", 1)[-1]
        if name in removed:
            return True
    return False


def removed_names(changes: Sequence[FileChange], tests: set[str]) -> frozenset[str]:
    """Names of module-level functions and class methods in the old code (not tests) of the
    change that no new side defines (a nested helper of the same name is another thing)."""
    old_names: set[str] = set()
    new_names: set[str] = set()
    for change in changes:
        if change.path in tests:
            continue
        for text, language in (
            (change.old_text, old_side_language(change)),
            (change.new_text, js_language(change.language)),
        ):
            if text is None or language is None:
                continue
            root = parse(text, language)
            if root.has_error:
                continue
            names = {
                name.rsplit(".", 1)[-1]
                for name, fn in functions(root, language).items()
                if "(" not in name and (name.count(".") <= 1 or _is_api_member(fn))
            }
            (old_names if text is change.old_text else new_names).update(names)
    return frozenset(name for name in old_names - new_names if name and "#" not in name)


# What a test names of the code: member names (`.storeOptionsAsProperties`) and words inside
# string literals (`'ENOENT'`, `'--debug'`), long enough to be distinctive.
_MEMBER = re.compile(r"\.([A-Za-z_$][\w$]{4,})")
_QUOTED = re.compile(r"""(['"`])([^'"`\n]{1,80})\1""")
_WORD = re.compile(r"[A-Za-z_][\w-]{4,}")
# A line that is only a comment (code commented out is gone from the code).
_COMMENT_LINE = re.compile(r"^\s*(//|/\*|\*)")
_NODE_SHEBANG = re.compile(r"#!.*\bnode\b")
# A deleted test's title often paraphrases the message or comment of the code it exercised
# ("when option clashes with property then throw" / "option '…' clashes with existing
# property"): two shared words, one of them gone from the code, say the subject went.
TITLE_EVIDENCE = 2


@dataclass(frozen=True, slots=True)
class RemovedPhrase:
    """A string or comment of the change's deleted code lines that the new code no longer
    holds: its folded words, and those of them no new code mentions at all."""

    words: frozenset[str]
    gone: frozenset[str]


def vocabulary(text: str) -> set[str]:
    found = set(_MEMBER.findall(text))
    for _quote, content in _QUOTED.findall(text):
        found.update(_WORD.findall(content))
    return found


_CAMEL = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def title_words(title_parts: Sequence[str]) -> set[str]:
    """The distinctive words of a test's title and its suites', folded; a camelCase name
    (`detectClash`) also by its parts."""
    words: set[str] = set()
    for part in title_parts:
        for word in _WORD.findall(part):
            words.add(_fold(word))
            words.update(_fold(piece) for piece in _CAMEL.findall(word) if len(piece) >= 5)
    return words


def title_names_removed(title_parts: Sequence[str], phrases: Sequence[RemovedPhrase]) -> bool:
    """Whether a test's title paraphrases a message or comment the change removed from the
    code, with a word that no remaining code mentions."""
    words = title_words(title_parts)
    for phrase in phrases:
        shared = words & phrase.words
        if len(shared) >= TITLE_EVIDENCE and shared & phrase.gone:
            return True
    return False


def _fold(word: str) -> str:
    """Lower-cased, a plural `s` dropped: `Clashes`, `clash` and `clashe` meet."""
    lower = word.lower()
    if lower.endswith("es") and len(lower) > 5:
        return lower[:-2]
    return lower[:-1] if lower.endswith("s") and not lower.endswith("ss") else lower


def is_js_code(change: FileChange) -> bool:
    """A JS/TS file, or an extensionless script run by node (`bin/mocha`)."""
    if js_language(change.language) is not None:
        return True
    if change.language != "other":
        return False
    return any(
        text is not None and _NODE_SHEBANG.match(text.split("\n", 1)[0])
        for text in (change.old_text, change.new_text)
    )


def _code_lines(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if not _COMMENT_LINE.match(line))


@dataclass(frozen=True, slots=True)
class Removed:
    """What the change's code stopped saying."""

    words: frozenset[str]  # member names and string words no new code mentions
    phrases: tuple[RemovedPhrase, ...]  # strings and comments of deleted lines, now gone


def removed_vocabulary(changes: Sequence[FileChange], tests: set[str]) -> Removed:
    """Member names and string words that the change's deleted code lines held and that no
    new code of the change mentions any more (a line left only as a comment is not code),
    and the strings and comments of those lines that are gone: the behaviour they named is
    gone. A phrase's word is gone when the file it was deleted from no longer mentions it in
    code and no line the change adds anywhere does (it did not move): the same word in an
    untouched line of another file (`'output extra debugging'` in an example) names
    something else."""
    removed: set[str] = set()
    texts: list[tuple[str, str]] = []  # (path, text)
    new_code: list[str] = []
    file_code: dict[str, set[str]] = {}
    added_code: list[str] = []
    for change in changes:
        if change.path in tests or not is_js_code(change):
            continue
        if change.old_text is not None and change.removed_lines:
            old_lines = change.old_text.split("\n")
            gone = [old_lines[n - 1] for n in sorted(change.removed_lines) if n <= len(old_lines)]
            removed |= vocabulary("\n".join(gone))
            for run in _runs(change.removed_lines, old_lines):
                if all(_COMMENT_LINE.match(line) or not line.strip() for line in run):
                    continue  # a comment reworded: the code it described is still there
                comment: list[str] = []  # consecutive comment lines: one comment, one phrase
                for line in [*run, ""]:
                    if _COMMENT_LINE.match(line):
                        comment.append(line.strip().lstrip("/*").rstrip("*/"))
                        continue
                    if comment:
                        texts.append((change.path, " ".join(comment)))
                        comment = []
                    texts.extend(
                        (change.path, content) for _quote, content in _QUOTED.findall(line)
                    )
        if change.new_text is not None:
            code_text = _code_lines(change.new_text)
            new_code.append(code_text)
            file_code[change.path] = _folded_words(code_text)
            new_lines = change.new_text.split("\n")
            added_code.append(
                _code_lines(
                    "\n".join(new_lines[n - 1] for n in change.added_lines if n <= len(new_lines))
                )
            )
    code = "\n".join(new_code)
    new_words = set(re.findall(r"[A-Za-z_$][\w$-]*", code))
    added_words = _folded_words("\n".join(added_code))
    phrases: list[RemovedPhrase] = []
    for path, text in texts:
        words = frozenset(_fold(word) for word in _WORD.findall(text))
        if len(words) >= TITLE_EVIDENCE and text.strip(" /*") not in code:
            still = file_code.get(path, set()) | added_words
            phrases.append(RemovedPhrase(words, words - still))
    return Removed(frozenset(word for word in removed if word not in new_words), tuple(phrases))


def _folded_words(code: str) -> set[str]:
    return {_fold(word) for word in re.findall(r"[A-Za-z_$][\w$-]*", code)}


def _runs(numbers: frozenset[int], lines: list[str]) -> list[list[str]]:
    """The deleted lines in contiguous runs (one hunk's deletion each)."""
    runs: list[list[str]] = []
    previous = -1
    for number in sorted(numbers):
        if number > len(lines):
            break
        if number != previous + 1 or not runs:
            runs.append([])
        runs[-1].append(lines[number - 1])
        previous = number
    return runs


def removes_code(changes: Sequence[FileChange], tests: set[str]) -> bool:
    """Whether the change takes code away: its non-test JS/TS files lose at least one line of
    code (not blank, not a comment) and lose at least as many lines as they gain."""
    code_lines = removed = added = 0
    for change in changes:
        if change.path in tests or not is_js_code(change):
            continue
        removed += len(change.removed_lines)
        added += len(change.added_lines)
        if change.old_text is None:
            continue
        old_lines = change.old_text.split("\n")
        for number in change.removed_lines:
            text = old_lines[number - 1].strip() if number <= len(old_lines) else ""
            if text and not text.startswith(("//", "/*", "*")):
                code_lines += 1
    return code_lines > 0 and removed >= added


def _is_api_member(fn: Node) -> bool:
    """A method, or a function assigned to an object's member (`promise.cancel = ...`):
    part of an object's interface, unlike a helper nested in a function."""
    parent = fn.parent
    if fn.type == "method_definition":
        return True
    return (
        parent is not None
        and parent.type == "assignment_expression"
        and (left := parent.child_by_field_name("left")) is not None
        and left.type == "member_expression"
    )


# `key: value` at the start of a line: an object literal's property (or an interface field);
# `obj.key = value`: the same property set on an object the code builds step by step.
_PROPERTY_LINE = re.compile(r"""^\s*['"]?([A-Za-z_$][\w$]*)['"]?\s*\??:(?!:)""")
_MEMBER_SET = re.compile(r"""^\s*[A-Za-z_$][\w$]*\.([A-Za-z_$][\w$]*)\s*=(?!=)""")
_NOT_KEYS = frozenset({"case", "default"})


def _property_keys(text: str) -> Counter[str]:
    found: Counter[str] = Counter()
    for line in text.split("\n"):
        match = _PROPERTY_LINE.match(line) or _MEMBER_SET.match(line)
        if match and match.group(1) not in _NOT_KEYS:
            found[match.group(1)] += 1
    return found


def title_names_removed_key(title_parts: Sequence[str], keys: frozenset[str]) -> bool:
    """Whether a test's title names, as the identifier it is, a property the change's code
    stopped building (five letters or more: `username`, not `id`; "validation" does not
    name `validations`)."""
    wanted = {key.lower() for key in keys if len(key) >= 5}
    named = {word.lower() for part in title_parts for word in re.findall(r"[\w$]+", part)}
    return bool(wanted & named)


def removed_keys(changes: Sequence[FileChange], tests: set[str]) -> frozenset[str]:
    """Property names that the change's code (not tests) writes as `key:` fewer times than
    before, among keys on the lines it deleted: an object the code builds lost the field."""
    before: Counter[str] = Counter()
    after: Counter[str] = Counter()
    touched: set[str] = set()
    for change in changes:
        if change.path in tests or not is_js_code(change):
            continue
        if change.old_text is not None:
            before.update(_property_keys(change.old_text))
            old_lines = change.old_text.split("\n")
            gone = [old_lines[n - 1] for n in change.removed_lines if n <= len(old_lines)]
            touched.update(_property_keys("\n".join(gone)))
        if change.new_text is not None:
            after.update(_property_keys(change.new_text))
    return frozenset(key for key in touched if after[key] < before[key])


_EXTENSION = re.compile(r"\.(?:d\.)?[cm]?[jt]sx?$")


def module_path(path: str) -> str:
    """A module's path as an import names it: no extension, no trailing `/index`."""
    bare = _EXTENSION.sub("", path)
    return bare[: -len("/index")] if bare.endswith("/index") else bare


@dataclass(frozen=True, slots=True)
class DeletedModules:
    """The JS/TS source files (not tests) the change deletes, as import paths, and every name
    the change's remaining code mentions (a name defined again elsewhere moved, not went)."""

    paths: frozenset[str] = frozenset()
    still_named: frozenset[str] = frozenset()


def deleted_modules(changes: Sequence[FileChange], tests: set[str]) -> DeletedModules:
    paths = frozenset(
        module_path(change.path)
        for change in changes
        if change.status == "deleted" and change.path not in tests and is_js_code(change)
    )
    if not paths:
        return DeletedModules()
    named: set[str] = set()
    for change in changes:
        if change.path not in tests and change.new_text is not None and is_js_code(change):
            named.update(re.findall(r"[A-Za-z_$][\w$]*", _code_lines(change.new_text)))
    return DeletedModules(paths, frozenset(named))


def _imported_names(statement: Node) -> set[str]:
    """The local names an import statement (or a `require` declaration) binds."""
    names: set[str] = set()
    for node in walk(statement):
        if node.type == "import_specifier":
            alias = node.child_by_field_name("alias") or node.child_by_field_name("name")
            if alias is not None:
                names.add(text_of(alias))
        elif node.type in ("import_clause", "namespace_import"):
            names.update(
                text_of(child) for child in node.named_children if child.type == "identifier"
            )
        elif node.type == "variable_declarator":
            name = node.child_by_field_name("name")
            if name is not None:
                names.update(
                    text_of(item)
                    for item in [name, *walk(name)]
                    if item.type in ("identifier", "shorthand_property_identifier_pattern")
                )
    return names


def _import_source(statement: Node) -> str | None:
    if statement.type == "import_statement":
        source = statement.child_by_field_name("source")
        return text_of(source)[1:-1] if source is not None else None
    if statement.type in ("lexical_declaration", "variable_declaration"):
        for node in walk(statement):
            if node.type == "call_expression" and callee_name(node) == "require":
                arguments = node.child_by_field_name("arguments")
                given = named_children(arguments) if arguments is not None else []
                first = given[0] if given else None
                if first is not None and first.type == "string":
                    return text_of(first)[1:-1]
    return None


def names_from_deleted_modules(
    root: Node | None, path: str, modules: DeletedModules
) -> frozenset[str]:
    """The names a test file imports (relatively) from modules the change deletes, and that
    no remaining code of the change mentions."""
    if root is None or not modules.paths:
        return frozenset()
    names: set[str] = set()
    for statement in root.named_children:
        source = _import_source(statement)
        if source is None or not source.startswith("."):
            continue
        target = posixpath.normpath(posixpath.join(posixpath.dirname(path), source))
        if module_path(target) in modules.paths:
            names |= _imported_names(statement)
    return frozenset(names - modules.still_named)


def uses_any(node: Node | None, names: frozenset[str]) -> bool:
    """Whether `node` mentions one of `names` (a call, a decorator, a type, a value)."""
    if node is None or not names:
        return False
    return any(
        item.type in ("identifier", "type_identifier") and text_of(item) in names
        for item in walk(node)
    )


def helper_functions(changes: Sequence[FileChange]) -> dict[str, Node]:
    """Named functions of the new side of every JS/TS file of the change (test utilities
    included), by their own name; a name defined twice is ambiguous and left out."""
    found: dict[str, Node] = {}
    ambiguous: set[str] = set()
    for change in changes:
        language = js_language(change.language)
        if change.new_text is None or language is None:
            continue
        root = parse(change.new_text, language)
        if root.has_error:
            continue
        for qualname, fn in functions(root, language).items():
            if "." in qualname or "#" in qualname or "(" in qualname:
                continue
            if qualname in found:
                ambiguous.add(qualname)
            found[qualname] = fn
    return {name: fn for name, fn in found.items() if name not in ambiguous}


# A declaration line: `export const NAME = …`, `function NAME(`, `class NAME`.
_DECLARATION = re.compile(
    r"^\s*(?:export\s+(?:default\s+)?)?(?:declare\s+)?"
    r"(?:const|let|var|function\*?|async\s+function|class|enum|type|interface)\s+"
    r"([A-Za-z_$][\w$]*)"
)


def renamed_declarations(changes: Sequence[FileChange], tests: set[str]) -> dict[str, str]:
    """Old name -> new name, for each declaration of the change's code (not tests) deleted
    and added back in the same file identical but for its name, where no new code mentions
    the old name and no old code the new one: a rename, not a new value."""
    old_words: set[str] = set()
    new_words: set[str] = set()
    candidates: list[tuple[str, str]] = []
    for change in changes:
        if change.path in tests or not is_js_code(change):
            continue
        if change.old_text is not None:
            old_words.update(re.findall(r"[A-Za-z_$][\w$]*", _code_lines(change.old_text)))
        if change.new_text is not None:
            new_words.update(re.findall(r"[A-Za-z_$][\w$]*", _code_lines(change.new_text)))
        if change.old_text is None or change.new_text is None:
            continue
        removed = _declarations(change.old_text, change.removed_lines)
        added = _declarations(change.new_text, change.added_lines)
        for old_name, old_rest in removed:
            heirs = [name for name, rest in added if rest == old_rest and name != old_name]
            if len(heirs) == 1:
                candidates.append((old_name, heirs[0]))
    return {old: new for old, new in candidates if old not in new_words and new not in old_words}


def _declarations(text: str, numbers: frozenset[int]) -> list[tuple[str, str]]:
    """(name, the line with the name blanked, whitespace squashed) of the declaration lines
    among `numbers`."""
    lines = text.split("\n")
    found: list[tuple[str, str]] = []
    for number in sorted(numbers):
        line = lines[number - 1] if number <= len(lines) else ""
        match = _DECLARATION.match(line)
        if match is not None:
            rest = line[: match.start(1)] + "\0" + line[match.end(1) :]
            found.append((match.group(1), "".join(rest.split())))
    return found
