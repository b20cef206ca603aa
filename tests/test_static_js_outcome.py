"""JS/TS test-weakening when a test's expected outcome flips from a result to a failure: the
value the old assertion checked is no longer produced, and the new test checks the error
instead (issue 17, real commits)."""

from __future__ import annotations

from textwrap import dedent

from contend.critics.static import js_weakened_tests
from contend.critics.static.base import Finding, Skipped
from contend.critics.static.testing import change_from_texts

OLD = """
import test from 'ava';

test('setting `content-length` to 0', async t => {
	const headers = await ky
		.post(server.url, {headers: {'content-length': '0'}, body: 'foo'})
		.json();

	t.is(headers['content-length'], '3');
});
"""

NOW_REJECTS = """
import test from 'ava';

test('setting `content-length` to 0', async t => {
	const request = ky
		.post(server.url, {headers: {'content-length': '0'}, body: 'foo'})
		.json();

	const error = await t.throwsAsync(request);

	t.is(error.cause?.code, 'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH');
});
"""


def tw(old: str, new: str) -> list[Finding]:
    change = change_from_texts("test/headers.ts", dedent(old), dedent(new))
    results = list(js_weakened_tests.CRITIC.check([change]))
    assert not any(isinstance(r, Skipped) for r in results), results
    return [r for r in results if isinstance(r, Finding)]


def test_a_test_that_now_expects_the_call_to_fail_checks_the_error_instead() -> None:
    assert tw(OLD, NOW_REJECTS) == []


def test_a_result_still_produced_loses_its_check_even_beside_a_new_throws() -> None:
    # The value is still computed; the added rejection check is about another call.
    new = OLD.replace(
        "\tt.is(headers['content-length'], '3');",
        "\tawait t.throwsAsync(ky.post(server.url, {body: 1}).json());",
    )
    [finding] = tw(OLD, new)
    assert finding.rule == "js-assertion-removed"


def test_a_value_no_longer_produced_without_an_error_check_is_still_lost() -> None:
    new = OLD.replace("const headers = await ky", "await ky").replace(
        "\tt.is(headers['content-length'], '3');", "\tt.pass();"
    )
    [finding] = tw(OLD, new)
    assert finding.rule == "js-assertion-removed"
