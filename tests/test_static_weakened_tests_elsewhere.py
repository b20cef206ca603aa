"""test-weakening on real refactors: a check that moved to another test of the same change is
not removed, a test whose checks were split over other tests is not deleted — and a check
that only stood elsewhere already (not added by the change) is still reported."""

from __future__ import annotations

import textwrap

from contend.critics.static.base import Finding
from contend.critics.static.testing import change_from_texts
from contend.critics.static.weakened_tests import CRITIC

PATH = "tests/test_render.py"


def _src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _rules(old: str, new: str, *more: tuple[str, str, str]) -> list[tuple[str, str]]:
    changes = [change_from_texts(PATH, _src(old), _src(new))]
    changes += [change_from_texts(p, _src(o), _src(n)) for p, o, n in more]
    results = list(CRITIC.check(changes))
    assert all(isinstance(r, Finding) for r in results), results
    return sorted((f.rule, f.claim.split(":")[0]) for f in results if isinstance(f, Finding))


OLD_FINALIZE = """
def test_finalize(env):
    env.finalize = lambda v: "" if v is None else v
    assert env.from_string("{{ none }}").render() == ""
    assert env.from_string("{{ 1 }}").render() == "1"
"""


def test_an_assertion_moved_to_a_new_sibling_test_is_not_removed() -> None:
    new = """
    def test_finalize(env):
        env.finalize = lambda v: "" if v is None else v
        assert env.from_string("{{ 1 }}").render() == "1"


    def test_finalize_constant(environment):
        environment.finalize = lambda v: "" if v is None else v
        assert "" == environment.from_string("{{ none }}").render()
    """
    assert _rules(OLD_FINALIZE, new) == []


def test_an_assertion_moved_to_a_test_of_another_changed_file_is_not_removed() -> None:
    new = """
    def test_finalize(env):
        env.finalize = lambda v: "" if v is None else v
        assert env.from_string("{{ 1 }}").render() == "1"
    """
    other = (
        "tests/test_api.py",
        "def test_other():\n    assert True\n",
        "def test_other():\n    assert True\n\n\n"
        "def test_none(e):\n"
        '    assert e.from_string("{{ none }}").render() == ""\n',
    )
    assert _rules(OLD_FINALIZE, new, other) == []


def test_an_assertion_that_already_stood_in_another_test_is_still_removed() -> None:
    old = OLD_FINALIZE + _src("""


    def test_none(e):
        assert e.from_string("{{ none }}").render() == ""
    """)
    new = """
    def test_finalize(env):
        env.finalize = lambda v: "" if v is None else v
        assert env.from_string("{{ 1 }}").render() == "1"


    def test_none(e):
        assert e.from_string("{{ none }}").render() == ""
    """
    assert _rules(old, new) == [("assertion-removed", "test_finalize")]


def test_a_removed_assertion_matching_nothing_added_is_still_removed() -> None:
    new = """
    def test_finalize(env):
        env.finalize = lambda v: "" if v is None else v
        assert env.from_string("{{ 1 }}").render() == "1"


    def test_finalize_constant(environment):
        assert environment.from_string("{{ none }}").render() == "None"
    """
    assert _rules(OLD_FINALIZE, new) == [("assertion-removed", "test_finalize")]


def test_a_deleted_test_whose_checks_were_split_over_two_new_tests_is_not_deleted() -> None:
    old = """
    def test_finalizer(env):
        env.finalize = str
        assert env.from_string("{{ a }}").render(a=None) == "None"
        assert env.from_string("{{ 1 }}").render() == "1"
    """
    new = """
    def test_finalize(env):
        env.finalize = str
        assert env.from_string("{{ a }}").render(a=None) == "None"


    def test_finalize_constant_expression(env):
        env.finalize = str
        assert env.from_string("{{ 1 }}").render() == "1"
    """
    assert _rules(old, new) == []


def test_a_deleted_test_with_only_some_checks_elsewhere_is_still_deleted() -> None:
    old = """
    def test_finalizer(env):
        env.finalize = str
        assert env.from_string("{{ a }}").render(a=None) == "None"
        assert env.from_string("{{ 1 }}").render() == "1"
    """
    new = """
    def test_finalize(env):
        env.finalize = str
        assert env.from_string("{{ a }}").render(a=None) == "None"
    """
    # paired with test_finalize as a rename: its second check reads as removed
    assert _rules(old, new) == [("assertion-removed", "test_finalize (was test_finalizer)")]


def test_an_assertion_dedented_out_of_the_except_of_a_self_raised_exception_is_kept() -> None:
    old = """
    def test_format_exception():
        try:
            raise ValueError("test")
        except ValueError as e:
            a = format_exc_info(e)
            b = render(e)
            assert a == b
    """
    new = """
    def test_format_exception():
        try:
            raise ValueError("test")
        except ValueError as e:
            a = format_exc_info(e)
            b = render(e)

        assert a == b
    """
    assert _rules(old, new) == []


def test_an_expectation_of_the_code_under_test_dropped_from_a_try_is_still_removed() -> None:
    old = """
    def test_parse_rejects():
        try:
            parse("x")
        except ValueError as e:
            assert "bad" in str(e)
    """
    new = """
    def test_parse_rejects():
        parse("x")
    """
    assert [rule for rule, _ in _rules(old, new)] == ["assertions-reduced-to-zero"]
