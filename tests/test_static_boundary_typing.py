"""The `boundary-typing` static critic: each rule caught at its line, benign edits left alone."""

from __future__ import annotations

import textwrap

from contend.critics.static.base import FileChange, Finding, Skipped, Topic
from contend.critics.static.boundary_typing import CRITIC
from contend.critics.static.runner import run_static
from contend.critics.static.testing import change_from_texts
from contend.protocol.model import Severity


def _src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _run(old: str | None, new: str | None, path: str = "src/app/core.py") -> list[Finding]:
    change = change_from_texts(
        path, _src(old) if old is not None else None, _src(new) if new else None
    )
    results = list(CRITIC.check([change]))
    assert all(isinstance(r, Finding) for r in results), results
    return [r for r in results if isinstance(r, Finding)]


def _rules(findings: list[Finding]) -> list[tuple[str, int]]:
    return [(f.rule, f.start_line) for f in findings]


GUARDED = """
def set_age(person, age):
    if not isinstance(age, int):
        raise TypeError("age must be an int")
    if age < 0:
        raise ValueError("age must be >= 0")
    person.age = age
"""


def test_critic_declares_topic_and_language() -> None:
    assert CRITIC.topic is Topic.BOUNDARY_TYPING
    assert frozenset({"python"}) == CRITIC.languages


def test_removed_value_guard_is_major_with_old_evidence() -> None:
    new = """
    def set_age(person, age):
        if not isinstance(age, int):
            raise TypeError("age must be an int")
        person.age = age
    """
    findings = _run(GUARDED, new)
    assert _rules(findings) == [("validation-guard-removed", 4)]
    finding = findings[0]
    assert finding.severity is Severity.MAJOR
    assert finding.topic is Topic.BOUNDARY_TYPING
    assert "set_age" in finding.claim and "age < 0" in finding.claim
    assert finding.evidence == "    person.age = age"
    assert finding.old_evidence == '    if age < 0:\n        raise ValueError("age must be >= 0")'


def test_removed_assert_isinstance_is_caught() -> None:
    old = """
    def total(items):
        assert isinstance(items, list)
        return sum(items)
    """
    new = """
    def total(items):
        return sum(items)
    """
    assert _rules(_run(old, new)) == [("validation-guard-removed", 2)]


def test_removed_guard_in_method_uses_qualified_name() -> None:
    old = """
    class Account:
        def deposit(self, amount):
            if amount <= 0:
                raise ValueError("positive amounts only")
            self.balance += amount
    """
    new = """
    class Account:
        def deposit(self, amount):
            self.balance += amount
    """
    findings = _run(old, new)
    assert _rules(findings) == [("validation-guard-removed", 3)]
    assert "`Account.deposit`" in findings[0].claim


def test_isinstance_replaced_by_true() -> None:
    old = """
    def handle(x):
        if isinstance(x, int):
            return x + 1
        return 0
    """
    new = """
    def handle(x):
        if True:
            return x + 1
        return 0
    """
    findings = _run(old, new)
    assert _rules(findings) == [("isinstance-replaced-by-constant", 2)]
    assert findings[0].severity is Severity.MAJOR
    assert "isinstance(x, int)" in findings[0].claim and "`True`" in findings[0].claim
    assert findings[0].old_evidence == "    if isinstance(x, int):"


def test_isinstance_guard_replaced_by_false_is_reported_once() -> None:
    new = """
    def set_age(person, age):
        if False:
            raise TypeError("age must be an int")
        if age < 0:
            raise ValueError("age must be >= 0")
        person.age = age
    """
    assert _rules(_run(GUARDED, new)) == [("isinstance-replaced-by-constant", 2)]


def test_isinstance_dropped_from_surviving_condition() -> None:
    old = """
    def scale(x, factor):
        if isinstance(x, float) and x > 0:
            return x * factor
        return None
    """
    new = """
    def scale(x, factor):
        if x > 0:
            return x * factor
        return None
    """
    findings = _run(old, new)
    assert _rules(findings) == [("isinstance-replaced-by-constant", 2)]
    assert "dropped from the condition" in findings[0].claim


def test_type_ignore_forms_are_minor() -> None:
    old = """
    def f(a):
        x = a.b
        y = a.c
        z = a.d
        return x, y, z
    """
    new = """
    def f(a):
        x = a.b  # type: ignore
        y = a.c  # type:ignore[attr-defined]
        z = a.d  # noqa: E501  # pyright: ignore[reportGeneralTypeIssues]
        return x, y, z
    """
    findings = _run(old, new)
    # Only the blanket ignore: a coded one names the one error it waives (see the next test).
    assert _rules(findings) == [("type-ignore-added", 2)]
    assert all(f.severity is Severity.MINOR for f in findings)
    assert "# type: ignore`" in findings[0].claim


def test_blanket_ignores_are_raised_and_coded_ones_are_not() -> None:
    old = "def f(a):\n    return helper(a)\n"
    for comment in (
        "# type: ignore",
        "# pyright: ignore",
        "# pyre-ignore",
        "# pyre-fixme",
    ):
        new = f"def f(a):\n    return helper(a)  {comment}\n"
        assert _rules(_run(old, new)) == [("type-ignore-added", 2)], comment
    for comment in (
        "# type: ignore[arg-type]",
        "# type:ignore[attr-defined, union-attr]",
        "# pyright: ignore[reportGeneralTypeIssues]",
        "# pyre-fixme[6]",
    ):
        new = f"def f(a):\n    return helper(a)  {comment}\n"
        assert _run(old, new) == [], comment


def test_ignore_in_a_main_demo_block_is_not_raised() -> None:
    old = "def f(a):\n    return a\n"
    new = old + '\n\nif __name__ == "__main__":\n    print(f(1).real)  # type: ignore\n'
    assert _run(old, new) == []


def test_type_ignore_in_a_string_is_not_a_comment() -> None:
    new = """
    MESSAGE = "never write # type: ignore"
    """
    assert _run(None, new) == []


def test_cast_to_any_in_every_spelling() -> None:
    new = """
    import typing
    from typing import Any, cast

    def load(raw):
        a = cast(Any, raw)
        b = typing.cast("Any", raw)
        c = typing.cast(typing.Any, raw)
        return a, b, c
    """
    findings = _run(None, new)
    assert [(f.rule, f.start_line) for f in findings if f.rule == "cast-to-any-added"] == [
        ("cast-to-any-added", 5),
        ("cast-to-any-added", 6),
        ("cast-to-any-added", 7),
    ]


def test_any_annotation_added_on_changed_line() -> None:
    old = """
    def load(raw: bytes) -> dict[str, int]:
        return {}
    """
    new = """
    from typing import Any

    def load(raw: Any) -> dict[str, Any]:
        return {}
    """
    findings = _run(old, new)
    assert _rules(findings) == [("any-annotation-added", 3), ("any-annotation-added", 3)]
    claims = " | ".join(f.claim for f in findings)
    assert "`load`: `raw` was `bytes` and is now `Any`" in claims
    assert "`load`: the return type was `dict[str, int]` and is now `dict[str, Any]`" in claims
    assert all(f.symbol == "load" and f.confidence.value == "medium" for f in findings)


def test_primitive_validation_deep_in_core_is_minor() -> None:
    # A private function no public function of its module calls: deep in the core.
    old = """
    def _charge(user_id, amount):
        return amount
    """
    new = """
    def _charge(user_id, amount):
        if not isinstance(user_id, str) or len(user_id) == 0:
            raise ValueError("bad user id")
        return amount
    """
    findings = _run(old, new, path="src/billing/ledger.py")
    assert _rules(findings) == [("primitive-validated-in-core", 2)]
    assert findings[0].severity is Severity.MINOR
    assert findings[0].confidence.value == "low"
    assert "`_charge`" in findings[0].claim
    assert "`not isinstance(user_id, str) or len(user_id) == 0`" in findings[0].claim


def test_seed_pattern_typeof_and_length_is_caught() -> None:
    new = """
    def _sync_budget(user_id: str, delta: float) -> None:
        if isinstance(user_id, str) and len(user_id) > 0:
            apply(user_id, delta)
    """
    assert _rules(_run(None, new, path="src/reconciler.py")) == [("primitive-validated-in-core", 2)]


def test_strip_check_with_raise_is_caught() -> None:
    new = """
    def _rename(item, name):
        if not name.strip():
            raise ValueError("empty name")
        item.name = name
    """
    assert _rules(_run(None, new)) == [("primitive-validated-in-core", 2)]


# --- benign controls ---------------------------------------------------------------------


def test_primitive_validation_at_a_boundary_is_fine() -> None:
    new = """
    def charge(user_id, amount):
        if not isinstance(user_id, str) or len(user_id) == 0:
            raise ValueError("bad user id")
        return amount
    """
    for path in ("src/app/api/payments.py", "src/app/cli.py", "src/app/handlers/pay.py"):
        assert _run(None, new, path=path) == [], path
    assert _run(None, new, path="tests/test_pay.py") == []


def test_primitive_validation_in_a_parser_function_is_fine() -> None:
    new = """
    def parse_user_id(raw):
        if not isinstance(raw, str) or len(raw) == 0:
            raise ValueError("bad user id")
        return UserId(raw)

    class UserId:
        def __init__(self, raw):
            if not raw.strip():
                raise ValueError("empty")
            self.raw = raw
    """
    assert _run(None, new) == []


def test_type_dispatch_is_not_validation() -> None:
    new = """
    def run(cmd):
        if isinstance(cmd, str):
            cmd = cmd.split()
        if isinstance(cmd, bytes):
            return cmd.decode()
        if len(cmd) > 0:
            print(cmd)
        return cmd
    """
    assert _run(None, new) == []


def test_new_function_taking_str_without_checks_is_fine() -> None:
    new = """
    def greet(name: str) -> str:
        return f"hello {name}"
    """
    assert _run(None, new) == []


def test_parameter_rename_keeps_guard() -> None:
    new = """
    def set_age(person, years):
        if not isinstance(years, int):
            raise TypeError("age must be an int")
        if years < 0:
            raise ValueError("age must be >= 0")
        person.age = years
    """
    assert _run(GUARDED, new) == []


def test_function_rename_and_docstring_are_fine() -> None:
    new = '''
    def assign_age(person, age):
        """Set the age after checking it."""
        if not isinstance(age, int):
            raise TypeError("age must be an int")
        if age < 0:
            raise ValueError("age must be >= 0")
        person.age = age
    '''
    assert _run(GUARDED, new) == []


def test_guard_moved_to_called_helper_is_fine() -> None:
    new = """
    def _check_age(value):
        if not isinstance(value, int):
            raise TypeError("age must be an int")
        if value < 0:
            raise ValueError("age must be >= 0")

    def set_age(person, age):
        _check_age(age)
        person.age = age
    """
    assert _run(GUARDED, new) == []


def test_guard_moved_into_the_parameter_type_is_fine() -> None:
    new = """
    def set_age(person, age: PositiveInt):
        person.age = age
    """
    assert _run(GUARDED, new) == []


def test_guards_merged_or_exception_changed_are_fine() -> None:
    new = """
    def set_age(person, age):
        if not isinstance(age, int) or age < 0:
            raise InvalidAge("age must be a non-negative int")
        person.age = age
    """
    assert _run(GUARDED, new) == []


def test_annotations_added_without_any_are_fine() -> None:
    new = """
    def set_age(person: "Person", age: int) -> None:
        if not isinstance(age, int):
            raise TypeError("age must be an int")
        if age < 0:
            raise ValueError("age must be >= 0")
        person.age = age
    """
    assert _run(GUARDED, new) == []


def test_existing_type_ignore_and_any_on_a_renamed_line_are_not_new() -> None:
    old = """
    from typing import Any

    def load(raw: Any) -> None:
        value = raw.x  # type: ignore[attr-defined]
        keep(value)
    """
    new = """
    from typing import Any

    def load(payload: Any) -> None:
        item = payload.x  # type: ignore[attr-defined]
        keep(item)
    """
    assert _run(old, new) == []


def test_unparsable_old_side_counts_as_absent() -> None:
    new = """
    def f(x):  # type: ignore
        return x
    """
    findings = _run("def f(x:\n", new)
    assert _rules(findings) == [("type-ignore-added", 1)]


def test_deleted_and_non_python_files_give_nothing() -> None:
    assert _run(GUARDED, None) == []
    change = change_from_texts("notes.txt", "a\n", "b  # type: ignore\n")
    assert list(CRITIC.check([change])) == []


def test_source_with_a_nul_byte_is_skipped_with_reason() -> None:
    change = change_from_texts("src/app/core.py", "x = 1\n", "x = '\0'\0\n")
    results = list(CRITIC.check([change]))
    assert len(results) == 1
    assert isinstance(results[0], Skipped)
    assert "does not parse" in results[0].reason


def test_unparsable_new_side_is_skipped_with_reason() -> None:
    change = change_from_texts("src/app/core.py", "x = 1\n", "def broken(:\n")
    results = list(CRITIC.check([change]))
    assert len(results) == 1
    skipped = results[0]
    assert isinstance(skipped, Skipped)
    assert skipped.path == "src/app/core.py"
    assert skipped.topic is Topic.BOUNDARY_TYPING
    assert "does not parse" in skipped.reason


def test_removing_one_of_two_identical_guards_is_caught() -> None:
    old = """
    def decode(data, curr):
        for x in data:
            if x == 1:
                if curr:
                    raise ValueError("z inside tuple")
                emit(0)
            elif x == 2:
                if curr:
                    raise ValueError("y inside tuple")
                emit(1)
    """
    new = """
    def decode(data, curr):
        for x in data:
            if x == 1:
                emit(0)
            elif x == 2:
                if curr:
                    raise ValueError("y inside tuple")
                emit(1)
    """
    findings = _run(old, new)
    assert _rules(findings) == [("validation-guard-removed", 4)]
    assert "(old line 4)" in findings[0].claim


def test_guard_on_one_parameter_does_not_cover_another() -> None:
    old = """
    def pack(raw, raw_le):
        if len(raw) != 16:
            raise ValueError("raw must be 16 bytes")
        if len(raw_le) != 16:
            raise ValueError("raw_le must be 16 bytes")
        return raw + raw_le
    """
    new = """
    def pack(raw, raw_le):
        if len(raw) != 16:
            raise ValueError("raw must be 16 bytes")
        return raw + raw_le
    """
    findings = _run(old, new)
    assert _rules(findings) == [("validation-guard-removed", 4)]
    assert "`len(raw_le) != 16`" in findings[0].claim


def test_isinstance_in_a_multiline_condition_replaced_by_true() -> None:
    old = """
    def close(self):
        if (self._stack or self._parser is None or
                isinstance(self._parser, Closed)):
            return
        self.feed(b"")
    """
    new = """
    def close(self):
        if (self._stack or self._parser is None or
                True):
            return
        self.feed(b"")
    """
    findings = _run(old, new)
    assert _rules(findings) == [("isinstance-replaced-by-constant", 2)]
    assert findings[0].end_line == 3


def test_rewritten_guard_conditions_are_not_removals() -> None:
    old = """
    class Offset:
        def __init__(self, m, w, d, julian):
            if not (0 + julian) <= d <= 365:
                raise ValueError("d out of range")
            if not 0 < m <= 12:
                raise ValueError("m must be in (0, 12]")
            if not 0 < w <= 5:
                raise ValueError("w must be in (0, 5]")
            self.m, self.w, self.d = m, w, d
    """
    new = """
    class Offset:
        def __init__(self, m, w, d, julian):
            min_day = 0 + julian
            if not min_day <= d <= 365:
                raise ValueError("d out of range")
            if not 1 <= m <= 12:
                raise ValueError("m must be in [1, 12]")
            if not 1 <= w <= 5:
                raise ValueError("w must be in [1, 5]")
            self.m, self.w, self.d = m, w, d
    """
    assert _run(old, new) == []


def test_guard_on_a_renamed_local_is_not_a_removal() -> None:
    old = """
    def check(params):
        kind_defaults = False
        for param in params:
            if param.default is None and kind_defaults:
                raise ValueError("non-default after default")
            kind_defaults = param.default is not None
    """
    new = """
    def check(params):
        seen_default = False
        for param in params:
            if param.default is None and seen_default:
                raise ValueError("non-default after default")
            seen_default = param.default is not None
    """
    assert _run(old, new) == []


def test_refusing_a_primitive_type_is_not_validating_one() -> None:
    new = """
    def filter_for(self, spec):
        if isinstance(spec, str):
            raise TypeError("pass a function, not a name")
        return spec
    """
    assert _run(None, new) == []


def test_guard_moved_to_a_method_of_the_same_class_is_fine() -> None:
    old = """
    class Account:
        def deposit(self, amount):
            if amount <= 0:
                raise ValueError("positive amounts only")
            self.balance += amount
    """
    new = """
    class Account:
        def _check_amount(self, amount):
            if amount <= 0:
                raise ValueError("positive amounts only")

        def deposit(self, amount):
            self._check_amount(amount)
            self.balance += amount
    """
    assert _run(old, new) == []


def test_same_named_method_of_another_object_is_no_helper() -> None:
    old = """
    class Builder:
        def start(self, node):
            val = self.filter.start(node)
            if val not in ALLOWED:
                raise ValueError("illegal value")
            return val
    """
    new = """
    class Builder:
        def start(self, node):
            val = self.filter.start(node)
            return val
    """
    assert _rules(_run(old, new)) == [("validation-guard-removed", 4)]


def test_runs_through_the_registry_and_honours_a_waiver() -> None:
    old = _src(GUARDED)
    new = _src(
        """
        def set_age(person, age):
            if not isinstance(age, int):
                raise TypeError("age must be an int")
            # contend: allow boundary-typing -- range checked by the schema
            person.age = age
            return person.raw  # type: ignore
        """
    )
    result = run_static([change_from_texts("src/app/core.py", old, new)], "static:boundary-typing")
    assert [(f.rule, f.start_line, f.waived) for f in result.findings] == [
        ("validation-guard-removed", 4, True),
        ("type-ignore-added", 6, False),
    ]
    assert result.findings[0].waiver_reason == "range checked by the schema"
    assert result.skipped == []


HAZARDS = """
from typing import Any, cast


class Loader:
    def load(self, raw: Any) -> Any:
        if not isinstance(raw, bytes):
            raise TypeError("bytes expected")
        return cast(Any, raw.decode())  # type: ignore

    def _size(self, name):
        if not isinstance(name, str) or len(name) == 0:
            raise ValueError("bad name")
        return len(name)
"""


def test_code_moved_or_class_renamed_introduces_nothing() -> None:
    old = _src(HAZARDS)
    # the hazards are there to be found: added from scratch, each is reported (but `Any`
    # on brand-new code is no widening: it had no annotation before)
    as_new = _run(None, HAZARDS, path="src/app/loader.py")
    assert {f.rule for f in as_new} == {
        "cast-to-any-added",
        "type-ignore-added",
        "primitive-validated-in-core",
    }
    head, body = old.split("class Loader:\n")
    renamed = head + "\ndef helper():\n    return 1\n\n\nclass Reader:\n" + body
    change = change_from_texts("src/app/loader.py", old, renamed)
    assert list(CRITIC.check([change])) == []
    first, second = body.split("\n\n")
    reordered = head + "class Loader:\n" + second + "\n\n" + first + "\n"
    change = change_from_texts("src/app/loader.py", old, reordered)
    assert list(CRITIC.check([change])) == []


def test_form_feed_does_not_shift_type_ignore_lines() -> None:
    # git and the AST count lines at "\n" only; str.splitlines() also breaks at a form feed
    old = "import os\n\x0c\ndef f(a):\n    return a.b\n"
    new = "import os\n\x0c\ndef f(a):\n    return a.b  # type: ignore\n"
    change = FileChange(
        path="src/app/core.py",
        old_path=None,
        status="modified",
        old_text=old,
        new_text=new,
        added_lines=frozenset({4}),
        removed_lines=frozenset({4}),
        language="python",
    )
    findings = list(CRITIC.check([change]))
    assert [(f.rule, f.start_line) for f in findings if isinstance(f, Finding)] == [
        ("type-ignore-added", 4)
    ]


def test_an_annotated_shared_ast_singleton_does_not_break_the_isinstance_rule() -> None:
    """bandit annotates the AST singletons every parse shares (`ast.Load()`); a later
    deep copy would walk into that annotation. The critic must copy structurally."""
    import ast

    from contend.critics.static import boundary_typing as bt
    from contend.critics.static.testing import change_from_texts

    deep: ast.AST = ast.parse("x = 1")
    for _ in range(3000):
        deep = ast.Expr(value=ast.List(elts=[deep], ctx=ast.Load()))
    load = ast.parse("y", mode="eval").body.ctx  # type: ignore[attr-defined]
    load._bandit_parent = deep
    try:
        old = "def f(x):\n    if isinstance(x, str) and x:\n        return x\n    return ''\n"
        new = "def f(x):\n    if True and x:\n        return x\n    return ''\n"
        findings = list(bt.CRITIC.check([change_from_texts("lib/m.py", old, new)]))
    finally:
        del load._bandit_parent
    assert [f.rule for f in findings if hasattr(f, "rule")] == ["isinstance-replaced-by-constant"]


# --- issue 8: what erodes a boundary, judged by what was there before ----------------------


def test_ignore_whose_code_is_a_lint_rule_is_not_raised() -> None:
    old = "def f(a):\n    return helper(a)\n"
    for comment in (
        "# type: ignore[no-untyped-call]",
        "# type: ignore[import-untyped]",
        "# type: ignore[unused-ignore]",
        "# pyright: ignore[reportPrivateUsage]",
        "# pyright: ignore[reportMissingTypeStubs, reportUnknownMemberType]",
    ):
        new = f"def f(a):\n    return helper(a)  {comment}\n"
        assert _run(old, new) == [], comment


def test_bare_ignore_narrowed_to_a_code_is_not_raised() -> None:
    old = "def f(a):\n    return a.b  # type: ignore\n"
    for narrowed in ("# type: ignore[attr-defined]", "# type: ignore[attr-defined, union-attr]"):
        new = f"def f(a):\n    return a.b  {narrowed}\n"
        assert _run(old, new) == [], narrowed
    coded = "def f(a):\n    return a.b  # type: ignore[attr-defined]\n"
    assert _rules(_run(coded, old)) == [("type-ignore-added", 2)]  # widened to a blanket


def test_ignore_on_a_wrong_call_inside_a_raises_block_is_not_raised() -> None:
    old = """
    import pytest

    def test_rejects_text():
        pass
    """
    new = """
    import pytest

    def test_rejects_text():
        with pytest.raises(TypeError):
            parse_amount(12)  # type: ignore[arg-type]
    """
    assert _run(old, new, path="tests/test_money.py") == []
    # The raises block is what decides, also outside a test file (a self-check module).
    assert _run(old, new, path="src/app/selfcheck.py") == []
    outside = new.replace("    with pytest.raises(TypeError):\n    ", "")
    outside = outside.replace("# type: ignore[arg-type]", "# type: ignore")
    assert _rules(_run(old, outside, path="src/app/selfcheck.py")) == [("type-ignore-added", 4)]


def test_any_annotation_moved_verbatim_to_another_file_is_not_raised() -> None:
    mod_old = "from typing import Any\n\n\ndef load(raw: Any) -> dict[str, Any]:\n    return {}\n"
    mod_new = "from .io import load\n"
    io_new = "from typing import Any\n\n\ndef load(raw: Any) -> dict[str, Any]:\n    return {}\n"
    changes = [
        change_from_texts("src/app/core.py", mod_old, mod_new),
        change_from_texts("src/app/io.py", None, io_new),
    ]
    assert [f for f in CRITIC.check(changes) if isinstance(f, Finding)] == []


def test_typing_sweep_that_keeps_any_is_not_raised() -> None:
    old = """
    from typing import Any, Dict, Optional

    def load(raw: Optional[Any], opts: Dict[str, Any]) -> Dict[str, Any]:
        return {}
    """
    new = """
    from typing import Any

    def load(raw: Any | None, opts: dict[str, Any]) -> dict[str, Any]:
        return {}
    """
    assert _run(old, new) == []


def test_any_on_previously_unannotated_code_is_not_raised() -> None:
    old = "def load(raw, opts=None):\n    return raw\n"
    new = (
        "from typing import Any\n\n\ndef load(raw: Any, opts: Any = None) -> Any:\n    return raw\n"
    )
    assert _run(old, new) == []


def test_any_replacing_a_precise_annotation_is_minor_with_its_symbol() -> None:
    old = "class Store:\n    def put(self, raw: bytes) -> None:\n        pass\n"
    new = "class Store:\n    def put(self, raw: Any) -> None:\n        pass\n"
    [finding] = _run(old, new)
    assert (finding.rule, finding.severity, finding.symbol) == (
        "any-annotation-added",
        Severity.MINOR,
        "Store.put",
    )
    assert "bytes" in finding.claim
    assert not any("raise" in way for way in finding.ways_out)


def test_validation_in_a_public_functions_own_helper_is_not_raised() -> None:
    new = """
    def request(method, url):
        _check_url(url)
        return send(method, url)


    def _check_url(url):
        if not isinstance(url, str) or len(url) == 0:
            raise ValueError("bad url")
    """
    assert _run(None, new, path="src/client/sessions.py") == []
    helper = new.replace("_check_url", "_ensure_url_text").replace("def _ensure", "def _ensure")
    assert _run(None, helper.replace("_ensure_url_text", "_url_ok"), path="src/client/s.py") == []


def test_a_test_assertion_is_not_an_input_guard() -> None:
    old = """
    def test_parse():
        value = parse("1")
        assert isinstance(value, int)
        assert value == 1
    """
    new = """
    def test_parse():
        value = parse("1")
        assert value == 1
    """
    assert _run(old, new, path="tests/test_parse.py") == []


def test_removed_isinstance_branch_falling_through_to_str_is_caught() -> None:
    old = """
    def to_text(value):
        if isinstance(value, str):
            return value
        if isinstance(value, bytes):
            raise TypeError("decode bytes before calling to_text")
        return str(value)
    """
    new = """
    def to_text(value):
        if isinstance(value, str):
            return value
        return str(value)
    """
    [finding] = _run(old, new)
    assert (finding.rule, finding.severity) == ("validation-guard-removed", Severity.MAJOR)
    assert finding.symbol == "to_text"


def test_else_raise_of_a_type_dispatch_replaced_by_a_generic_return_is_caught() -> None:
    old = """
    def to_text(value):
        if isinstance(value, str):
            return value
        elif isinstance(value, int):
            return str(value)
        else:
            raise TypeError(f"unsupported type {type(value).__name__}")
    """
    new = """
    def to_text(value):
        if isinstance(value, str):
            return value
        elif isinstance(value, int):
            return str(value)
        else:
            return str(value)
    """
    [finding] = _run(old, new)
    assert finding.rule == "validation-guard-removed"
    assert "TypeError" in (finding.old_evidence or "")
    assert "str(value)" in finding.claim


def test_a_raise_turned_into_a_default_is_reported_once_by_the_more_specific_rule() -> None:
    old = "def age(x):\n    if x < 0:\n        raise ValueError('negative')\n    return x\n"
    new = "def age(x):\n    if x < 0:\n        return None\n    return x\n"
    both = run_static([change_from_texts("src/app/core.py", old, new)])
    assert [(f.topic.value, f.rule) for f in both.findings] == [
        ("silent-fallback", "raise-to-default")
    ]


def test_named_parameter_absorbed_into_kwargs_any_read_key_by_key_is_raised() -> None:
    old = """
    def parse(environ, silent=True, cls=None):
        return Parser(silent=silent, cls=cls).run(environ)
    """
    new = """
    import typing as t

    def parse(environ, silent=True, **kwargs: t.Any):
        options = {"silent": silent}
        if "cls" in kwargs:
            options["cls"] = kwargs["cls"]
        return Parser(**options).run(environ)
    """
    [finding] = _run(old, new)
    assert finding.rule == "any-annotation-added"
    assert "`cls`" in finding.claim and "misspelled" in finding.claim
    forwarded = new.replace(
        '        if "cls" in kwargs:\n            options["cls"] = kwargs["cls"]\n', ""
    ).replace("Parser(**options)", "Parser(**options, **kwargs)")
    assert _run(old, forwarded) == []


def test_any_replacing_a_free_type_variable_is_not_raised() -> None:
    old = """
    import typing

    _T = typing.TypeVar("_T")

    def dump(obj: typing.Union[_T, typing.Iterable[_T]]) -> _T:
        return obj
    """
    new = old.replace("obj: typing.Union[_T, typing.Iterable[_T]]", "obj: typing.Any")
    assert _run(old, new) == []
    bound = old.replace('TypeVar("_T")', 'TypeVar("_T", bound=int)')
    assert _rules(_run(bound, new.replace('TypeVar("_T")', 'TypeVar("_T", bound=int)'))) == [
        ("any-annotation-added", 5)
    ]


def test_raise_message_moved_into_a_variable_is_the_same_guard() -> None:
    # ruff's EM101 sweep: `raise TypeError("...")` -> `msg = "..."; raise TypeError(msg)`
    old = """
    def make(attrs):
        if isinstance(attrs, dict):
            return attrs
        elif isinstance(attrs, (list, tuple)):
            return dict.fromkeys(attrs)
        else:
            raise TypeError("attrs must be a dict or a list")
    """
    new = old.replace(
        '            raise TypeError("attrs must be a dict or a list")',
        '            msg = "attrs must be a dict or a list"\n            raise TypeError(msg)',
    )
    assert _run(old, new) == []
    fall = """
    def to_text(value):
        if isinstance(value, str):
            return value
        raise TypeError("no")
    """
    moved = fall.replace('raise TypeError("no")', 'msg = "no"\n        raise TypeError(msg)')
    assert _run(fall, moved) == []


SEND_FILE = """
def send_file(path_or_file, mimetype=None, attachment_filename=None):
    if attachment_filename is None and not isinstance(path_or_file, str):
        raise TypeError("Unable to detect the filename; pass attachment_filename")
    file = open(path_or_file) if isinstance(path_or_file, str) else path_or_file
    if isinstance(file, io.TextIOBase):
        raise ValueError("Files must be opened in binary mode")
    if mimetype is None:
        mimetype = guess(attachment_filename or path_or_file)
    return make_response(path_or_file, mimetype)
"""


def test_a_guard_of_a_function_turned_into_a_wrapper_of_its_namesake_is_minor() -> None:
    # flask: send_file's implementation moved to werkzeug.utils.send_file (guards with it,
    # labelled FALSE on the real commit); the critic cannot read the other library, so the
    # removal is not demonstrated — but it stays visible: a new wrapper must not hide a
    # guard dropped for good.
    new = """
    import werkzeug.utils

    def send_file(path_or_file, mimetype=None, attachment_filename=None):
        return werkzeug.utils.send_file(
            path_or_file, mimetype=mimetype, download_name=attachment_filename
        )
    """
    findings = _run(SEND_FILE, new)
    assert [f.rule for f in findings] == ["validation-guard-removed"] * 2
    assert all(f.severity is Severity.MINOR for f in findings)
    assert all("werkzeug.utils.send_file" in f.claim for f in findings)


def test_a_wrapper_forwarding_only_some_arguments_keeps_a_local_guard_blocking() -> None:
    new = """
    import werkzeug.utils

    def send_file(path_or_file, mimetype=None, attachment_filename=None):
        return werkzeug.utils.send_file(path_or_file, download_name=attachment_filename)
    """
    # The guard on `attachment_filename` / `path_or_file` may have moved with them (minor);
    # the one on the local `file` (derived from every argument) did not: `mimetype` is not
    # forwarded, so it still blocks.
    findings = _run(SEND_FILE, new)
    assert sorted(f.severity.value for f in findings) == ["major", "minor"]
    [major] = [f for f in findings if f.severity.value == "major"]
    assert "isinstance(file, io.TextIOBase)" in major.claim


def test_a_guard_removed_from_a_function_calling_another_function_still_blocks() -> None:
    new = """
    def send_file(path_or_file, mimetype=None, attachment_filename=None):
        return make_response(path_or_file, mimetype or guess(path_or_file))
    """
    findings = _run(SEND_FILE, new)
    assert [f.rule for f in findings] == ["validation-guard-removed"] * 2
    assert all(f.severity is Severity.MAJOR for f in findings)
