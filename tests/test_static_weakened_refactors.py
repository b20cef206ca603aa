"""Test-weakening on real refactors (issue 8): what a test checks is compared before and after
by the unit it calls, its assertions' targets and exceptions — not by which lines moved.

Each sample is the shape of a false alarm (or a miss) the critic raised on real commits.
"""

from __future__ import annotations

import textwrap

import pytest

from contend.critics.static.base import FileChange, Finding
from contend.critics.static.testing import change_from_texts
from contend.critics.static.weakened_tests import CRITIC
from contend.protocol.model import Severity

PATH = "tests/test_money.py"


def _src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _change(path: str, old: str | None, new: str | None) -> FileChange:
    return change_from_texts(
        path, _src(old) if old is not None else None, _src(new) if new is not None else None
    )


def _check(*changes: FileChange) -> list[Finding]:
    results = list(CRITIC.check(list(changes)))
    return [r for r in results if isinstance(r, Finding)]


def _run(old: str | None, new: str | None, path: str = PATH) -> list[Finding]:
    return _check(_change(path, old, new))


def _rules(findings: list[Finding]) -> list[str]:
    return sorted(f.rule for f in findings)


# --------------------------------------------------------------------------- parametrize

SEPARATE = """
from money import parse_amount


def test_parse_whole():
    assert parse_amount("12") == 1200


def test_parse_cents():
    assert parse_amount("12.34") == 1234


def test_parse_negative():
    assert parse_amount("-1") == -100
"""

MERGED = """
import pytest

from money import parse_amount


@pytest.mark.parametrize(
    ("text", "cents"),
    [
        ("12", 1200),
        ("12.34", 1234),
        pytest.param("-1", -100, id="negative"),
    ],
)
def test_parse(text, cents):
    assert parse_amount(text) == cents
"""


def test_tests_merged_into_a_parametrized_test_are_not_deleted() -> None:
    assert _run(SEPARATE, MERGED) == []


def test_merge_that_drops_a_case_still_reports_the_lost_test() -> None:
    lossy = MERGED.replace('        pytest.param("-1", -100, id="negative"),\n', "")
    [finding] = _run(SEPARATE, lossy)
    assert finding.rule == "test-deleted"
    assert "test_parse_negative" in finding.claim


def test_parametrized_test_split_into_separate_tests_is_not_deleted() -> None:
    assert _run(MERGED, SEPARATE) == []


def test_assertions_of_one_test_turned_into_cases_are_not_removed() -> None:
    old = """
    from money import parse_amount


    def test_parse():
        assert parse_amount("12") == 1200
        assert parse_amount("12.34") == 1234
    """
    assert _run(old, MERGED) == []


def test_parametrize_over_a_module_constant_covers_the_old_asserts() -> None:
    new = """
    import pytest

    from money import parse_amount

    CASES = [("12", 1200), ("12.34", 1234), ("-1", -100)]


    @pytest.mark.parametrize("text, cents", CASES)
    def test_parse(text, cents):
        assert parse_amount(text) == cents
    """
    assert _run(SEPARATE, new) == []


def test_parametrize_over_computed_cases_covers_same_shaped_asserts() -> None:
    new = """
    import pytest

    from money import parse_amount


    @pytest.mark.parametrize("text, cents", load_cases())
    def test_parse(text, cents):
        assert parse_amount(text) == cents
    """
    assert _run(SEPARATE, new) == []


def test_parametrize_conversion_that_weakens_the_check_is_reported() -> None:
    weaker = MERGED.replace("assert parse_amount(text) == cents", "assert parse_amount(text)")
    findings = _run(SEPARATE, weaker)
    assert findings, "a truthiness check does not cover three equality checks"


def test_loop_over_cases_with_subtest_covers_the_old_asserts() -> None:
    old = """
    import unittest

    from money import parse_amount


    class TestParse(unittest.TestCase):
        def test_parse(self):
            self.assertEqual(parse_amount("12"), 1200)
            self.assertEqual(parse_amount("12.34"), 1234)
    """
    new = """
    import unittest

    from money import parse_amount


    class TestParse(unittest.TestCase):
        def test_parse(self):
            for text, cents in [("12", 1200), ("12.34", 1234)]:
                with self.subTest(text=text):
                    self.assertEqual(parse_amount(text), cents)
    """
    assert _run(old, new) == []


# --------------------------------------------------------------------------- renamed, moved


def test_renamed_and_rewritten_test_keeping_its_checks_is_not_deleted() -> None:
    old = """
    def test_old_name(client):
        response = client.get("/health")
        assert response.status_code == 200
        assert response.json() == {"ok": True}
    """
    new = """
    def test_health_endpoint_reports_ok(client):
        resp = client.get("/health", headers={"Accept": "application/json"})
        assert resp.json() == {"ok": True}
        assert resp.status_code == 200
    """
    assert _run(old, new) == []


def test_test_moved_to_another_file_and_rewritten_is_not_deleted() -> None:
    old_a = """
    from money import parse_amount


    def test_parse_cents():
        value = parse_amount("12.34")
        assert value == 1234


    def test_other():
        assert 1 + 1 == 2
    """
    new_a = """
    def test_other():
        assert 1 + 1 == 2
    """
    new_b = """
    from money import parse_amount


    class TestParsing:
        def test_cents_are_parsed(self):
            assert parse_amount("12.34") == 1234
    """
    changes = [
        _change("tests/test_a.py", old_a, new_a),
        _change("tests/parsing/test_b.py", None, new_b),
    ]
    assert _check(*changes) == []


def test_duplicate_test_removed_while_its_twin_stays_is_not_a_deletion() -> None:
    old = SEPARATE + '\n\ndef test_parse_cents_again():\n    assert parse_amount("12.34") == 1234\n'
    assert _run(old, SEPARATE) == []


# --------------------------------------------------------------------------- inlined asserts


def test_assertion_inlined_into_its_expression_is_not_removed() -> None:
    old = """
    import re


    def test_pattern():
        match = re.match(PATTERN, "ab12")
        assert match
        assert match.group(1) == "12"
    """
    new = """
    import re


    def test_pattern():
        assert re.match(PATTERN, "ab12")
        assert re.match(PATTERN, "ab12").group(1) == "12"
    """
    assert _run(old, new) == []


def test_assertion_extracted_into_a_local_is_not_removed() -> None:
    old = """
    def test_total(cart):
        assert cart.total(tax=True) == 119
    """
    new = """
    def test_total(cart):
        total = cart.total(tax=True)
        assert total == 119
    """
    assert _run(old, new) == []


# --------------------------------------------------------------------------- raises / warns


def test_try_except_fail_replaced_by_pytest_raises_with_match_is_not_removed() -> None:
    old = """
    import pytest


    def test_rejects_garbage():
        try:
            parse_amount("x")
        except ValueError as exc:
            assert "not a number" in str(exc)
        else:
            pytest.fail("no error")
    """
    new = """
    import pytest


    def test_rejects_garbage():
        with pytest.raises(ValueError, match="not a number"):
            parse_amount("x")
    """
    assert _run(old, new) == []


def test_try_except_replaced_by_raises_without_the_message_check_is_reported() -> None:
    old = """
    def test_rejects_garbage():
        try:
            parse_amount("x")
        except ValueError as exc:
            assert "not a number" in str(exc)
        else:
            raise AssertionError("no error")
    """
    new = """
    import pytest


    def test_rejects_garbage():
        with pytest.raises(ValueError):
            parse_amount("x")
    """
    [finding] = _run(old, new)
    assert finding.rule == "assertion-weakened"
    assert "message" in finding.claim


def test_message_assert_on_excinfo_folded_into_match_is_not_removed() -> None:
    old = """
    import pytest


    def test_rejects_garbage():
        with pytest.raises(ValueError) as excinfo:
            parse_amount("x")
        assert "not a number" in str(excinfo.value)
    """
    new = """
    import pytest


    def test_rejects_garbage():
        with pytest.raises(ValueError, match="not a number"):
            parse_amount("x")
    """
    assert _run(old, new) == []


def test_unittest_exception_message_check_folded_into_assert_raises_regex() -> None:
    old = """
    import unittest


    class T(unittest.TestCase):
        def test_rejects(self):
            with self.assertRaises(ValueError) as cm:
                parse_amount("x")
            self.assertEqual(str(cm.exception), "not a number")
    """
    new = """
    import unittest


    class T(unittest.TestCase):
        def test_rejects(self):
            with self.assertRaisesRegex(ValueError, "^not a number$"):
                parse_amount("x")
    """
    assert _run(old, new) == []


def test_recorded_warnings_replaced_by_pytest_warns_with_match_is_not_removed() -> None:
    old = """
    import warnings


    def test_deprecated():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            old_api()
        assert len(caught) == 1
        assert issubclass(caught[0].category, DeprecationWarning)
        assert "use new_api" in str(caught[0].message)
    """
    new = """
    import pytest


    def test_deprecated():
        with pytest.warns(DeprecationWarning, match="use new_api"):
            old_api()
    """
    assert _run(old, new) == []


def test_pytest_warns_widened_to_warning_is_reported() -> None:
    old = """
    import pytest


    def test_deprecated():
        with pytest.warns(DeprecationWarning):
            old_api()
    """
    new = old.replace("pytest.warns(DeprecationWarning)", "pytest.warns(Warning)")
    [finding] = _run(old, new)
    assert finding.rule == "expected-exception-widened"


# --------------------------------------------------------------------------- removed units


def test_test_of_a_removed_private_helper_deleted_with_it_is_not_reported() -> None:
    source_old = """
    def _parse_cents(text):
        return int(text.replace(".", ""))


    def parse_amount(text):
        return _parse_cents(text)
    """
    source_new = """
    def parse_amount(text):
        return int(text.replace(".", ""))
    """
    tests_old = """
    from money import _parse_cents, parse_amount


    def test_parse_cents():
        assert _parse_cents("12.34") == 1234


    def test_parse_amount():
        assert parse_amount("1") == 1
    """
    tests_new = """
    from money import parse_amount


    def test_parse_amount():
        assert parse_amount("1") == 1
    """
    changes = [
        _change("src/money.py", source_old, source_new),
        _change(PATH, tests_old, tests_new),
    ]
    assert _check(*changes) == []


def test_test_ported_from_a_removed_helper_to_the_public_api_is_not_weakened() -> None:
    source_old = "def _cents(text):\n    return 1\n\n\ndef parse_amount(text):\n    return 1\n"
    source_new = "def parse_amount(text):\n    return 1\n"
    tests_old = """
    def test_cents():
        assert _cents("12.34") == 1234
        assert _cents("0.01") == 1
    """
    tests_new = """
    def test_parse_amount_cents():
        assert parse_amount("12.34") == 1234
        assert parse_amount("0.01") == 1
    """
    changes = [
        _change("src/money.py", source_old, source_new),
        _change(PATH, tests_old, tests_new),
    ]
    assert _check(*changes) == []


# --------------------------------------------------------------------------- skip conditions


@pytest.mark.parametrize(
    "condition",
    [
        "sys.version_info >= (3, 0)",
        "sys.version_info > (2, 7)",
        "sys.version_info < (4,)",
        "sys.platform != 'nonexistent-os' or True",
        "True or sys.platform == 'win32'",
        "sys.platform",
        "bool(sys.argv)",
        "'CI' in os.environ and sys.platform.startswith('linux') or True",
    ],
)
def test_skip_on_an_always_true_condition_mentioning_sys_is_reported(condition: str) -> None:
    old = "import os\nimport sys\n\n\ndef test_it():\n    assert f() == 1\n"
    new = old.replace(
        "def test_it():",
        f'@pytest.mark.skipif({condition}, reason="flaky")\ndef test_it():',
    )
    [finding] = _run(old, new)
    assert finding.rule == "skip-without-issue"


@pytest.mark.parametrize(
    "condition",
    [
        "sys.version_info < (3, 12)",
        "sys.platform == 'win32'",
        "sys.platform.startswith('win')",
        "not sys.platform.startswith('linux')",
        "sys.implementation.name == 'pypy'",
        "sys.maxsize <= 2**32",
        "platform.system() == 'Darwin'",
        "os.name == 'nt'",
        "not HAS_NUMPY",
        "importlib.util.find_spec('numpy') is None",
        "shutil.which('git') is None",
        "sys.platform == 'win32' and sys.version_info < (3, 12)",
    ],
)
def test_skip_on_a_real_environment_condition_is_not_reported(condition: str) -> None:
    old = "import os\nimport sys\n\n\ndef test_it():\n    assert f() == 1\n"
    new = old.replace(
        "def test_it():",
        f'@pytest.mark.skipif({condition}, reason="not here")\ndef test_it():',
    )
    assert _run(old, new) == []


# --------------------------------------------------------------------------- evidence shape


def test_deleted_test_code_appears_once_as_deleted() -> None:
    # Evidence and old side are the same text: the report prints it once, as deleted.
    old = SEPARATE
    new = SEPARATE.split("def test_parse_negative")[0].rstrip() + "\n"
    [finding] = _run(old, new)
    assert finding.rule == "test-deleted"
    assert finding.old_evidence is not None and "def test_parse_negative" in finding.old_evidence
    assert finding.evidence == finding.old_evidence
    assert finding.symbol == "test_parse_negative"
    assert (finding.severity, finding.confidence.value) == (Severity.MAJOR, "high")


def test_findings_carry_symbol_confidence_and_rule_specific_ways_out() -> None:
    old = "def test_it():\n    assert f() == 1\n"
    new = "def test_it():\n    assert f()\n"
    [finding] = _run(old, new)
    assert finding.symbol == "test_it"
    assert finding.confidence.value == "high"
    assert any("assert" in way for way in finding.ways_out)
    assert not any("raised, reported or tested" in way for way in finding.ways_out)


def test_test_of_behaviour_the_change_removed_goes_with_it() -> None:
    source_old = """
    def __getattr__(name):
        known = {"__title__": "Name", "__version__": "version"}
        if name not in known:
            raise AttributeError(name)
        return meta(known[name])
    """
    source_new = """
    def __getattr__(name):
        if name != "__version__":
            raise AttributeError(name)
        return meta("version")
    """
    tests_old = """
    def test_title(mod):
        assert mod.__title__ == "attrs"


    def test_version(mod):
        assert mod.__version__
    """
    tests_new = """
    def test_version(mod):
        assert mod.__version__
    """
    changes = [
        _change("src/pkg/__init__.py", source_old, source_new),
        _change(PATH, tests_old, tests_new),
    ]
    assert _check(*changes) == []
    # Without the source change the same deletion is a deletion.
    [finding] = _check(_change(PATH, tests_old, tests_new))
    assert finding.rule == "test-deleted"


def test_test_of_a_deprecation_the_change_ends_goes_with_it() -> None:
    source_old = """
    import warnings


    def evolve(*args, **changes):
        if not args:
            warnings.warn("pass the instance positionally", DeprecationWarning)
        return args
    """
    source_new = """
    def evolve(*args, **changes):
        return args
    """
    tests_old = """
    import pytest


    def test_positional():
        assert evolve(1) == (1,)


    def test_keyword_deprecated():
        with pytest.deprecated_call():
            evolve()
    """
    tests_new = """
    def test_positional():
        assert evolve(1) == (1,)
    """
    changes = [
        _change("src/pkg/funcs.py", source_old, source_new),
        _change(PATH, tests_old, tests_new),
    ]
    assert _check(*changes) == []


def test_test_ported_from_a_newly_deprecated_function_to_its_replacement() -> None:
    source_old = "def parse_header(value):\n    return Auth.from_header(value)\n"
    source_new = (
        "import warnings\n\n\ndef parse_header(value):\n"
        "    warnings.warn('use Auth.from_header', DeprecationWarning)\n"
        "    return Auth.from_header(value)\n"
    )
    tests_old = "def test_parse():\n    assert http.parse_header(None) is None\n"
    tests_new = "def test_parse():\n    assert Auth.from_header(None) is None\n"
    changes = [
        _change("src/pkg/http.py", source_old, source_new),
        _change(PATH, tests_old, tests_new),
    ]
    assert _check(*changes) == []


def test_removed_check_of_a_newly_deprecated_option_is_minor() -> None:
    source_old = "def make(cls=None):\n    return cls\n"
    source_new = (
        "import warnings\n\n\ndef make(**kwargs):\n    if 'cls' in kwargs:\n"
        "        warnings.warn(\"The 'cls' parameter is deprecated.\", DeprecationWarning)\n"
        "    return kwargs.get('cls')\n"
    )
    tests_old = "def test_make():\n    p = make(cls=dict)\n    assert p.cls is dict\n    assert p\n"
    tests_new = "def test_make():\n    p = make()\n    assert p\n"
    changes = [
        _change("src/pkg/parser.py", source_old, source_new),
        _change(PATH, tests_old, tests_new),
    ]
    [finding] = _check(*changes)
    assert (finding.rule, finding.severity) == ("assertion-removed", Severity.MINOR)
    assert "deprecates `cls`" in finding.claim


def test_test_of_a_member_its_module_dropped_goes_with_it() -> None:
    # `_Refresher` is gone from progress.py; live.py keeps a class of the same name.
    progress_old = "class _Refresher:\n    pass\n\n\nclass Progress:\n    pass\n"
    progress_new = "from .live import Live\n\n\nclass Progress:\n    pass\n"
    live = "class _Refresher:\n    pass\n\n\nclass Live:\n    pass\n"
    tests_old = (
        "from rich.progress import Progress, _Refresher\n\n\n"
        "def test_refresher():\n    assert _Refresher().alive\n\n\n"
        "def test_progress():\n    assert Progress()\n"
    )
    tests_new = (
        "from rich.progress import Progress\n\n\ndef test_progress():\n    assert Progress()\n"
    )
    changes = [
        change_from_texts("rich/progress.py", progress_old, progress_new),
        change_from_texts("rich/live.py", live, live + "\n"),
        change_from_texts(PATH, tests_old, tests_new),
    ]
    assert _check(*changes) == []


# --------------------------------------------------------------------------- moot checks


def test_checks_of_a_result_type_the_change_removed_are_moot() -> None:
    source_old = (
        "from collections import namedtuple\n\n"
        "LoadResult = namedtuple('LoadResult', ['data', 'errors'])\n\n\n"
        "def load(raw):\n    return LoadResult(raw, {})\n"
    )
    source_new = "def load(raw):\n    return raw\n"
    tests_old = (
        "def test_load():\n    data, errors = load(1)\n    assert data == 1\n"
        "    assert not errors\n"
    )
    tests_new = "def test_load():\n    data = load(1)\n    assert data == 1\n"
    changes = [
        _change("src/pkg/schema.py", source_old, source_new),
        _change(PATH, tests_old, tests_new),
    ]
    assert _check(*changes) == []
    # The test no longer unpacks the result at all: with the same asserts on another
    # name, dropping `assert not errors` is a removed assertion.
    kept = tests_new.replace("data = load(1)", "data, problems = load(1)")
    [finding] = _check(_change(PATH, tests_old, kept))
    assert finding.rule == "assertion-removed"


def test_value_checks_replaced_by_the_rejection_the_change_introduced_are_moot() -> None:
    old = """
    def test_invalid_only(user):
        schema = UserSchema(only=("_invalid", "name"))
        assert schema.dump(user) == {"name": "Monty"}
    """
    new = """
    import pytest


    def test_invalid_only(user):
        with pytest.raises(KeyError, match="_invalid"):
            UserSchema(only=("_invalid", "name")).dump(user)
    """
    assert _run(old, new) == []


def test_assert_false_replaced_by_a_raise_is_no_removal() -> None:
    old = """
    def test_timeout(proc):
        try:
            proc.wait(1)
        except TimeoutError:
            assert False, "timed out"
        assert proc.code == 0
    """
    new = """
    def test_timeout(proc):
        try:
            proc.wait(1)
        except TimeoutError:
            proc.kill()
            raise
        assert proc.code == 0
    """
    assert _run(old, new) == []


def test_renamed_test_whose_name_grew_is_paired_not_deleted() -> None:
    old = """
    def test_meta_field_not_on_obj(user):
        assert BadSchema().dump(user) == {"name": "Monty"}
    """
    new = """
    import pytest


    def test_meta_field_not_on_obj_raises_key_error(user):
        with pytest.raises(KeyError):
            BadSchema()
    """
    assert _run(old, new) == []


def test_reused_local_names_renamed_keep_their_checks() -> None:
    old = """
    def test_peek():
        p = peekable(range(2))
        assert p
        q = peekable(range(3))
        assert q
    """
    new = """
    def test_peek():
        p = peekable(range(2))
        assert p
        p = peekable(range(3))
        assert p
    """
    assert _run(old, new) == []


def test_a_warning_unpacked_from_the_record_is_part_of_the_expectation() -> None:
    old = """
    import warnings


    def test_legacy():
        with warnings.catch_warnings(record=True) as caught:
            legacy()
        (warning,) = caught
        assert warning.category == DeprecationWarning
    """
    new = """
    import warnings


    def test_legacy():
        with warnings.catch_warnings(record=True) as caught:
            legacy()
        assert caught[0].category == DeprecationWarning
    """
    assert _run(old, new) == []


def test_patching_the_dependency_of_a_same_named_unit_is_not_mocking_it() -> None:
    old = (
        "from pkg.pathlib import scandir\n\n\n"
        "def test_scan(tmp_path):\n    assert scandir(tmp_path) == []\n"
    )
    new = (
        "from unittest import mock\n\nfrom pkg.pathlib import scandir\n\n\n"
        "def test_scan(tmp_path):\n"
        '    with mock.patch("os.scandir", side_effect=OSError):\n'
        "        assert scandir(tmp_path) == []\n"
    )
    assert _run(old, new) == []


# --------------------------------------------------------------------------- evidence of rewrite


def test_deleted_test_next_to_new_tests_is_minor_and_says_why() -> None:
    old = "def test_combine():\n    assert combine(a, b) == c\n"
    new = "def test_chain():\n    assert chain(a, b) == c\n    assert chain() is None\n"
    [finding] = _run(old, new)
    assert (finding.rule, finding.severity) == ("test-deleted", Severity.MINOR)
    assert "may replace it" in finding.claim
    # A deletion with nothing added is a deletion.
    [finding] = _run(
        old + "\n\ndef test_other():\n    assert f()\n", "def test_other():\n    assert f()\n"
    )
    assert (finding.rule, finding.severity) == ("test-deleted", Severity.MAJOR)


def test_assertion_removed_from_a_rewritten_test_is_minor() -> None:
    old = "def test_load():\n    data = load()\n    assert data.size == 3\n    assert data.ok\n"
    new = "def test_load():\n    data = load()\n    assert data.ok\n    assert summary() == [1]\n"
    [finding] = _run(old, new)
    assert (finding.rule, finding.severity) == ("assertion-removed", Severity.MINOR)
    trimmed = "def test_load():\n    data = load()\n    assert data.ok\n"
    [finding] = _run(old, trimmed)
    assert (finding.rule, finding.severity) == ("assertion-removed", Severity.MAJOR)


def test_checks_of_an_unpacked_result_part_the_api_no_longer_returns_are_moot() -> None:
    old = """
    def test_load(schema, raw):
        data, errs = schema.load(raw.data)
        assert not errs
        assert list(data) == ["name"]


    def test_dump(schema, blog):
        _, errs = schema.dump(blog)
        assert "user" not in errs
    """
    new = """
    def test_load(schema, raw):
        data = schema.load(raw)
        assert list(data) == ["name"]


    def test_dump(schema, blog):
        schema.dump(blog)
    """
    assert _run(old, new) == []


def test_deleted_test_of_a_function_deprecated_while_another_warning_went_is_minor() -> None:
    # flask: safe_join starts warning in the same commit that moves send_file's own
    # deprecation warnings to werkzeug, so the module warns no more often than before.
    source_old = (
        "import warnings\n\n\ndef send_file(path, cache_timeout=None):\n"
        "    if cache_timeout is not None:\n"
        "        warnings.warn('cache_timeout is renamed', DeprecationWarning)\n"
        "    return path\n\n\ndef safe_join(a, b):\n    return a + b\n"
    )
    source_new = (
        "import warnings\n\n\ndef send_file(path):\n    return path\n\n\n"
        "def safe_join(a, b):\n"
        "    warnings.warn('use werkzeug.utils.safe_join', DeprecationWarning)\n"
        "    return a + b\n"
    )
    tests_old = (
        "def test_send():\n    assert send_file('x') == 'x'\n\n\n"
        "def test_safe_join():\n    assert safe_join('a', 'b') == 'ab'\n"
    )
    tests_new = "def test_send():\n    assert send_file('x') == 'x'\n"
    changes = [
        _change("src/pkg/helpers.py", source_old, source_new),
        _change(PATH, tests_old, tests_new),
    ]
    [finding] = _check(*changes)
    assert (finding.rule, finding.severity) == ("test-deleted", Severity.MINOR)
    assert "deprecates `safe_join`" in finding.claim


def test_deleted_test_class_of_a_newly_deprecated_function_is_minor() -> None:
    source_old = "def safe_join(a, b):\n    return a + b\n"
    source_new = (
        "import warnings\n\n\ndef safe_join(a, b):\n"
        "    warnings.warn('use werkzeug.utils.safe_join', DeprecationWarning)\n"
        "    return a + b\n"
    )
    tests_old = (
        "class TestSafeJoin:\n"
        "    def test_join(self):\n        assert safe_join('a', 'b') == 'ab'\n\n"
        "    def test_empty(self):\n        assert safe_join('', 'b') == 'b'\n\n\n"
        "def test_other():\n    assert True\n"
    )
    tests_new = "def test_other():\n    assert True\n"
    changes = [
        _change("src/pkg/helpers.py", source_old, source_new),
        _change(PATH, tests_old, tests_new),
    ]
    [finding] = _check(*changes)
    assert (finding.rule, finding.severity) == ("test-class-deleted", Severity.MINOR)
    assert "deprecates `safe_join`" in finding.claim
