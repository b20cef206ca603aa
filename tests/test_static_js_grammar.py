"""The bundled grammars read current TypeScript (issue 17): forms the tree-sitter-typescript
wheel predates are mended by a same-length rewrite, used only when the grammar rejects a file."""

from __future__ import annotations

import pytest

from contend.critics.static import treesitter
from contend.critics.static.base import Skipped, Topic
from contend.critics.static.ts_compat import rewrite_for_grammar

TS5_FORMS = [
    'export type * as Types from "./types";',
    'export type * from "./types";',
    "type Box<in out T> = { value: T };",
    "export interface ZodType<\n  out Output = unknown,\n  out Input = unknown,\n> {}",
    "abstract class A {\n  abstract accessor x: number;\n}",
    "interface Opts {\n  scriptAst?: import('@babel/types').Statement[]\n}",
    "const redux = await importOriginal<typeof import('redux')>();",
    "export function view(using: string): void {\n  this.config.using = using;\n}",
    "interface Get<E> {\n  <K extends keyof E>(key: K): E[K]\n  <K extends string>(k: K): 1\n}",
    "interface Attrs {\n  in2?: number | undefined\n  in?: string | undefined\n}",
    "type Msg<T extends string> = `install \\`${T}\\` first`;",
]


@pytest.mark.parametrize("source", TS5_FORMS)
def test_current_typescript_forms_parse(source: str) -> None:
    assert treesitter.syntax_error_line(treesitter.parse_raw(source, "typescript")) is not None
    assert treesitter.syntax_error_line(treesitter.parse(source, "typescript")) is None


@pytest.mark.parametrize(
    ("source", "language"),
    [
        ('const a = <a href="https://x.dev/?a=1&b=2">x</a>;', "tsx"),
        ('export const App = () => <div class="hero">x</div>;', "javascript"),
        ('export const L = () => <label for="name">Name</label>;', "javascript"),
    ],
)
def test_jsx_forms_the_grammars_reject_parse(source: str, language: treesitter.JsLanguage) -> None:
    assert treesitter.syntax_error_line(treesitter.parse_raw(source, language)) is not None
    assert treesitter.syntax_error_line(treesitter.parse(source, language)) is None


@pytest.mark.parametrize("source", TS5_FORMS)
def test_the_rewrite_keeps_every_byte_offset_and_line(source: str) -> None:
    rewritten = rewrite_for_grammar(source)
    assert len(rewritten.encode()) == len(source.encode())
    assert rewritten.count("\n") == source.count("\n")


def test_a_file_the_grammar_reads_is_never_rewritten() -> None:
    source = "for (const k in obj) {\n  if (a < out) use(k);\n}\nconst using = 1;\n"
    root = treesitter.parse(source, "typescript")
    assert treesitter.syntax_error_line(root) is None
    assert treesitter.text_of(root) == source


def test_a_real_syntax_error_is_still_a_skip() -> None:
    source = 'export type * as X from "./x";\nfunction (\n'
    result = treesitter.parse_checked(source, "typescript", path="a.ts", topic=Topic.SECURITY)
    assert isinstance(result, Skipped)
    assert result.reason == "syntax error at line 2"


def test_findings_in_a_rewritten_file_keep_their_lines() -> None:
    from contend.critics.static import js_silent_fallback
    from contend.critics.static.testing import change_from_texts

    old = 'export type * from "./types";\nexport function load() {\n  return read();\n}\n'
    new = (
        'export type * from "./types";\nexport function load() {\n  try {\n'
        "    return read();\n  } catch {\n    return null;\n  }\n}\n"
    )
    [finding] = js_silent_fallback.CRITIC.check([change_from_texts("src/a.ts", old, new)])
    assert (finding.rule, finding.start_line) == ("js-catch-return-default", 5)
