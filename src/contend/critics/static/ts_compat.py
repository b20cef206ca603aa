"""Rewrites that let the bundled TypeScript grammar read TypeScript 4.7-5.x source.

The newest `tree-sitter-typescript` wheel on PyPI (0.23.2) predates a few forms of current
TypeScript, and no offline, wheel-installed grammar that reads them exists (the 1.x
`tree-sitter-language-pack` downloads its grammars at run time; its last bundled release
ships the same TypeScript grammar). Each form below is one where a keyword only informs the
type checker; blanking that keyword out with spaces leaves a program the grammar reads, with
every byte offset and line number unchanged, and no statement, call, handler or test the
critics look at altered:

- `export type * from "m"` / `export type * as N from "m"` (5.0): `type` blanked;
- variance annotations `<in T>`, `<out T>`, `<in out T>` (4.7): `in` / `out` blanked;
- `accessor` fields after `abstract` / `declare` / `override` / `static` (4.9, 5.0):
  `accessor` blanked;

And grammar gaps that are not new syntax, each mended without moving a byte: `import("m").T[]`
and `typeof import("m")` in a type (the same number of underscores, a type name); `using` as
a name (`_sing`); a bare `&` in a JSX attribute string (`_`); a JSX attribute named like a
keyword (`class=` becomes `_lass=`); an escaped backtick in a template (`__`); and a generic
call signature, or a member named `in`/`in2`/`instanceof`, on its own line after a member
with no `;` (an indentation space becomes the `;`).

`treesitter.parse` applies this only to a text the grammar rejects: code the grammar reads is
never touched. `bench/js_parse_rate.py` measures what it buys on real repositories.
"""

from __future__ import annotations

import re

_BLANKS = (
    # export type * from / export type * as N from
    re.compile(r"\bexport(\s+)(?P<kw>type)(?=\s*\*)"),
    # variance annotations in a type parameter list: after `<` or `,`, before a name
    re.compile(
        r"(?<=[<,])(\s*)(?P<kw>in\s+out|in|out)"
        r"(?=\s+[A-Za-z_$][\w$]*\s*(?:[,>=]|extends\b))"
    ),
    # ...and at the start of a line of a multi-line list (after a comment line, say)
    re.compile(r"(?m)^(\s*)(?P<kw>in\s+out|in|out)(?=\s+[A-Za-z_$][\w$]*\s*(?:[,=>]|extends\b))"),
    # accessor after a modifier keyword
    re.compile(
        r"\b(?:abstract|declare|override|static|readonly|public|private|protected)"
        r"(\s+)(?P<kw>accessor)(?=\s+[#\w$\[])"
    ),
)


def rewrite_for_grammar(text: str) -> str:
    """`text` with the keywords above replaced by spaces (same length, same lines), the
    separators below written in, and type-level `import("m")` renamed."""
    for pattern in _BLANKS:
        if pattern.search(text) is None:
            continue
        text = pattern.sub(_blank_keyword, text)
    text = _IMPORT_TYPE.sub(lambda m: "_" * len(m.group(0)), text)
    text = _USING_NAME.sub("_sing", text)
    text = _JSX_KEYWORD_ATTRIBUTE.sub(lambda m: "_" + m.group(0)[1:], text)
    text = _ESCAPED_BACKTICK.sub("__", text)
    text = _IN_PROPERTY.sub(r"\1i_", text)
    text = _JSX_STRING.sub(lambda m: _BARE_AMPERSAND.sub("_", m.group(0)), text)
    return _separate_call_signatures(text)


# `import("m").T` in a type position (the grammar reads `import("m").T[]` and
# `import("m").T<U>` as errors): the same number of underscores is a type name it reads.
_IMPORT_TYPE = re.compile(
    r"(?<=[:<|&,(]\s)import\s*\(\s*(['\"])[^'\"\n]*\1\s*\)(?=\.)"
    r"|(?<=typeof\s)import\s*\(\s*(['\"])[^'\"\n]*\2\s*\)"
)
# `using` as a name (a parameter, a method, a variable): the grammar takes it for the start of
# a `using` declaration (5.2). A real declaration (`using x = ...`) is left alone.
_USING_NAME = re.compile(r"(?<![\w$.])using\b(?!\s+[A-Za-z_$][\w$]*\s*=)")
# A JSX attribute named like a keyword (`class="..."` in Preact and Solid, `for="..."`): the
# grammar rejects it; a name of the same length is read.
_JSX_KEYWORD_ATTRIBUTE = re.compile(r"(?<=\s)(?:class|for|if|in|do|new|default)(?==[\"'{])")
# An escaped backtick (a template literal type holding `\``): the grammar stops the template.
_ESCAPED_BACKTICK = re.compile(r"\\`")
# A property named `in` in a type (`in?: string`): renamed to a name of the same length.
_IN_PROPERTY = re.compile(r"(?m)^(\s*)in(?=\??\s*:)")
# The TSX grammar rejects a bare `&` in a JSX attribute string (`href="a?b=1&c=2"`).
_JSX_STRING = re.compile(r"(?<=[\w-]=)\"[^\"\n]*&[^\"\n]*\"")
_BARE_AMPERSAND = re.compile(r"&(?![#\w]+;)")
# A generic call signature on its own line (`<K extends X>(key: K): V`), or a member named
# `in...`, after a member that ends without a separator: the grammar reads the `<` as a
# comparison and the `in` as the operator.
_CALL_SIGNATURE = re.compile(
    r"^(\s+)(?:<(?:\s*$|[A-Za-z_$][\w$]*(?:\s+extends\b|\s*[,=>]))"
    # ...and a member named like the `in` / `instanceof` operators (`in2?: number`)
    r"|(?:in\d*|instanceof)\??\s*:)"
)
_LINE_COMMENT = re.compile(r"\s//.*$")
_ENDS_A_MEMBER = re.compile(r"[\w$)\]>]\s*$")


def _separate_call_signatures(text: str) -> str:
    if "\n" not in text:
        return text
    lines = text.split("\n")
    previous = ""
    for index, line in enumerate(lines):
        stripped = line.strip()
        if _CALL_SIGNATURE.match(line) and _ENDS_A_MEMBER.search(_LINE_COMMENT.sub("", previous)):
            # One indentation space becomes the `;` the member lacked: same length.
            lines[index] = ";" + line[1:]
        if stripped and not stripped.startswith(("//", "*", "/*")):
            previous = line
    return "\n".join(lines)


def _blank_keyword(match: re.Match[str]) -> str:
    start, end = match.span("kw")
    whole = match.group(0)
    offset = match.start()
    return whole[: start - offset] + " " * (end - start) + whole[end - offset :]
