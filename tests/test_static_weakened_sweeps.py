"""Test-weakening when the change removes what a check read (issue 8): an attribute, an option
or a keyword the code under test no longer has anywhere. The check goes with it: nothing
that remains lost a check. The same shapes on behaviour that stays are still reported.
"""

from __future__ import annotations

from contend.critics.static.base import FileChange, Finding
from contend.critics.static.testing import change_from_texts
from contend.critics.static.weakened_tests import CRITIC

TESTS = "tests/test_checker.py"


def _check(*changes: FileChange) -> list[Finding]:
    return [r for r in CRITIC.check(list(changes)) if isinstance(r, Finding)]


MANAGER_OLD = """
class Manager:
    def __init__(self, jobs):
        self.jobs = jobs
        self.using_multiprocessing = jobs > 1

    def run(self):
        if self.using_multiprocessing:
            return "parallel"
        return "serial"
"""
MANAGER_NEW = """
class Manager:
    def __init__(self, jobs):
        self.jobs = jobs

    def run(self):
        if self.jobs > 1:
            return "parallel"
        return "serial"
"""
TEST_OLD = """
def test_serial_fall_back():
    manager = Manager(1)
    assert manager.run() == "serial"
    assert manager.using_multiprocessing is False
"""
TEST_NEW = """
def test_serial_fall_back():
    manager = Manager(1)
    assert manager.run() == "serial"
"""


def test_a_check_of_an_attribute_the_change_deletes_goes_with_it() -> None:
    # flake8: `Manager.using_multiprocessing` deleted from checker.py in the same commit.
    changes = [
        change_from_texts("src/flake8/checker.py", MANAGER_OLD, MANAGER_NEW),
        change_from_texts(TESTS, TEST_OLD, TEST_NEW),
    ]
    assert _check(*changes) == []


def test_a_check_of_an_attribute_that_stays_is_still_removed() -> None:
    changes = [
        change_from_texts("src/flake8/checker.py", MANAGER_OLD, MANAGER_OLD + "\n"),
        change_from_texts(TESTS, TEST_OLD, TEST_NEW),
    ]
    assert [f.rule for f in _check(*changes)] == ["assertion-removed"]


SETTINGS_OLD = """
class Config:
    combine_as_imports: bool = False
    keep_direct_and_as_imports: bool = True


def code(text, **options):
    return text
"""
SETTINGS_NEW = """
class Config:
    combine_as_imports: bool = False


def code(text, **options):
    return text
"""
OPTION_OLD = """
def test_multiple_as_imports():
    text = "from a import b as b\\n"
    output = code(text, combine_as_imports=True)
    assert output == "from a import b as b\\n"
    output = code(text, keep_direct_and_as_imports=False)
    assert output == "from a import b\\n"
"""
OPTION_NEW = """
def test_multiple_as_imports():
    text = "from a import b as b\\n"
    output = code(text, combine_as_imports=True)
    assert output == "from a import b as b\\n"
"""


def test_checks_of_an_option_the_change_removes_go_with_it() -> None:
    # isort: `keep_direct_and_as_imports` removed (now always on); the asserts on the
    # output computed with it set to False describe behaviour that no longer exists.
    changes = [
        change_from_texts("isort/settings.py", SETTINGS_OLD, SETTINGS_NEW),
        change_from_texts(TESTS, OPTION_OLD, OPTION_NEW),
    ]
    assert _check(*changes) == []
    # Still quoted, but only in the list of deprecated (ignored) settings: gone all the same.
    listed = SETTINGS_NEW + '\nDEPRECATED_SETTINGS = ("not_skip", "keep_direct_and_as_imports")\n'
    changes = [
        change_from_texts("isort/settings.py", SETTINGS_OLD, listed),
        change_from_texts(TESTS, OPTION_OLD, OPTION_NEW),
    ]
    assert _check(*changes) == []
    # Read by its name as a key, the option is still there.
    keyed = SETTINGS_NEW.replace("return text", 'return options.get("keep_direct_and_as_imports")')
    changes = [
        change_from_texts("isort/settings.py", SETTINGS_OLD, keyed),
        change_from_texts(TESTS, OPTION_OLD, OPTION_NEW),
    ]
    assert [f.rule for f in _check(*changes)] == ["assertion-removed"]
    kept = [
        change_from_texts("isort/settings.py", SETTINGS_OLD, SETTINGS_OLD + "\n"),
        change_from_texts(TESTS, OPTION_OLD, OPTION_NEW),
    ]
    assert [f.rule for f in _check(*kept)] == ["assertion-removed"]


# ------------------------------------------------------- membership made an equality


def test_membership_asserts_replaced_by_an_equality_on_the_same_list_are_not_removed() -> None:
    # pluggy: `assert p1 in hook_plugins` x3 -> `assert hook_plugins == [p1, p2]`: the
    # equality checks each member, their order, and that nothing else is there.
    old = """
    def test_get_hookimpls(pm):
        hook_plugins = pm.get_plugins()
        assert len(hook_plugins) == 2
        assert plugin1 in hook_plugins
        assert plugin2 in hook_plugins
        assert plugin3 not in hook_plugins
    """
    new = """
    def test_get_hookimpls(pm):
        hook_plugins = pm.get_plugins()
        assert hook_plugins == [plugin1, plugin2]
    """
    import textwrap

    change = change_from_texts(TESTS, textwrap.dedent(old), textwrap.dedent(new))
    assert _check(change) == []
    # An equality that leaves a member out does not imply its membership check.
    other = new.replace("[plugin1, plugin2]", "[plugin1]")
    change = change_from_texts(TESTS, textwrap.dedent(old), textwrap.dedent(other))
    claims = sorted((f.rule, f.claim.split("`")[1]) for f in _check(change))
    assert ("assertion-removed", "assert plugin2 in hook_plugins") in claims


# ------------------------------------------------ parametrize case given its own test


CASES_OLD = """
import pytest


@pytest.mark.parametrize("name", ["hookwrapper", "optionalhook", "tryfirst", "specname"])
def test_hookimpl(name):
    assert getattr(make(**{name: True}), name) is True
"""
CASES_NEW = """
import pytest


@pytest.mark.parametrize("name", ["hookwrapper", "optionalhook", "tryfirst"])
def test_hookimpl(name):
    assert getattr(make(**{name: True}), name) is True


def test_hookimpl_specname():
    assert make().specname is None
    assert make(specname="name").specname == "name"
"""


def test_a_parametrize_case_moved_to_a_new_test_named_after_it_is_not_lost() -> None:
    # pluggy: the `specname` case of test_hookimpl became test_hookimpl_specname.
    assert _check(change_from_texts(TESTS, CASES_OLD, CASES_NEW)) == []
    elsewhere = CASES_NEW.replace("test_hookimpl_specname", "test_hookimpl_defaults")
    lost = _check(change_from_texts(TESTS, CASES_OLD, elsewhere))
    assert [f.rule for f in lost] == ["parametrize-cases-removed"]


# ------------------------------------------------ unit-under-test-mocked: named after


def test_patching_a_call_named_later_in_the_test_name_is_not_mocking_the_unit() -> None:
    # gunicorn: `Worker.init_process` (the base, reached by super()) patched while
    # `ThreadWorker.init_process` runs for real in test_worker_init_process; aiohttp:
    # `loop.time` patched to drive test_keepalive_expires_on_time.
    old = """
    from unittest import mock


    class TestThreadWorker:
        def test_worker_init_process(self):
            worker = self.create_worker()
            worker.init_process()
            assert worker.tpool is not None
    """
    new = """
    from unittest import mock


    class TestThreadWorker:
        def test_worker_init_process(self):
            worker = self.create_worker()
            with mock.patch.object(base.Worker, "init_process"):
                worker.init_process()
            assert worker.tpool is not None
    """
    import textwrap

    change = change_from_texts(TESTS, textwrap.dedent(old), textwrap.dedent(new))
    assert _check(change) == []
    named = new.replace("test_worker_init_process", "test_init_process")
    change = change_from_texts(TESTS, textwrap.dedent(old), textwrap.dedent(named))
    assert [f.rule for f in _check(change)] == ["unit-under-test-mocked"]
