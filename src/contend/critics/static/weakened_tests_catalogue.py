"""The rules of the Python test-weakening critic: severity, confidence, why, ways out.

Declared here and re-exported as `weakened_tests.RULES` (the module the registry loads), so
the critic module stays about comparing tests. See catalogue.py for what each field means.
"""

from __future__ import annotations

from contend.critics.static.base import Confidence, Topic
from contend.critics.static.catalogue import PYTHON, RuleInfo, waiver_way
from contend.protocol.model import Severity

_TOPIC = Topic.TEST_WEAKENING
_WAIVE = waiver_way(_TOPIC)
_RESTORE = "restore the check shown under 'before the change', or one at least as strict"


def _rule(
    rule: str,
    why: str,
    ways_out: tuple[str, ...],
    *,
    severity: Severity = Severity.MAJOR,
    confidence: Confidence = Confidence.HIGH,
) -> RuleInfo:
    return RuleInfo(rule, _TOPIC, severity, confidence, PYTHON, why, (*ways_out, _WAIVE))


RULES: tuple[RuleInfo, ...] = (
    _rule(
        "assertion-removed",
        "a test that still runs no longer checks what it checked, and no check of the new "
        "version (under any of its cases, or through a local) makes up for it",
        (
            _RESTORE,
            "or, if that behaviour was dropped on purpose, say so in the change and remove "
            "the code it covered",
        ),
    ),
    _rule(
        "assertions-reduced-to-zero",
        "the test still runs and passes, but it no longer asserts anything",
        (_RESTORE, "or delete the test openly if its subject is gone"),
    ),
    _rule(
        "assertion-weakened",
        "the new check accepts results the old one rejected (a value turned into a "
        "membership, truthiness or existence check, a message no longer matched)",
        (
            _RESTORE,
            "if the exact value legitimately varies, assert the property that must hold "
            "instead of a weaker one",
        ),
    ),
    _rule(
        "tolerance-widened",
        "a numeric comparison now accepts a larger error than before",
        (
            "restore the old tolerance",
            "or state in the test why the larger error is correct (the measured error)",
        ),
    ),
    _rule(
        "expected-exception-widened",
        "the test now passes on a broader exception or warning class, so an unrelated "
        "error or warning satisfies it",
        ("expect the specific exception or warning class the code raises",),
    ),
    _rule(
        "assertion-swallowed",
        "an assertion now sits under an except clause (or `suppress`) that does not re-raise, "
        "so its failure can no longer fail the test",
        ("remove the handler around the assertion, or re-raise from it",),
    ),
    _rule(
        "unit-under-test-mocked",
        "the test patches a function it then calls itself, so it may be testing the mock "
        "(read it: patching a dependency of that function is fine)",
        ("patch what the unit calls, not the unit itself",),
        severity=Severity.MINOR,
        confidence=Confidence.MEDIUM,
    ),
    _rule(
        "test-deleted",
        "a test is gone and nothing the change's tests check covers what it checked; a test "
        "of a function the change removed, or merged, renamed, moved or parametrized with "
        "the same checks, is not reported",
        (
            "restore the test, or carry its checks into the test that replaces it (a "
            "parametrize case, a renamed or moved test)",
            "if the behaviour it covered is gone on purpose, remove that code in the same change",
        ),
    ),
    _rule(
        "test-class-deleted",
        "a test class is gone with its tests, and their checks are not made elsewhere",
        ("restore the tests, or carry their checks into the tests that replace them",),
    ),
    _rule(
        "parametrize-cases-removed",
        "a parametrized test runs on fewer cases than before",
        ("restore the removed cases, or move them to the test that now covers them",),
    ),
    _rule(
        "skip-without-issue",
        "a test is switched off with no issue to bring it back; a skip on the platform, "
        "the Python version or an optional dependency is not reported",
        (
            "fix the test instead of skipping it",
            "or name the tracking issue in the skip reason (#123, GH-123, ABC-123 or a URL)",
        ),
        severity=Severity.MINOR,
        confidence=Confidence.MEDIUM,
    ),
)
