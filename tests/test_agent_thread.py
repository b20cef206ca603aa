"""The agent thread, end to end through `contend review` with scripted agents: how a
critic's failure is recorded (structured, for the reports) and how its thread ends, and
what every agent request says about the reviewed repository."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from contend.agents.base import AgentReply, AgentRequest, BackendContext, Capabilities
from contend.agents.registry import resolve
from contend.config import load_settings
from contend.ledger.verify import verify
from contend.protocol.state import RunState, fold
from contend.review.engine import ReviewRequest, ReviewResult, review
from review_helpers import (
    answer,
    critic_turn,
    make_repo,
    objection,
    report,
    run,
    write_script,
)

# turn of the failing critic: (how the thread ends, failure kind, HTTP status or None)
CRITIC_FAILURES: dict[str, tuple[dict[str, Any], str, str, int | None]] = {
    "crash": ({"error": "crash"}, "crashed", "crashed", None),
    "timeout": ({"error": "timeout"}, "crashed", "timeout", None),
    "http-429": ({"error": "http-429"}, "crashed", "http_status", 429),
    "http-503": ({"error": "http-503"}, "crashed", "http_status", 503),
    "unreachable": ({"error": "unreachable"}, "crashed", "unreachable", None),
    "garbage": ({"raw": "Looks good to me!"}, "malformed_output", "malformed", None),
    "schema-break": ({"raw": '{"topic": "x"}'}, "malformed_output", "malformed", None),
}


def _ledger(result: ReviewResult) -> list[dict[str, Any]]:
    return verify(result.run_dir / "ledger.jsonl", keep_entries=True).entries


def _state(result: ReviewResult) -> RunState:
    return fold(_ledger(result))


def _failures(result: ReviewResult) -> list[dict[str, Any]]:
    return [e["data"] for e in _ledger(result) if e["kind"] == "agent_failed"]


@pytest.mark.parametrize("case", CRITIC_FAILURES, ids=list(CRITIC_FAILURES))
def test_a_failed_critic_in_author_mode_ends_failed_not_awaiting_the_author(
    tmp_path: Path, case: str
) -> None:
    turn, ended, failure, status = CRITIC_FAILURES[case]
    repo = make_repo(tmp_path)
    critic = write_script(tmp_path / "critic.json", critic=[turn])

    result = run(repo, critics=[critic])

    thread = _state(result).threads["C1"]
    assert thread.ended == ended
    assert report(result)["verdict"] == "escalate" and result.outcome.exit_code == 3
    (failed,) = _failures(result)
    assert failed["role"] == "critic" and failed["error"]
    assert failed["failure"] == failure
    assert failed.get("status") == status
    assert ("status" in failed) is (status is not None)


@pytest.mark.parametrize("case", CRITIC_FAILURES, ids=list(CRITIC_FAILURES))
def test_a_critic_that_keeps_failing_with_a_proposer_ends_by_its_kind_of_failure(
    tmp_path: Path, case: str
) -> None:
    turn, ended, failure, _ = CRITIC_FAILURES[case]
    repo = make_repo(tmp_path)
    critic = write_script(tmp_path / "critic.json", critic=[turn, turn, turn])
    proposer = write_script(tmp_path / "proposer.json", family="fam-author", proposer=[])

    result = run(repo, critics=[critic], proposer=proposer)

    thread = _state(result).threads["C1"]
    assert thread.ended == ended and thread.failures == 2  # retried once, then ended
    assert [f["failure"] for f in _failures(result)] == [failure, failure]
    assert report(result)["verdict"] == "escalate"


def test_a_critic_that_recovers_keeps_its_thread_alive(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    critic = write_script(
        tmp_path / "critic.json",
        critic=[{"error": "http-503"}, critic_turn(objections=[objection()])],
    )
    proposer = write_script(
        tmp_path / "proposer.json",
        family="fam-author",
        proposer=[{"output": {"answers": [answer("C1-1", "concede")]}}],
    )
    result = run(repo, critics=[critic], proposer=proposer)
    thread = _state(result).threads["C1"]
    assert thread.ended not in ("crashed", "malformed_output")
    assert thread.usable_outputs >= 1
    assert report(result)["verdict"] != "escalate"


@dataclass
class _Recording:
    """A scripted agent that records the requests it is given."""

    inner: Any
    requests: list[AgentRequest] = field(default_factory=list)

    @property
    def backend(self) -> str:
        return str(self.inner.backend)

    @property
    def model(self) -> str:
        return str(self.inner.model)

    @property
    def family(self) -> str:
        return str(self.inner.family)

    @property
    def capabilities(self) -> Capabilities:
        caps: Capabilities = self.inner.capabilities
        return caps

    async def run(self, request: AgentRequest) -> AgentReply:
        self.requests.append(request)
        reply: AgentReply = await self.inner.run(request)
        return reply


def test_every_agent_request_names_the_reviewed_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A fork looks the author's session up in the reviewed repository, whatever the
    # current directory (issue 10): the thread tells it which repository that is.
    repo = make_repo(tmp_path / "reviewed")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    critic_spec = write_script(
        tmp_path / "critic.json", critic=[critic_turn(objections=[objection()])]
    )
    proposer_spec = write_script(
        tmp_path / "proposer.json",
        family="fam-author",
        proposer=[{"output": {"answers": [answer("C1-1", "concede")]}}],
    )
    settings = load_settings(repo, flags={"critics": [critic_spec], "proposer": proposer_spec})
    agents: dict[str, _Recording] = {}

    def factory(spec: str, role: str) -> _Recording:
        built = resolve(spec, BackendContext(repo, settings, role))  # type: ignore[arg-type]
        agents[role] = _Recording(built)
        return agents[role]

    review(ReviewRequest(path=repo, agent_factory=factory), settings)

    requests = [r for agent in agents.values() for r in agent.requests]
    assert {r.role for r in requests} == {"critic", "proposer"}
    assert {r.repo for r in requests} == {repo}
    assert all(r.worktree != repo and r.worktree.is_relative_to(repo) for r in requests)
