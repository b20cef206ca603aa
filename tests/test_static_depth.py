"""Valid Python never crashes a static critic: deeply nested expressions (issue 10).

`ast.dump`, `ast.unparse` and any recursive walk exhaust the interpreter's recursion limit on
an expression ~1,000 nodes deep, which the parser itself accepts. Every Python critic must
review such a file (or, past what the parser accepts, report it skipped), never raise.
"""

from __future__ import annotations

import pytest

from contend.critics.static.base import Finding
from contend.critics.static.runner import run_static
from contend.critics.static.testing import change_from_texts

TERMS = 1_500


def _sum(name: str, terms: int = TERMS) -> str:
    return "+".join([name] * terms)


def _chain(terms: int = TERMS) -> str:
    return "obj" + ".attr" * terms


def _calls(terms: int = 700) -> str:
    return "obj" + ".m()" * terms


def _unary(terms: int = TERMS) -> str:
    return "-" * terms + "x"


def _ifexp(terms: int = 600) -> str:
    return " if c else ".join(["x"] * terms)


DEEP = {
    "binop": _sum("x"),
    "attribute": _chain(),
    "calls": _calls(),
    "unary": _unary(),
    "ifexp": _ifexp(),
}


def _library(expr: str, handler: str) -> str:
    return (
        "import threading\n"
        "_lock = threading.Lock()\n"
        "\n"
        "def f(x, obj, c, items):\n"
        "    try:\n"
        f"        return {expr}\n"
        f"    except {handler}:\n"
        "        return None\n"
        "\n"
        "def g(x, obj, c):\n"
        f"    if not isinstance(x, int) or ({expr}):\n"
        "        raise TypeError('x')\n"
        f"    value = {expr}  # type: ignore\n"
        "    return value\n"
    )


def _test_module(expr: str, extra: str) -> str:
    return (
        "import pytest\n"
        "\n"
        "def test_deep(x, obj, c):\n"
        f"    assert ({expr}) == 3\n"
        f"    assert {extra}\n"
        "\n"
        "def test_gone(x, obj, c):\n"
        f"    assert ({expr}) == 4\n"
    )


@pytest.mark.parametrize("shape", sorted(DEEP))
def test_deep_expressions_in_a_changed_library_file_do_not_crash(shape: str) -> None:
    expr = DEEP[shape]
    old = _library(expr, "ValueError")
    new = _library(expr, "Exception").replace("raise TypeError('x')", "pass")
    result = run_static([change_from_texts("pkg/mod.py", old, new)])
    assert not result.skipped, result.skipped
    # The widened handler around the deep expression is still seen.
    assert any(f.rule == "widened-except" for f in result.findings), result.findings


@pytest.mark.parametrize("shape", sorted(DEEP))
def test_deep_expressions_in_a_changed_test_file_do_not_crash(shape: str) -> None:
    expr = DEEP[shape]
    old = _test_module(expr, "x == 1")
    new = _test_module(expr, "x").split("def test_gone")[0]
    result = run_static([change_from_texts("tests/test_mod.py", old, new)])
    assert not result.skipped, result.skipped
    rules = {f.rule for f in result.findings if isinstance(f, Finding)}
    assert {"assertion-weakened", "test-deleted"} <= rules, result.findings


def test_an_expression_deeper_than_the_parser_accepts_is_a_visible_skip() -> None:
    deeper = _library(_sum("x", 20_000), "ValueError")
    result = run_static([change_from_texts("pkg/deep.py", "x = 1\n", deeper)])
    assert [s.path for s in result.skipped] == ["pkg/deep.py"]
    assert "too deeply nested" in result.skipped[0].reason
    assert result.findings == []
