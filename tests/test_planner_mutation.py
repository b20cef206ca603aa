"""Tests written against the mutants of protocol/plan.py (issue 18): the defaults of a
reply are what the ledger records when an agent's client reports nothing more."""

from __future__ import annotations

from contend.protocol.calls import record_call
from contend.protocol.plan import Answered, Call, Failed

CALL = Call(
    agent="critic",
    role="critic",
    thread="claude",
    round=1,
    system="you are a critic",
    prompt="review this",
    schema={},
)


def test_an_answer_that_reports_no_usage_records_zero_tokens_cost_time_and_bytes() -> None:
    """Kills the defaults of Answered (0 => 1, 0.0 => 1.0): a client that reports no usage
    must not charge the run for tokens, money or time nobody measured."""
    reply = Answered(
        CALL,
        backend="claude",
        model="claude-x",
        family="anthropic",
        output={"objections": []},
        raw_text="{}",
        error=None,
    )
    parsed, events = record_call("claude", reply, lambda output: output)
    assert parsed == {"objections": []}
    (call,) = events
    data = call["data"]
    assert call["kind"] == "agent_call"
    assert (data["tokens_in"], data["tokens_out"], data["bytes_sent"]) == (0, 0, 0)
    assert (data["cost"], data["wall_s"], data["usable"]) == (0.0, 0.0, True)


def test_a_failure_that_says_nothing_of_retry_or_timeout_records_neither() -> None:
    """Kills the defaults of Failed (False => True for retryable and timeout)."""
    reply = Failed(CALL, backend="claude", model="claude-x", error="exit 1", failure="crashed")
    parsed, events = record_call("claude", reply, lambda output: output)
    assert parsed is None
    (failed,) = events
    data = failed["data"]
    assert failed["kind"] == "agent_failed"
    assert (data["retryable"], data["timeout"], data["failure"]) == (False, False, "crashed")
    assert "status" not in data
