"""The Python `test-weakening` critic: each rule caught at its line, benign edits left alone."""

from __future__ import annotations

import textwrap

import pytest

from contend.critics.static.base import FileChange, Finding, Skipped, Topic
from contend.critics.static.runner import run_static
from contend.critics.static.testing import change_from_texts
from contend.critics.static.weakened_tests import CRITIC
from contend.protocol.model import Severity

PATH = "tests/test_sync.py"


def _src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _change(old: str | None, new: str | None, path: str = PATH) -> FileChange:
    return change_from_texts(
        path, _src(old) if old is not None else None, _src(new) if new is not None else None
    )


def _check(*changes: FileChange) -> list[Finding]:
    results = list(CRITIC.check(list(changes)))
    assert all(isinstance(r, Finding) for r in results), results
    return [r for r in results if isinstance(r, Finding)]


def _run(old: str | None, new: str | None, path: str = PATH) -> list[Finding]:
    return _check(_change(old, new, path))


def _rules(findings: list[Finding]) -> list[tuple[str, int]]:
    return sorted((f.rule, f.start_line) for f in findings)


# --------------------------------------------------------------------------- unittest samples

UNITTEST_OLD = """
import unittest

from app.sync import GatewayTimeout, sync_budget


class TestSyncBudget(unittest.TestCase):
    def setUp(self):
        self.gateway = FakeGateway(balance=200)

    def test_sync_budget_verifies(self):
        result = sync_budget(self.gateway, user_id=7)
        self.assertEqual(result.status, "verified")
        self.assertEqual(result.amount, 200)

    def test_gateway_timeout_aborts(self):
        self.gateway.fail_with(GatewayTimeout())
        with self.assertRaises(GatewayTimeout):
            sync_budget(self.gateway, user_id=7)

    def test_ratio(self):
        self.assertAlmostEqual(budget_ratio(1, 3), 0.3333, places=4)
"""


def test_unittest_equality_loosened_to_membership_is_weakened() -> None:
    new = UNITTEST_OLD.replace(
        'self.assertEqual(result.status, "verified")',
        'self.assertIn(result.status, ["verified", "pending"])',
    )
    [finding] = _run(UNITTEST_OLD, new)
    assert (finding.rule, finding.start_line, finding.end_line) == ("assertion-weakened", 12, 12)
    assert finding.topic is Topic.TEST_WEAKENING
    assert finding.severity is Severity.MAJOR
    assert finding.path == PATH
    assert finding.claim == (
        "TestSyncBudget.test_sync_budget_verifies: "
        "`self.assertEqual(result.status, 'verified')` became "
        "`self.assertIn(result.status, ['verified', 'pending'])` "
        "(an equality check became a membership check that also accepts 'pending')"
    )
    assert finding.evidence == '        self.assertIn(result.status, ["verified", "pending"])'
    assert finding.old_evidence == '        self.assertEqual(result.status, "verified")'


@pytest.mark.parametrize(
    ("replacement", "what"),
    [
        ("self.assertTrue(result.status)", "became a truthiness check"),
        ("self.assertIsNotNone(result.status)", "became an `is not None` check"),
        ("self.assertIsInstance(result.status, str)", "became a type check"),
        ("self.assertIn(result.status, VALID_STATUSES)", "became a membership check"),
    ],
)
def test_unittest_equality_replaced_by_weaker_check(replacement: str, what: str) -> None:
    new = UNITTEST_OLD.replace('self.assertEqual(result.status, "verified")', replacement)
    [finding] = _run(UNITTEST_OLD, new)
    assert _rules([finding]) == [("assertion-weakened", 12)]
    assert what in finding.claim


def test_unittest_assertion_removed_from_surviving_test() -> None:
    new = UNITTEST_OLD.replace("        self.assertEqual(result.amount, 200)\n", "")
    [finding] = _run(UNITTEST_OLD, new)
    # the whole new test is the location: the removed line has no new side of its own
    assert (finding.rule, finding.start_line, finding.end_line) == ("assertion-removed", 10, 12)
    assert "`self.assertEqual(result.amount, 200)` was removed" in finding.claim
    assert finding.old_evidence == "        self.assertEqual(result.amount, 200)"
    assert finding.evidence.startswith("    def test_sync_budget_verifies(self):")


def test_unittest_expected_exception_widened() -> None:
    new = UNITTEST_OLD.replace("assertRaises(GatewayTimeout)", "assertRaises(Exception)")
    [finding] = _run(UNITTEST_OLD, new)
    assert _rules([finding]) == [("expected-exception-widened", 17)]
    assert "widened from GatewayTimeout to Exception" in finding.claim
    assert finding.old_evidence == "        with self.assertRaises(GatewayTimeout):"


def test_unittest_raises_block_removed() -> None:
    new = UNITTEST_OLD.replace(
        "        with self.assertRaises(GatewayTimeout):\n            sync_budget",
        "        sync_budget",
    )
    findings = _run(UNITTEST_OLD, new)
    assert _rules(findings) == [("assertions-reduced-to-zero", 15)]
    assert "now asserts nothing" in findings[0].claim


@pytest.mark.parametrize(
    ("replacement", "change"),
    [
        ("places=2", "abs 5e-05 -> 0.005"),
        ("delta=0.01", "abs 5e-05 -> 0.01"),
    ],
)
def test_unittest_tolerance_widened(replacement: str, change: str) -> None:
    new = UNITTEST_OLD.replace("places=4", replacement)
    [finding] = _run(UNITTEST_OLD, new)
    assert _rules([finding]) == [("tolerance-widened", 21)]
    assert change in finding.claim


def test_unittest_tolerance_narrowed_is_not_reported() -> None:
    assert _run(UNITTEST_OLD, UNITTEST_OLD.replace("places=4", "places=6")) == []


def test_unittest_skip_without_issue_is_minor() -> None:
    new = UNITTEST_OLD.replace(
        "    def test_ratio(self):", '    @unittest.skip("flaky on CI")\n    def test_ratio(self):'
    )
    [finding] = _run(UNITTEST_OLD, new)
    assert _rules([finding]) == [("skip-without-issue", 20)]
    assert finding.severity is Severity.MINOR
    assert finding.evidence == '    @unittest.skip("flaky on CI")'
    assert finding.old_evidence is None


def test_skip_test_call_without_issue() -> None:
    new = UNITTEST_OLD.replace(
        "        result = sync_budget(self.gateway, user_id=7)",
        '        self.skipTest("gateway changed")\n'
        "        result = sync_budget(self.gateway, user_id=7)",
    )
    [finding] = _run(UNITTEST_OLD, new)
    assert _rules([finding]) == [("skip-without-issue", 11)]


@pytest.mark.parametrize(
    "reason",
    [
        "flaky, see #412",
        "GH-77 gateway sandbox down",
        "blocked by PAY-1234",
        "https://github.com/acme/pay/issues/88",
        "reverted in https://gitlab.example.com/acme/pay/-/merge_requests/5",
    ],
)
def test_skip_with_issue_reference_is_benign(reason: str) -> None:
    new = UNITTEST_OLD.replace(
        "    def test_ratio(self):", f'    @unittest.skip("{reason}")\n    def test_ratio(self):'
    )
    assert _run(UNITTEST_OLD, new) == []


def test_unittest_class_skipped_wholesale() -> None:
    new = UNITTEST_OLD.replace(
        "class TestSyncBudget", '@unittest.skip("broken after refactor")\nclass TestSyncBudget'
    )
    [finding] = _run(UNITTEST_OLD, new)
    assert _rules([finding]) == [("skip-without-issue", 6)]
    assert finding.claim.startswith("class TestSyncBudget: every test in it skipped: skip added")


def test_assert_equal_true_to_assert_true_is_equivalent() -> None:
    old = UNITTEST_OLD.replace(
        'self.assertEqual(result.status, "verified")', "self.assertEqual(result.synced, True)"
    )
    new = UNITTEST_OLD.replace(
        'self.assertEqual(result.status, "verified")', "self.assertTrue(result.synced)"
    )
    assert _run(old, new) == []


def test_reformatting_docstring_and_messages_are_benign() -> None:
    new = UNITTEST_OLD.replace(
        "    def test_sync_budget_verifies(self):\n",
        '    def test_sync_budget_verifies(self):\n        """A healthy gateway verifies."""\n',
    ).replace(
        'self.assertEqual(result.status, "verified")',
        "self.assertEqual(\n            'verified',\n            result.status,\n"
        "            msg='status after sync',\n        )",
    )
    assert _run(UNITTEST_OLD, new) == []


def test_adding_a_stronger_assertion_is_benign() -> None:
    new = UNITTEST_OLD.replace(
        "        self.assertEqual(result.amount, 200)\n",
        "        self.assertEqual(result.amount, 200)\n"
        "        self.assertEqual(self.gateway.writes, [(7, 200)])\n",
    )
    assert _run(UNITTEST_OLD, new) == []


def test_changing_the_expected_value_is_not_weakening() -> None:
    new = UNITTEST_OLD.replace("result.amount, 200", "result.amount, 180")
    assert _run(UNITTEST_OLD, new) == []


def test_renamed_test_is_not_deleted() -> None:
    new = UNITTEST_OLD.replace("def test_ratio(", "def test_budget_ratio_is_a_third(")
    assert _run(UNITTEST_OLD, new) == []


def test_renamed_and_weakened_test_is_a_weakening_not_a_deletion() -> None:
    new = UNITTEST_OLD.replace("def test_sync_budget_verifies(", "def test_sync_ok(").replace(
        "self.assertEqual(result.amount, 200)", "self.assertTrue(result.amount)"
    )
    [finding] = _run(UNITTEST_OLD, new)
    assert _rules([finding]) == [("assertion-weakened", 13)]
    assert finding.claim.startswith(
        "TestSyncBudget.test_sync_ok (was TestSyncBudget.test_sync_budget_verifies): "
    )


def test_unittest_to_plain_assert_of_same_strength_is_benign() -> None:
    new = """
    import pytest

    from app.sync import GatewayTimeout, sync_budget


    class TestSyncBudget:
        def setup_method(self):
            self.gateway = FakeGateway(balance=200)

        def test_sync_budget_verifies(self):
            result = sync_budget(self.gateway, user_id=7)
            assert result.status == "verified"
            assert 200 == result.amount

        def test_gateway_timeout_aborts(self):
            self.gateway.fail_with(GatewayTimeout())
            with pytest.raises(GatewayTimeout):
                sync_budget(self.gateway, user_id=7)

        def test_ratio(self):
            assert budget_ratio(1, 3) == pytest.approx(0.3333, abs=5e-5)
    """
    findings = _run(UNITTEST_OLD, new)
    # assertAlmostEqual -> approx is a different family of tolerance; nothing else changed
    assert findings == []


def test_unittest_test_deleted() -> None:
    new = UNITTEST_OLD.replace(
        "    def test_ratio(self):\n"
        "        self.assertAlmostEqual(budget_ratio(1, 3), 0.3333, places=4)\n",
        "",
    )
    [finding] = _run(UNITTEST_OLD, new)
    assert finding.rule == "test-deleted"
    assert finding.start_line == finding.end_line == 19
    assert finding.claim == (
        "TestSyncBudget.test_ratio: the test was deleted, and no test of the change checks "
        "what it checked (no renamed, moved, merged or parametrized version found)"
    )
    # The deleted code is shown once, on the old side; the new side says what happened.
    assert finding.old_evidence is not None and "budget_ratio(1, 3)" in finding.old_evidence
    assert finding.evidence == finding.old_evidence  # shown once, as deleted


def test_test_class_deleted() -> None:
    old = UNITTEST_OLD + _src(
        """

        class TestRefund(unittest.TestCase):
            def test_refund_restores_budget(self):
                self.assertEqual(refund(7).balance, 200)

            def test_refund_twice_rejected(self):
                with self.assertRaises(AlreadyRefunded):
                    refund(7)
                    refund(7)
        """
    )
    [finding] = _run(old, UNITTEST_OLD)
    assert (finding.rule, finding.severity) == ("test-class-deleted", Severity.MAJOR)
    assert finding.claim == (
        "TestRefund: the test class was deleted with 2 test(s): "
        "test_refund_restores_budget, test_refund_twice_rejected"
    )
    assert finding.old_evidence is not None
    assert finding.old_evidence.startswith("class TestRefund(unittest.TestCase):")
    assert finding.evidence == finding.old_evidence


def test_whole_test_file_deleted_reports_each_test_at_line_one() -> None:
    findings = _run(UNITTEST_OLD, None)
    assert _rules(findings) == [("test-deleted", 1)] * 3
    names = sorted(f.claim.split(":")[0] for f in findings)
    assert names == [
        "TestSyncBudget.test_gateway_timeout_aborts",
        "TestSyncBudget.test_ratio",
        "TestSyncBudget.test_sync_budget_verifies",
    ]
    assert all("there is no new side, so the location is line 1" in f.claim for f in findings)
    assert all("def test_" in (f.old_evidence or "") for f in findings)
    assert all(f.evidence == f.old_evidence for f in findings)


# --------------------------------------------------------------------------- pytest samples

PYTEST_OLD = """
import math
from unittest import mock

import pytest

from app.reconciler import ParseError, parse_amount, reconcile


def test_reconcile_sets_status(ledger):
    result = reconcile(ledger, target=200)
    assert result.status == "verified"
    assert result.synced is True


def test_parse_amount_rejects_garbage():
    with pytest.raises(ParseError, match="not a number"):
        parse_amount("12abc")


def test_interest():
    assert compound(100, 0.05, 2) == pytest.approx(110.25, rel=1e-6)
    assert math.isclose(daily_rate(0.05), 0.000137, rel_tol=1e-3)


def test_notifier_called(ledger):
    notifier = mock.Mock()
    reconcile(ledger, target=200, notify=notifier)
    notifier.send.assert_called_once_with("budget-synced", 200)
"""


@pytest.mark.parametrize(
    ("replacement", "what"),
    [
        ("assert result.status", "an equality check became a truthiness check"),
        ("assert result.status is not None", "became an `is not None` check"),
        (
            'assert result.status in ("verified", "pending")',
            "membership check that also accepts 'pending'",
        ),
    ],
)
def test_pytest_equality_weakened(replacement: str, what: str) -> None:
    new = PYTEST_OLD.replace('assert result.status == "verified"', replacement)
    [finding] = _run(PYTEST_OLD, new)
    assert _rules([finding]) == [("assertion-weakened", 11)]
    assert what in finding.claim
    assert finding.claim.startswith("test_reconcile_sets_status: ")


def test_pytest_membership_widened() -> None:
    old = PYTEST_OLD.replace(
        'assert result.status == "verified"', 'assert result.status in ("verified",)'
    )
    new = PYTEST_OLD.replace(
        'assert result.status == "verified"', 'assert result.status in ("verified", "pending")'
    )
    [finding] = _run(old, new)
    assert _rules([finding]) == [("assertion-weakened", 11)]


def test_pytest_identity_true_to_truthy_is_equivalent() -> None:
    new = PYTEST_OLD.replace("assert result.synced is True", "assert result.synced")
    assert _run(PYTEST_OLD, new) == []


def test_pytest_plain_assert_removed() -> None:
    new = PYTEST_OLD.replace("    assert result.synced is True\n", "")
    [finding] = _run(PYTEST_OLD, new)
    assert (finding.rule, finding.start_line, finding.end_line) == ("assertion-removed", 9, 11)
    assert finding.old_evidence == "    assert result.synced is True"


@pytest.mark.parametrize(
    "replacement",
    [
        "pytest.raises(Exception",
        "pytest.raises((ParseError, ValueError)",
        "pytest.raises(BaseException",
    ],
)
def test_pytest_expected_exception_widened(replacement: str) -> None:
    new = PYTEST_OLD.replace("pytest.raises(ParseError", replacement)
    [finding] = _run(PYTEST_OLD, new)
    assert _rules([finding]) == [("expected-exception-widened", 16)]


def test_builtin_exception_widened_to_its_base() -> None:
    old = PYTEST_OLD.replace("pytest.raises(ParseError", "pytest.raises(KeyError")
    new = PYTEST_OLD.replace("pytest.raises(ParseError", "pytest.raises(LookupError")
    [finding] = _run(old, new)
    assert _rules([finding]) == [("expected-exception-widened", 16)]
    assert "from KeyError to LookupError" in finding.claim


def test_exception_message_check_dropped() -> None:
    new = PYTEST_OLD.replace(', match="not a number"', "")
    [finding] = _run(PYTEST_OLD, new)
    assert _rules([finding]) == [("assertion-weakened", 16)]
    assert "message is no longer checked" in finding.claim


def test_pytest_raises_block_removed() -> None:
    new = PYTEST_OLD.replace(
        '    with pytest.raises(ParseError, match="not a number"):\n        parse_amount',
        "    parse_amount",
    )
    [finding] = _run(PYTEST_OLD, new)
    assert _rules([finding]) == [("assertions-reduced-to-zero", 15)]


@pytest.mark.parametrize(
    ("old_part", "new_part", "line", "change"),
    [
        ("rel=1e-6", "rel=1e-2", 21, "rel 1e-06 -> 0.01"),
        ("rel=1e-6", "abs=0.5", 21, "abs 1e-12 -> 0.5"),
        ("rel_tol=1e-3", "rel_tol=0.1", 22, "rel 0.001 -> 0.1"),
        ("rel_tol=1e-3", "rel_tol=1e-3, abs_tol=1e-4", 22, "abs 0 -> 0.0001"),
    ],
)
def test_pytest_tolerance_widened(old_part: str, new_part: str, line: int, change: str) -> None:
    new = PYTEST_OLD.replace(old_part, new_part)
    [finding] = _run(PYTEST_OLD, new)
    assert _rules([finding]) == [("tolerance-widened", line)]
    assert change in finding.claim


def test_mock_assertion_weakened() -> None:
    new = PYTEST_OLD.replace(
        'notifier.send.assert_called_once_with("budget-synced", 200)',
        "notifier.send.assert_called()",
    )
    [finding] = _run(PYTEST_OLD, new)
    assert _rules([finding]) == [("assertion-weakened", 28)]


def test_mock_assertion_removed_leaves_no_assertion() -> None:
    new = PYTEST_OLD.replace(
        '    notifier.send.assert_called_once_with("budget-synced", 200)\n', ""
    )
    [finding] = _run(PYTEST_OLD, new)
    assert _rules([finding]) == [("assertions-reduced-to-zero", 25)]
    assert "had 1 assertion(s)" in finding.claim


@pytest.mark.parametrize(
    "decorator",
    [
        '@pytest.mark.skip(reason="flaky")',
        '@pytest.mark.skipif(os.environ.get("CI") == "1", reason="slow on CI")',
        '@pytest.mark.xfail(reason="gateway returns pending now")',
        "@pytest.mark.xfail",
    ],
)
def test_pytest_skip_markers_without_issue(decorator: str) -> None:
    new = PYTEST_OLD.replace("def test_interest():", f"{decorator}\ndef test_interest():")
    [finding] = _run(PYTEST_OLD, new)
    assert _rules([finding]) == [("skip-without-issue", 20)]
    assert finding.severity is Severity.MINOR


def test_pytest_skip_call_without_issue() -> None:
    new = PYTEST_OLD.replace(
        "def test_interest():\n", 'def test_interest():\n    pytest.skip("rates changed")\n'
    )
    [finding] = _run(PYTEST_OLD, new)
    assert _rules([finding]) == [("skip-without-issue", 21)]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            '@pytest.mark.xfail(IS_PYPY, reason="no _files attribute")',
            "@pytest.mark.xfail(IS_PYPY, reason=\"no '_files' attribute\")",
        ),
        ("@pytest.mark.skip(u'no fork')", '@pytest.mark.skip("no fork on this runner")'),
        (
            '@pytest.mark.skipif("slow == 1", reason="x")',
            '@pytest.mark.skipif("slow == 1", reason="y")',
        ),
    ],
)
def test_a_skip_whose_reason_was_only_reworded_is_not_new(before: str, after: str) -> None:
    old = PYTEST_OLD.replace("def test_interest():", f"{before}\ndef test_interest():")
    new = PYTEST_OLD.replace("def test_interest():", f"{after}\ndef test_interest():")
    assert _run(old, new) == []


def test_a_skip_whose_string_condition_changed_is_new() -> None:
    before = '@pytest.mark.skipif("slow == 1", reason="x")'
    after = '@pytest.mark.skipif("True", reason="x")'
    old = PYTEST_OLD.replace("def test_interest():", f"{before}\ndef test_interest():")
    new = PYTEST_OLD.replace("def test_interest():", f"{after}\ndef test_interest():")
    assert [f.rule for f in _run(old, new)] == ["skip-without-issue"]


def test_module_pytestmark_skip_without_issue() -> None:
    new = PYTEST_OLD.replace(
        "import pytest\n", 'import pytest\n\npytestmark = pytest.mark.skip(reason="wip")\n'
    )
    [finding] = _run(PYTEST_OLD, new)
    assert _rules([finding]) == [("skip-without-issue", 6)]
    assert finding.claim.startswith("module: every test in it skipped")


def test_platform_skipif_is_benign() -> None:
    new = PYTEST_OLD.replace(
        "def test_interest():",
        '@pytest.mark.skipif(sys.platform == "win32", reason="posix clocks")\ndef test_interest():',
    )
    assert _run(PYTEST_OLD, new) == []


def test_assertion_wrapped_in_try_except_assertion_error() -> None:
    new = PYTEST_OLD.replace(
        '    assert result.status == "verified"\n',
        "    try:\n"
        '        assert result.status == "verified"\n'
        "    except AssertionError:\n"
        "        pass\n",
    )
    [finding] = _run(PYTEST_OLD, new)
    assert (finding.rule, finding.start_line, finding.end_line) == ("assertion-swallowed", 11, 14)
    assert "except AssertionError, which swallows the failure" in finding.claim
    assert finding.old_evidence == '    assert result.status == "verified"'


def test_broad_except_around_assertions() -> None:
    new = PYTEST_OLD.replace(
        "    result = reconcile(ledger, target=200)\n"
        '    assert result.status == "verified"\n'
        "    assert result.synced is True\n",
        "    try:\n"
        "        result = reconcile(ledger, target=200)\n"
        '        assert result.status == "verified"\n'
        "        assert result.synced is True\n"
        "    except Exception as exc:\n"
        '        print("reconcile failed", exc)\n',
    )
    [finding] = _run(PYTEST_OLD, new)
    assert _rules([finding]) == [("assertion-swallowed", 10)]
    assert "except Exception" in finding.claim


def test_suppress_assertion_error() -> None:
    new = PYTEST_OLD.replace(
        '    assert result.status == "verified"\n',
        "    with contextlib.suppress(AssertionError):\n"
        '        assert result.status == "verified"\n',
    )
    [finding] = _run(PYTEST_OLD, new)
    assert _rules([finding]) == [("assertion-swallowed", 11)]


def test_try_except_that_fails_the_test_is_benign() -> None:
    new = PYTEST_OLD.replace(
        '    assert result.status == "verified"\n',
        "    try:\n"
        '        assert result.status == "verified"\n'
        "    except AssertionError:\n"
        '        pytest.fail(f"bad status {result.status}")\n',
    )
    assert _run(PYTEST_OLD, new) == []


def test_unit_under_test_patched_by_decorator() -> None:
    new = PYTEST_OLD.replace(
        "def test_reconcile_sets_status(ledger):",
        '@mock.patch("app.reconciler.reconcile", return_value=Result("verified", True))\n'
        "def test_reconcile_sets_status(fake, ledger):",
    )
    [finding] = _run(PYTEST_OLD, new)
    assert _rules([finding]) == [("unit-under-test-mocked", 9)]
    assert "patches `app.reconciler.reconcile` and then calls `reconcile` itself" in finding.claim


def test_unit_under_test_patched_by_monkeypatch_in_module_under_test() -> None:
    path = "tests/test_reconciler.py"
    new = PYTEST_OLD.replace(
        "def test_notifier_called(ledger):\n",
        "def test_notifier_called(ledger, monkeypatch):\n"
        '    monkeypatch.setattr(app.reconciler, "reconcile", lambda *a, **k: None)\n',
    )
    [finding] = _run(PYTEST_OLD, new, path)
    assert _rules([finding]) == [("unit-under-test-mocked", 26)]
    assert "it lives in `reconciler`" in finding.claim


def test_patching_a_dependency_is_benign() -> None:
    new = PYTEST_OLD.replace(
        "def test_reconcile_sets_status(ledger):\n",
        "def test_reconcile_sets_status(ledger):\n"
        '    with mock.patch("app.reconciler.gateway.fetch", return_value={"balance": 200}):\n'
        "        pass\n",
    )
    assert _run(PYTEST_OLD, new) == []


def test_moving_a_test_into_a_class_is_benign() -> None:
    new = PYTEST_OLD.replace(
        "def test_interest():\n"
        "    assert compound(100, 0.05, 2) == pytest.approx(110.25, rel=1e-6)\n"
        "    assert math.isclose(daily_rate(0.05), 0.000137, rel_tol=1e-3)\n",
        "class TestRates:\n"
        "    def test_interest(self):\n"
        "        assert compound(100, 0.05, 2) == pytest.approx(110.25, rel=1e-6)\n"
        "        assert math.isclose(daily_rate(0.05), 0.000137, rel_tol=1e-3)\n",
    )
    assert _run(PYTEST_OLD, new) == []


def test_moving_a_test_to_another_file_is_benign() -> None:
    moved = (
        "def test_interest():\n"
        "    assert compound(100, 0.05, 2) == pytest.approx(110.25, rel=1e-6)\n"
        "    assert math.isclose(daily_rate(0.05), 0.000137, rel_tol=1e-3)\n"
    )
    old_file = _change(PYTEST_OLD, PYTEST_OLD.replace(moved, ""))
    new_file = _change(None, "import math\n\nimport pytest\n\n\n" + moved, "tests/test_rates.py")
    assert _check(old_file, new_file) == []


def test_moved_to_another_file_and_weakened_is_reported_there() -> None:
    moved = (
        "def test_interest():\n"
        "    assert compound(100, 0.05, 2) == pytest.approx(110.25, rel=1e-6)\n"
        "    assert math.isclose(daily_rate(0.05), 0.000137, rel_tol=1e-3)\n"
    )
    old_file = _change(PYTEST_OLD, PYTEST_OLD.replace(moved, ""))
    weaker = moved.replace("rel=1e-6", "rel=0.1")
    new_file = _change(None, "import math\n\nimport pytest\n\n\n" + weaker, "tests/test_rates.py")
    [finding] = _check(old_file, new_file)
    assert (finding.path, finding.rule, finding.start_line) == (
        "tests/test_rates.py",
        "tolerance-widened",
        7,
    )


def test_assertions_reduced_to_zero_by_tautology() -> None:
    new = PYTEST_OLD.replace(
        '    assert result.status == "verified"\n    assert result.synced is True\n',
        "    assert True\n",
    )
    [finding] = _run(PYTEST_OLD, new)
    assert _rules([finding]) == [("assertions-reduced-to-zero", 9)]
    assert "had 2 assertion(s)" in finding.claim


def test_helper_that_asserts_counts_as_an_assertion() -> None:
    old = PYTEST_OLD + _src(
        """

        def _check_synced(result):
            assert result.status == "verified"
            assert result.synced is True


        def test_reconcile_again(ledger):
            result = reconcile(ledger, target=200)
            _check_synced(result)
        """
    )
    new = old.replace("    _check_synced(result)\n", "    print(result)\n")
    [finding] = _run(old, new)
    assert finding.rule == "assertions-reduced-to-zero"
    assert finding.claim.startswith("test_reconcile_again: had 1 assertion(s) (_check_synced(")


def test_weakened_helper_is_reported() -> None:
    old = PYTEST_OLD + '\n\ndef _check_synced(result):\n    assert result.status == "verified"\n'
    new = PYTEST_OLD + "\n\ndef _check_synced(result):\n    assert result.status\n"
    [finding] = _run(old, new)
    assert (finding.rule, finding.claim.split(":")[0]) == ("assertion-weakened", "_check_synced")


def test_new_test_file_is_benign() -> None:
    assert _run(None, PYTEST_OLD) == []


def test_identical_texts_are_benign() -> None:
    assert _run(PYTEST_OLD, PYTEST_OLD) == []


# --------------------------------------------------------------------------- scope and input


def test_non_test_files_are_ignored() -> None:
    new = PYTEST_OLD.replace('    assert result.status == "verified"\n', "")
    assert _run(PYTEST_OLD, new, "src/app/reconciler.py") == []


def test_renamed_test_file_keeps_its_tests() -> None:
    change = change_from_texts(
        "tests/test_reconcile.py", _src(PYTEST_OLD), _src(PYTEST_OLD), old_path=PATH
    )
    assert _check(change) == []


def test_syntax_error_is_a_skip_with_reason() -> None:
    change = _change(PYTEST_OLD, "def test_broken(:\n    pass\n")
    [skipped] = list(CRITIC.check([change]))
    assert isinstance(skipped, Skipped)
    assert skipped.path == PATH
    assert skipped.topic is Topic.TEST_WEAKENING
    assert skipped.reason == "the new text has a syntax error at line 1: invalid syntax"


def test_undecodable_text_is_a_skip_with_reason() -> None:
    change = FileChange(
        path=PATH,
        old_path=None,
        status="modified",
        old_text=_src(PYTEST_OLD),
        new_text=None,
        added_lines=frozenset({1}),
        removed_lines=frozenset({1}),
        language="python",
    )
    [skipped] = list(CRITIC.check([change]))
    assert skipped == Skipped(
        PATH, "the new text is unavailable (binary or not UTF-8)", Topic.TEST_WEAKENING
    )


def test_critic_declares_its_topic_and_language() -> None:
    assert CRITIC.topic is Topic.TEST_WEAKENING
    assert CRITIC.languages == frozenset({"python"})


def test_runner_reports_it_through_the_registry() -> None:
    new = PYTEST_OLD.replace('assert result.status == "verified"', "assert result.status")
    result = run_static([_change(PYTEST_OLD, new)], [Topic.TEST_WEAKENING])
    assert [(f.rule, f.start_line) for f in result.findings] == [("assertion-weakened", 11)]
    assert result.skipped == []


# --------------------------------------------------------------------------- refinements


def test_renamed_local_variable_is_benign() -> None:
    new = UNITTEST_OLD.replace("result", "outcome")
    assert _run(UNITTEST_OLD, new) == []


def test_aliased_assertion_method_is_an_assertion() -> None:
    old = UNITTEST_OLD.replace(
        "    def test_ratio(self):\n",
        "    def test_statuses(self):\n"
        "        eq = self.assertEqual\n"
        '        eq(status_of(0), "empty")\n'
        '        eq(status_of(200), "funded")\n\n'
        "    def test_ratio(self):\n",
    )
    new = old.replace('        eq(status_of(200), "funded")\n', "")
    [finding] = _run(old, new)
    assert _rules([finding]) == [("assertion-removed", 20)]
    assert "`eq(status_of(200), 'funded')` was removed" in finding.claim


def test_test_deleted_from_a_class_built_in_a_factory() -> None:
    old = _src(
        """
        import unittest


        def make_tests(backend):
            class BackendTests(unittest.TestCase):
                def test_open(self):
                    self.assertTrue(backend.open())

                def test_close(self):
                    self.assertIsNone(backend.close())

            return BackendTests
        """
    )
    new = old.replace(
        "        def test_close(self):\n            self.assertIsNone(backend.close())\n\n", ""
    )
    [finding] = _check(change_from_texts("tests/test_backend.py", old, new))
    assert (finding.rule, finding.start_line) == ("test-deleted", 9)
    assert finding.claim.startswith("make_tests.<locals>.BackendTests.test_close: ")


def test_tolerance_from_a_variable_widened_to_a_coarse_literal() -> None:
    old = UNITTEST_OLD.replace("places=4", "delta=EPSILON")
    new = UNITTEST_OLD.replace("places=4", "delta=1.0")
    [finding] = _run(old, new)
    assert _rules([finding]) == [("tolerance-widened", 21)]
    assert "abs (not a literal) -> 1, above the default 5e-08" in finding.claim


def test_unit_under_test_patched_with_patch_object() -> None:
    new = UNITTEST_OLD.replace(
        "    def test_sync_budget_verifies(self):\n",
        '    @mock.patch.object(sync_module, "sync_budget", return_value=VERIFIED)\n'
        "    def test_sync_budget_verifies(self, fake_sync):\n",
    )
    [finding] = _run(UNITTEST_OLD, new)
    assert _rules([finding]) == [("unit-under-test-mocked", 10)]
    assert "patches `sync_module.sync_budget`" in finding.claim
    assert "(the test is named after it)" in finding.claim


def test_patch_whose_result_the_test_asserts_on_is_reported() -> None:
    new = UNITTEST_OLD.replace(
        "    def test_ratio(self):\n",
        "    @mock.patch.object(BudgetService, 'budget_ratio', return_value=0.3333)\n"
        "    def test_ratio(self, fake_ratio):\n",
    )
    [finding] = _run(UNITTEST_OLD, new)
    assert _rules([finding]) == [("unit-under-test-mocked", 20)]
    assert "(the test asserts on what it returns)" in finding.claim


def test_patch_whose_result_reaches_an_assertion_through_locals_is_reported() -> None:
    old = _src(
        """
        import pickle
        import unittest


        class TestIterators(unittest.TestCase):
            def test_iterator_round_trip(self):
                data = pickle.dumps(iter([1, 2]))
                restored = pickle.loads(data)
                self.assertEqual(list(restored), [1, 2])
        """
    )
    new = old.replace(
        "    def test_iterator_round_trip(self):",
        '    @unittest.mock.patch.object(pickle, "dumps")\n'
        "    def test_iterator_round_trip(self, mock_dumps):",
    )
    [finding] = _check(change_from_texts("tests/test_iterators.py", old, new))
    assert _rules([finding]) == [("unit-under-test-mocked", 6)]


def test_patched_call_used_only_for_setup_is_not_reported() -> None:
    new = UNITTEST_OLD.replace(
        "    def test_ratio(self):\n",
        "    @mock.patch.object(cache, 'clear')\n"
        "    def test_ratio(self, fake_clear):\n"
        "        cache.clear()\n",
    )
    assert _run(UNITTEST_OLD, new) == []


@pytest.mark.parametrize(
    "guard",
    [
        "        if not hasattr(os, 'fork'):\n            self.skipTest('needs fork')\n",
        "        if sys.platform == 'win32':\n            self.skipTest('posix only')\n",
        "        try:\n            import zlib\n        except ImportError:\n"
        "            self.skipTest('needs zlib')\n",
    ],
)
def test_environment_skips_in_the_body_are_benign(guard: str) -> None:
    new = UNITTEST_OLD.replace("    def test_ratio(self):\n", "    def test_ratio(self):\n" + guard)
    assert _run(UNITTEST_OLD, new) == []


def test_feature_skip_unless_decorator_is_benign() -> None:
    new = UNITTEST_OLD.replace(
        "    def test_ratio(self):",
        "    @unittest.skipUnless(support.has_fork_support, 'requires fork')\n"
        "    def test_ratio(self):",
    )
    assert _run(UNITTEST_OLD, new) == []


def test_skip_added_to_a_new_test_is_reported() -> None:
    new = UNITTEST_OLD + _src(
        """

        class TestRefund(unittest.TestCase):
            @unittest.skip("later")
            def test_refund(self):
                self.assertEqual(refund(7).balance, 200)
        """
    )
    [finding] = _run(UNITTEST_OLD, new)
    assert _rules([finding]) == [("skip-without-issue", 23)]


@pytest.mark.parametrize(
    ("old_call", "new_call", "rule"),
    [
        ("self.assertEqual(f.readable(), True)", "self.assertIsNotNone(f.readable())", 1),
        ("self.assertEqual(f.isatty(), False)", "self.assertIn(f.isatty(), [False, None])", 1),
        ("self.assertTrue(f.readable())", "self.assertIn(f.readable(), [1, 2])", 0),
        ("self.assertIsNone(f.error)", "self.assertIn(f.error, [None])", 0),
        ("self.assertIsNotNone(f.name)", "self.assertTrue(f.name)", 0),
    ],
)
def test_truthiness_versus_existence_and_membership(
    old_call: str, new_call: str, rule: int
) -> None:
    template = "import unittest\n\n\nclass TestFile(unittest.TestCase):\n    def test_mode(self):\n"
    template += "        f = open_file()\n        {}\n"
    findings = _run(template.format(old_call), template.format(new_call))
    assert _rules(findings) == [("assertion-weakened", 7)] * rule


def test_call_form_assert_raises_with_starred_arguments_is_widened() -> None:
    old = UNITTEST_OLD.replace(
        "        with self.assertRaises(GatewayTimeout):\n"
        "            sync_budget(self.gateway, user_id=7)\n",
        "        self.assertRaises(GatewayTimeout, sync_budget, *self.args)\n",
    )
    new = old.replace("assertRaises(GatewayTimeout", "assertRaises(Exception")
    [finding] = _run(old, new)
    assert _rules([finding]) == [("expected-exception-widened", 17)]


def test_mock_assertion_removed_while_others_remain() -> None:
    old = PYTEST_OLD.replace(
        '    notifier.send.assert_called_once_with("budget-synced", 200)\n',
        '    notifier.send.assert_called_once_with("budget-synced", 200)\n'
        "    assert ledger.balance == 200\n",
    )
    new = old.replace('    notifier.send.assert_called_once_with("budget-synced", 200)\n', "")
    [finding] = _run(old, new)
    assert _rules([finding]) == [("assertion-removed", 25)]
    assert "notifier.send.assert_called_once_with('budget-synced', 200)" in finding.claim


def test_unittest_skip_if_on_a_constant_is_reported() -> None:
    new = UNITTEST_OLD.replace(
        "    def test_ratio(self):",
        '    @unittest.skipIf(True, "later")\n    def test_ratio(self):',
    )
    [finding] = _run(UNITTEST_OLD, new)
    assert _rules([finding]) == [("skip-without-issue", 20)]


def test_very_large_file_is_a_skip_with_reason() -> None:
    huge = _src(PYTEST_OLD) + "#" * 2_000_001 + "\n"
    [skipped] = list(CRITIC.check([change_from_texts(PATH, _src(PYTEST_OLD), huge)]))
    assert skipped == Skipped(
        PATH, "the new text is larger than 2000000 characters", Topic.TEST_WEAKENING
    )


PARAMETRIZED = """
import pytest

from app.money import parse_amount


@pytest.mark.parametrize(
    ("text", "cents"),
    [
        ("12.50", 1250),
        ("0.01", 1),
        ("-3", -300),
    ],
)
def test_parse_amount(text, cents):
    assert parse_amount(text) == cents
"""


def test_parametrize_case_removed() -> None:
    new = PARAMETRIZED.replace('        ("-3", -300),\n', "")
    [finding] = _run(PARAMETRIZED, new, "tests/test_money.py")
    assert (finding.rule, finding.start_line, finding.end_line) == (
        "parametrize-cases-removed",
        6,
        12,
    )
    assert finding.claim == "test_parse_amount: parametrize lost 1 case(s): ('-3', -300)"
    assert finding.old_evidence is not None and '("-3", -300)' in finding.old_evidence


def test_parametrize_case_changed_or_added_is_benign() -> None:
    changed = PARAMETRIZED.replace('("-3", -300)', '("-3.00", -300)')
    added = PARAMETRIZED.replace('("-3", -300),', '("-3", -300),\n        ("7", 700),')
    assert _run(PARAMETRIZED, changed, "tests/test_money.py") == []
    assert _run(PARAMETRIZED, added, "tests/test_money.py") == []


def test_self_comparison_is_a_tautology() -> None:
    new = PYTEST_OLD.replace(
        'assert result.status == "verified"', "assert result.status == result.status"
    )
    [finding] = _run(PYTEST_OLD, new)
    assert _rules([finding]) == [("assertion-weakened", 11)]
    assert "compared with itself, which always holds" in finding.claim


def test_existing_reflexive_equality_still_counts() -> None:
    old = PYTEST_OLD.replace(
        "    assert result.synced is True\n",
        "    assert result.synced is True\n    assert result == result\n",
    )
    new = old.replace("    assert result.synced is True\n", "")
    [finding] = _run(old, new)
    assert _rules([finding]) == [("assertion-removed", 9)]


def test_new_test_with_a_runtime_skip_guard_is_benign() -> None:
    new = UNITTEST_OLD + _src(
        """

        class TestGroups(unittest.TestCase):
            def test_groups(self):
                groups = list_groups()
                if not groups:
                    self.skipTest("no groups")
                self.assertEqual(groups[0].gid, 0)
        """
    )
    assert _run(UNITTEST_OLD, new) == []


def test_new_test_skipped_outright_is_reported() -> None:
    new = UNITTEST_OLD + _src(
        """

        class TestGroups(unittest.TestCase):
            def test_groups(self):
                self.skipTest("todo")
                self.assertEqual(list_groups()[0].gid, 0)
        """
    )
    [finding] = _run(UNITTEST_OLD, new)
    assert _rules([finding]) == [("skip-without-issue", 24)]


def test_every_rule_is_documented_with_its_severity() -> None:
    from contend.critics.static import weakened_tests

    lines = (weakened_tests.__doc__ or "").splitlines()
    entries: dict[str, str] = {}
    for line in lines:
        if line.startswith("    ") and not line.startswith("     "):
            current = line.split()[0]
            entries[current] = line
        elif line.startswith("     ") and entries:
            entries[current] += line
    declared = {info.rule: info for info in weakened_tests.RULES}
    documented = {rule: text for rule, text in entries.items() if rule in declared}
    assert set(documented) == set(declared)
    for rule, info in declared.items():
        assert documented[rule].rstrip().endswith(f"— {info.severity.value}"), rule


SUNAU_OLD = """
import io
import unittest

import sunau


class TestHeaders(unittest.TestCase):
    def test_read_wrong_encoding(self):
        header = make_header(encoding=0)
        with self.assertRaisesRegex(sunau.Error, "encoding not supported"):
            sunau.open(io.BytesIO(header))

    def test_read_frames(self):
        with sunau.open(SAMPLE) as reader:
            frames = reader.readframes(4)
        self.assertEqual(frames, EXPECTED)
"""


@pytest.mark.parametrize(
    ("test", "line"), [("test_read_wrong_encoding", 8), ("test_read_frames", 13)]
)
def test_patched_call_inside_raises_block_or_with_binding_is_reported(test: str, line: int) -> None:
    new = _src(SUNAU_OLD).replace(
        f"    def {test}(self):",
        f'    @unittest.mock.patch.object(sunau, "open")\n    def {test}(self, mock_open):',
    )
    [finding] = _check(change_from_texts("tests/test_headers.py", _src(SUNAU_OLD), new))
    assert _rules([finding]) == [("unit-under-test-mocked", line)]


def test_parametrized_case_of_a_boolean_or_none_expectation_is_the_same_check() -> None:
    # `assertEqual(f(x), False)` is read as `assertFalse(f(x))`; the parametrized
    # `assert f(arg) == expected` must be read the same way once `expected` is `False`.
    old = """
    import unittest

    class TestBool(unittest.TestCase):
        def test_complex(self):
            self.assertEqual(complex(False), 0j)
            self.assertEqual(complex(False), False)
            self.assertEqual(complex(True), True)

        def test_parse(self):
            self.assertIs(parse(""), None)
    """
    new = """
    import unittest

    import pytest

    class TestBool(unittest.TestCase):
        pass


    @pytest.mark.parametrize(("arg", "expected"), [(False, 0j), (False, False), (True, True)])
    def test_complex(arg, expected):
        assert complex(arg) == expected


    @pytest.mark.parametrize("expected", [None])
    def test_parse(expected):
        assert parse("") is expected
    """
    assert _run(old, new) == []
