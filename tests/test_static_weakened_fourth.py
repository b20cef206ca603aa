"""Test-weakening precision on real commits, fourth pass (issue 8): families of false alarms
the sixth holdout showed, each as the reasoning that was wrong — and the real weakening of
the same shape, still reported."""

from __future__ import annotations

import textwrap

from contend.critics.static.base import FileChange, Finding, Topic
from contend.critics.static.runner import run_static
from contend.critics.static.testing import change_from_texts
from contend.critics.static.weakened_tests import CRITIC

PATH = "tests/test_app.py"


def _src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _change(path: str, old: str | None, new: str | None) -> FileChange:
    return change_from_texts(
        path, _src(old) if old is not None else None, _src(new) if new is not None else None
    )


def _run(old: str | None, new: str | None, path: str = PATH) -> list[Finding]:
    return [r for r in CRITIC.check([_change(path, old, new)]) if isinstance(r, Finding)]


def _rules(findings: list[Finding]) -> list[str]:
    return sorted(f.rule for f in findings)


# ------------------------------------------- tests deleted with the module they test

# tornado 45d9f6d0a23f: `stack_context` deleted whole; the tests of ExceptionStackContext
# go with it. The deleted module is not reviewed (no new side), so only its old text says
# what the change removed.
_CONTEXT_MODULE = """
class ExceptionStackContext:
    def __init__(self, handler):
        self.handler = handler


def wrap(fn):
    return fn
"""

_CLIENT = """
def fetch(url, callback=None):
    return url
"""

_TESTS_OLD = """
from app.client import fetch
from app.stack_context import ExceptionStackContext


def test_fetch():
    assert fetch("/a") == "/a"


def test_streaming_stack_context():
    errors = []
    with ExceptionStackContext(errors.append):
        fetch("/chunk", callback=lambda chunk: 1 / 0)
    assert len(errors) == 1
"""

_TESTS_NEW = """
from app.client import fetch


def test_fetch():
    assert fetch("/a") == "/a"
"""


def _static(changes: list[FileChange], deleted: list[FileChange]) -> list[Finding]:
    result = run_static(changes, [Topic.TEST_WEAKENING], moved_from=deleted)
    return result.findings


def test_a_test_deleted_with_the_module_it_tests_is_not_reported() -> None:
    tests = _change(PATH, _TESTS_OLD, _TESTS_NEW)
    gone = _change("app/stack_context.py", _CONTEXT_MODULE, None)
    assert _static([tests], [gone]) == []


def test_a_test_deleted_while_the_module_it_tests_stays_is_still_reported() -> None:
    # The same deletion, but the module is still there (another file of the change is
    # deleted): what the test checked is no longer checked.
    tests = _change(PATH, _TESTS_OLD, _TESTS_NEW)
    other = _change("app/legacy.py", _CLIENT.replace("fetch", "old_fetch"), None)
    assert [f.rule for f in _static([tests], [other])] == ["test-deleted"]


def test_a_test_class_deleted_with_the_module_it_tests_is_not_reported() -> None:
    old = """
    from app.stack_context import wrap


    class TestWrap:
        def test_pre_wrap(self):
            assert wrap(len)("ab") == 2

        def test_pre_wrap_with_args(self):
            assert wrap(max)(1, 2) == 2


    def test_other():
        assert len("a") == 1
    """
    new = """
    def test_other():
        assert len("a") == 1
    """
    tests = _change(PATH, old, new)
    gone = _change("app/stack_context.py", _CONTEXT_MODULE, None)
    assert _static([tests], [gone]) == []
    kept = _change("app/legacy.py", _CLIENT, None)
    assert [f.rule for f in _static([tests], [kept])] == ["test-class-deleted"]


# ------------------------------------- an expected raise that became an expected log record

# tornado 45d9f6d0a23f, test_spawn_callback: a callback's error was re-raised by `wait()`;
# the change makes it logged, and the test now expects the log record around the same call
# (tornado's `ExpectLog`, a context manager named as an expectation, like `assertLogs`).
_SPAWN_OLD = """
from app import loop, log


class TestLoop:
    def test_spawn_callback(self):
        loop.add_callback(lambda: 1 / 0)
        with self.assertRaises(ZeroDivisionError):
            loop.wait()
        loop.spawn_callback(lambda: 1 / 0)
        with ExpectLog(log, "Exception in callback"):
            loop.wait()
"""


def test_a_raise_expectation_that_became_a_log_expectation_is_not_reported() -> None:
    new = _SPAWN_OLD.replace(
        "with self.assertRaises(ZeroDivisionError):",
        'with ExpectLog(log, "Exception in callback"):',
    )
    assert _run(_SPAWN_OLD, new) == []


def test_the_same_with_assert_logs_is_not_reported() -> None:
    new = _SPAWN_OLD.replace(
        "with self.assertRaises(ZeroDivisionError):", "with self.assertLogs(log):"
    )
    assert _run(_SPAWN_OLD, new) == []


def test_a_raise_expectation_dropped_around_its_call_is_still_reported() -> None:
    # The call is left bare: whatever it does now, nothing checks it.
    new = _SPAWN_OLD.replace(
        "        with self.assertRaises(ZeroDivisionError):\n            loop.wait()\n",
        "        loop.wait()\n",
    )
    assert _rules(_run(_SPAWN_OLD, new)) == ["assertion-removed"]


def test_a_log_expectation_around_another_call_does_not_excuse_a_dropped_raise() -> None:
    new = _SPAWN_OLD.replace(
        "        with self.assertRaises(ZeroDivisionError):\n            loop.wait()\n",
        '        loop.wait()\n        with ExpectLog(log, "stopped"):\n            loop.stop()\n',
    )
    assert _rules(_run(_SPAWN_OLD, new)) == ["assertion-removed"]


def test_an_expect_named_context_manager_counts_as_a_check() -> None:
    # Removing the only log expectation empties the test: it had a check.
    old = """
    from app import loop, log


    def test_logged():
        loop.add_callback(lambda: 1 / 0)
        with ExpectLog(log, "Exception in callback"):
            loop.wait()
    """
    expected = '        with ExpectLog(log, "Exception in callback"):\n            loop'
    new = old.replace(expected, "    loop")
    assert _rules(_run(old, new)) == ["assertions-reduced-to-zero"]


# ------------------------------------------------- a skip whose issue the test's head names

# dateutil 0a2b41b53339: `@pytest.mark.xfail` on a test whose first line is the comment
# "See GH #582 - when that is resolved, move this into test_resolve_imaginary".
_MONROVIA_OLD = """
import pytest


def test_monrovia():
    assert resolve(1) == 2
"""


def _xfailed(head: str) -> str:
    return _MONROVIA_OLD.replace(
        "def test_monrovia():\n", f"@pytest.mark.xfail\ndef test_monrovia():\n{head}"
    )


def test_a_skip_whose_test_names_its_issue_in_a_leading_comment_is_not_reported() -> None:
    head = "    # See GH #582 - when that is resolved, move this into test_resolve\n"
    assert _run(_MONROVIA_OLD, _xfailed(head)) == []


def test_a_skip_whose_test_names_its_issue_in_its_docstring_is_not_reported() -> None:
    head = '    """Known wrong until issue 582 is fixed."""\n'
    assert _run(_MONROVIA_OLD, _xfailed(head)) == []


def test_a_skip_with_a_comment_that_names_no_issue_is_still_reported() -> None:
    head = "    # the offset is wrong here\n"
    assert _rules(_run(_MONROVIA_OLD, _xfailed(head))) == ["skip-without-issue"]


def test_an_issue_named_further_down_the_test_does_not_excuse_the_skip() -> None:
    new = _xfailed("").replace(
        "    assert resolve(1) == 2\n", "    assert resolve(1) == 2\n    # see #582 for resolve\n"
    )
    assert _rules(_run(_MONROVIA_OLD, new)) == ["skip-without-issue"]


# ------------------------------------- one-case tests folded into a table of the same kind

# dateutil 0a2b41b53339: ImaginaryDateTest's one-date tests became parametrized functions
# over a table of dates in the same zones (other dates, more of them).
_IMAGINARY_OLD = """
import unittest
from datetime import datetime

from dateutil import tz


class ImaginaryDateTest(unittest.TestCase):
    def testNew_YorkExisting(self):
        tzi = tz.gettz('America/New_York')
        dt = datetime(1986, 7, 5, 1, 00, tzinfo=tzi)
        dtnew = tz.resolve_imaginary(dt)
        self.assertIs(dt, dtnew)

    def testLondonExisting(self):
        tzi = tz.gettz('Europe/London')
        dt = datetime(2001, 1, 1, 1, 00, tzinfo=tzi)
        dtnew = tz.resolve_imaginary(dt)
        self.assertIs(dt, dtnew)

    def testOther(self):
        self.assertTrue(tz.gettz('UTC'))
"""

_IMAGINARY_NEW = """
import unittest
from datetime import datetime

import pytest

from dateutil import tz


class ImaginaryDateTest(unittest.TestCase):
    def testOther(self):
        self.assertTrue(tz.gettz('UTC'))


@pytest.mark.parametrize('dt', [
    datetime(2017, 6, 2, 12, 30, tzinfo=tz.gettz('America/New_York')),
    datetime(2018, 4, 2, 9, 30, tzinfo=tz.gettz('Europe/London')),
    datetime(2017, 12, 2, 12, 30, tzinfo=tz.gettz('America/New_York')),
])
def test_resolve_imaginary_existing(dt):
    assert tz.resolve_imaginary(dt) is dt
"""


def test_one_case_tests_folded_into_a_table_of_the_same_kind_are_not_reported() -> None:
    assert _run(_IMAGINARY_OLD, _IMAGINARY_NEW) == []


def test_a_case_of_another_kind_left_out_of_the_table_is_still_reported() -> None:
    # London is not in the table: the zone the old test checked is checked no more.
    new = _IMAGINARY_NEW.replace("tz.gettz('Europe/London')", "tz.gettz('Asia/Tokyo')")
    findings = _run(_IMAGINARY_OLD, new)
    assert [(f.rule, f.claim.split(":")[0]) for f in findings] == [
        ("test-deleted", "ImaginaryDateTest.testLondonExisting")
    ]


def test_a_table_of_another_check_does_not_cover_a_deleted_test() -> None:
    new = _IMAGINARY_NEW.replace(
        "assert tz.resolve_imaginary(dt) is dt", "assert tz.resolve_imaginary(dt) is not None"
    )
    assert _rules(_run(_IMAGINARY_OLD, new)) == ["test-deleted", "test-deleted"]


def test_a_one_case_parametrize_is_no_table() -> None:
    new = _IMAGINARY_NEW.replace(
        "    datetime(2018, 4, 2, 9, 30, tzinfo=tz.gettz('Europe/London')),\n"
        "    datetime(2017, 12, 2, 12, 30, tzinfo=tz.gettz('America/New_York')),\n",
        "",
    )
    assert _rules(_run(_IMAGINARY_OLD, new)) == ["test-deleted", "test-deleted"]


# --------------------------------- a branch for an interpreter no longer supported, dropped

# yarl 5bbbe2eb8bd7: `if sys.version_info >= (3, 9): <asserts> else: <asserts>` collapsed to
# the modern branch when old Pythons were dropped.
_VERSIONED_OLD = """
import sys

from yarl import URL


def test_no_scheme():
    u = URL("google.com:80")
    if sys.version_info >= (3, 9, 0):
        assert u.scheme == "google.com"
        assert u.host is None
        assert u.path == "80"
    else:
        assert u.scheme == ""
        assert u.host is None
        assert u.path == "google.com:80"
    assert u.query_string == ""
"""

_VERSIONED_NEW = """
from yarl import URL


def test_no_scheme():
    u = URL("google.com:80")
    assert u.scheme == "google.com"
    assert u.host is None
    assert u.path == "80"
    assert u.query_string == ""
"""


def test_the_branch_of_a_dropped_interpreter_version_is_not_reported() -> None:
    assert _run(_VERSIONED_OLD, _VERSIONED_NEW) == []


def test_a_check_dropped_from_the_kept_branch_is_still_reported() -> None:
    new = _VERSIONED_NEW.replace('    assert u.path == "80"\n', "")
    assert _rules(_run(_VERSIONED_OLD, new)) == ["assertion-removed"]


def test_a_collapsed_branch_on_another_condition_is_still_reported() -> None:
    old = _VERSIONED_OLD.replace("sys.version_info >= (3, 9, 0)", "u.port == 80")
    assert _rules(_run(old, _VERSIONED_NEW)) == ["assertion-removed"] * 3


def test_a_version_branch_without_else_removed_whole_is_still_reported() -> None:
    # Which interpreters the checks ran on cannot be told: a new Python's check may be lost.
    old = """
    import sys


    def test_feature():
        assert base() == 1
        if sys.version_info >= (3, 8):
            assert walrus() == 2
    """
    new = """
    def test_feature():
        assert base() == 1
    """
    assert _rules(_run(old, new)) == ["assertion-removed"]


# ------------------------------------------ checks moved into an inner test the test runs

# pytest-mock f3ab006926fe: test_deprecated_mock's asserts moved verbatim into the source of
# an inner test the outer test writes with `testdir.makepyfile` and runs with `runpytest`;
# the outer test asserts the run passed (and the deprecation warning).
_INNER_OLD = """
import os


def test_deprecated_mock(mock, tmpdir):
    mock.patch("os.listdir", return_value=["mocked"])
    assert os.listdir(str(tmpdir)) == ["mocked"]
    mock.stopall()
    assert os.listdir(str(tmpdir)) == []
"""

_INNER_NEW = """
import os


def test_deprecated_mock(testdir):
    p1 = testdir.makepyfile(
        '''
        import os

        def test(mock, tmpdir):
            mock.patch("os.listdir", return_value=["mocked"])
            assert os.listdir(str(tmpdir)) == ["mocked"]
            mock.stopall()
            assert os.listdir(str(tmpdir)) == []
        '''
    )
    result = testdir.runpytest(str(p1))
    result.stdout.fnmatch_lines(["*DeprecationWarning*"])
    assert result.ret == 0
"""


def test_checks_moved_into_an_inner_test_the_test_runs_are_not_reported() -> None:
    assert _run(_INNER_OLD, _INNER_NEW) == []


def test_a_check_left_out_of_the_inner_test_is_still_reported() -> None:
    new = _INNER_NEW.replace("            assert os.listdir(str(tmpdir)) == []\n", "")
    assert _rules(_run(_INNER_OLD, new)) == ["assertion-removed"]


def test_checks_in_a_string_the_test_never_runs_are_still_reported() -> None:
    new = _INNER_NEW.replace("testdir.runpytest(str(p1))", "testdir.tmpdir.join(str(p1))")
    assert _rules(_run(_INNER_OLD, new)) == ["assertion-removed"] * 2


# ---------------------------------------------- `type(x) == T` -> `isinstance(x, T)` (E721)

_TYPE_OLD = """
def test_request_attached():
    exc = run()
    assert type(exc.request) == PreparedRequest
"""


def test_an_exact_type_comparison_made_isinstance_is_not_reported() -> None:
    # responses 1be3a737b70a: the lint-recommended spelling (E721) of the same type check.
    spellings = ("type(exc.request) == PreparedRequest", "type(exc.request) is PreparedRequest")
    for spelling in spellings:
        old = _TYPE_OLD.replace("type(exc.request) == PreparedRequest", spelling)
        new = old.replace(spelling, "isinstance(exc.request, PreparedRequest)")
        assert _run(old, new) == []


def test_an_equality_with_a_value_made_isinstance_is_still_reported() -> None:
    old = _TYPE_OLD.replace("type(exc.request) == PreparedRequest", "exc.request == expected")
    new = old.replace("exc.request == expected", "isinstance(exc.request, PreparedRequest)")
    assert _rules(_run(old, new)) == ["assertion-weakened"]


def test_an_exact_type_made_isinstance_of_another_type_is_still_reported() -> None:
    new = _TYPE_OLD.replace(
        "type(exc.request) == PreparedRequest", "isinstance(exc.request, object)"
    )
    assert _rules(_run(_TYPE_OLD, new)) == ["assertion-weakened"]


# ------------------------- a test of deprecated behaviour, deleted when the change removes it

# tornado 45d9f6d0a23f, test_exception_in_callback: its body ran under `ignore_deprecation()`
# (it exercised stack_context, deprecated); the change deletes the deprecated module.
_DEPRECATED_MODULE = """
import warnings


class StackContext:
    def __init__(self):
        warnings.warn("StackContext is deprecated", DeprecationWarning)
"""

_CALLBACK_TESTS_OLD = """
from app.testing import AsyncTestCase, ignore_deprecation


class AsyncTestCaseTest(AsyncTestCase):
    def test_exception_in_callback(self):
        with ignore_deprecation():
            self.io_loop.add_callback(lambda: 1 / 0)
            with self.assertRaises(ZeroDivisionError):
                self.wait()

    def test_wait_timeout(self):
        self.assertEqual(self.wait(timeout=1), None)
"""

_CALLBACK_TESTS_NEW = """
from app.testing import AsyncTestCase


class AsyncTestCaseTest(AsyncTestCase):
    def test_wait_timeout(self):
        self.assertEqual(self.wait(timeout=1), None)
"""


def test_a_test_of_deprecated_behaviour_deleted_with_it_is_not_reported() -> None:
    tests = _change(PATH, _CALLBACK_TESTS_OLD, _CALLBACK_TESTS_NEW)
    gone = _change("app/stack_context.py", _DEPRECATED_MODULE, None)
    assert _static([tests], [gone]) == []


def test_a_test_under_ignore_deprecation_deleted_while_nothing_deprecated_goes_is_reported() -> (
    None
):
    tests = _change(PATH, _CALLBACK_TESTS_OLD, _CALLBACK_TESTS_NEW)
    other = _change("app/legacy.py", _CLIENT, None)
    assert [f.rule for f in _static([tests], [other])] == ["test-deleted"]


# ----------------------------- a test renamed for a rejection the change made a warning

# pytest-mock f623fa88211e: "Warn instead of raising exception in context manager";
# test_abort_patch_object_context_manager (raises ValueError, checks its message) became
# test_warn_patch_object_context_manager (warns, with `match=` on the message).
_ABORT_OLD = """
import pytest


def test_abort_patch_context_manager(mocker):
    with pytest.raises(ValueError) as excinfo:
        with mocker.patch("json.loads"):
            pass
    assert str(excinfo.value) == "not supported"


def test_other(mocker):
    assert mocker
"""

_WARN_NEW = """
import pytest


def test_warn_patch_context_manager(mocker):
    with pytest.warns(MockWarning, match="not needed") as record:
        with mocker.patch("json.loads"):
            pass
    assert record[0].filename == __file__


def test_other(mocker):
    assert mocker
"""


def test_a_test_renamed_for_a_rejection_made_a_warning_is_not_reported() -> None:
    assert _run(_ABORT_OLD, _WARN_NEW) == []


def test_the_renamed_test_that_no_longer_expects_anything_is_still_reported() -> None:
    new = _WARN_NEW.replace(
        '    with pytest.warns(MockWarning, match="not needed") as record:\n'
        '        with mocker.patch("json.loads"):\n            pass\n'
        "    assert record[0].filename == __file__\n",
        '    with mocker.patch("json.loads"):\n        pass\n    assert mocker\n',
    )
    assert _rules(_run(_ABORT_OLD, new)) == ["test-deleted"]


def test_a_warning_test_of_another_name_does_not_cover_the_deleted_one() -> None:
    new = _WARN_NEW.replace("test_warn_patch_context_manager", "test_loads_is_quiet")
    assert _rules(_run(_ABORT_OLD, new)) == ["test-deleted"]
