"""One slice of `contend run` end to end: the edge around the pure state machine in `core`.

    check input (spec, clean main tree, agents for the topology) → branch + worktree
    → the planner's requests (harness/plan.py) on the one driver (review/driver.Drive):
      implementer turn (main tree fingerprinted before, writes
      outside the worktree refused and reverted after) · gates under a timeout · review by
      the engine (`contend.review.engine.review`, spec + diff only) · oracle
    → events, the slice's record in the index, the worktree removed (the branch stays)

Nothing is ever merged into the user's branch: the best outcome is `contend/run/<id>`,
ready to merge. What a slice is asked and returns is request.py; its agents, cast.py.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import shutil
import time
from datetime import UTC, datetime
from typing import Any, assert_never

from contend.agents.base import AgentReply, AgentRequest
from contend.config import load_settings
from contend.errors import AgentError, UserError
from contend.gitio.git import repo_root
from contend.harness import core, gitops, prompts
from contend.harness.cast import Focused, cast_for, spread
from contend.harness.config import attack_prompt
from contend.harness.events import (
    SUBTASK_COMPLETED,
    SUBTASK_FAILED,
    SUBTASK_VERIFIED,
    EventWriter,
)
from contend.harness.implementers import ClaudeCodeImplementer
from contend.harness.metrics import RECORD_FILE, record_slice, slice_dir
from contend.harness.plan import (
    AskOracle,
    Gates,
    GatesDone,
    Implement,
    Implemented,
    NestedReview,
    OraclePlanned,
    Reviewed,
    SliceAsk,
    SliceFact,
    SliceRecording,
    plan,
)
from contend.harness.request import SliceRequest, SliceResult, read_spec
from contend.ledger.runs import new_run_id
from contend.protocol.event_types import GateRanData
from contend.review.driver import Drive
from contend.review.engine import ReviewRequest, review
from contend.review.gates import run_gate
from contend.review.state_dir import open_state_dir

BLOCKING = frozenset({"critical", "major"})
GATE_KILLED = "[contend: gate killed after"


class SliceRunner:
    def __init__(self, req: SliceRequest) -> None:
        self.req = req
        self.cfg = req.config
        self.root = repo_root(req.repo)
        self.spec = read_spec(req.spec_path)
        gitops.check_clean(self.root)
        self.base = gitops.head_commit(self.root)
        self.settings = load_settings(self.root, project_rev=self.base)
        self.timeout_s = req.agent_timeout_s or self.settings.agent_timeout
        # Focus areas follow the risky globs of the paths the spec names is unknowable
        # before the change exists; the configured areas apply to every review and the
        # risky ones are added per review from the change's own paths.
        self.cast = cast_for(req, self.root, self.settings, self.cfg.focus_areas)
        self.state_dir = open_state_dir(self.root, self.settings)
        self.slice_id = req.slice_id or new_run_id()
        self.dir = slice_dir(self.state_dir, self.slice_id)
        self.worktree = self.state_dir / "harness" / "worktrees" / self.slice_id
        if self.dir.exists():
            if not req.restart_unfinished or (self.dir / RECORD_FILE).exists():
                raise UserError(f"slice {self.slice_id} exists already ({self.dir})")
            gitops.discard_unfinished(self.root, self.slice_id, self.worktree)
            shutil.rmtree(self.dir)
        self.events = EventWriter(
            [self.dir / "events.jsonl", *([req.events_path] if req.events_path else [])]
        )
        self.rec = SliceRecording(
            core.SliceState(
                max_attack_rounds=self.cfg.max_attack_rounds,
                gate_cap=self.cfg.gate_cap,
                has_gates=bool(req.gates),
                has_oracle=self.cast.oracle is not None,
            )
        )
        self.head = self.base
        self.session: str | None = None
        self.reviews: list[dict[str, Any]] = []
        self.failed_diffs: list[str] = []
        self.last_blocking: list[dict[str, Any]] = []
        self.last_failed_gates: list[GateRanData] = []
        self.plan: str = ""
        self.spend: dict[str, dict[str, float]] = {
            r: {"tokens_in": 0, "tokens_out": 0, "cost": 0.0}
            for r in ("implementer", "critic", "oracle")
        }
        self.seen: dict[tuple[str, str, str, str], dict[str, Any]] = {}

    @property
    def state(self) -> core.SliceState:
        """The fold of the slice's steps so far (harness/plan.py)."""
        return self.rec.state

    # --- the loop -----------------------------------------------------------------------

    def run(self) -> SliceResult:
        try:
            return self._run()
        finally:
            self.events.close()

    def _run(self) -> SliceResult:
        started = time.perf_counter()
        started_at = datetime.now(UTC).isoformat(timespec="seconds")
        self.branch = gitops.create_slice(self.root, self.slice_id, self.base, self.worktree)
        self.events.emit(
            "slice_started",
            self.slice_id,
            topology=self.cfg.topology,
            branch=self.branch,
            base=self.base,
            implementer=self.req.implementer,
            critics=self.cast.critic_specs,
            oracle=self.req.oracle if self.cast.oracle is not None else None,
            notes=self.cast.notes,
        )
        try:
            Drive[core.SliceState, SliceFact, SliceAsk, SliceFact](plan, self.rec).run_sync(
                self._perform
            )
        finally:
            if isinstance(self.cast.implementer, ClaudeCodeImplementer):
                self.cast.implementer.discard_sessions()
            gitops.remove_worktree(self.root, self.worktree)
        outcome = self.state.outcome
        assert outcome is not None  # the planner asks for nothing more only then
        if not outcome.ready:
            self.events.emit(SUBTASK_FAILED, self.slice_id, reason=outcome.reason, final=True)
        self.events.emit(
            "slice_finished",
            self.slice_id,
            verdict=outcome.verdict,
            reason=outcome.reason,
            ready=outcome.ready,
            branch=self.branch,
            head=self.head,
        )
        record = self._record(started_at, time.perf_counter() - started)
        record_slice(self.state_dir, record)
        return SliceResult(
            self.slice_id,
            self.branch,
            outcome,
            record,
            self.dir / "events.jsonl",
            list(self.events.errors),
        )

    # --- steps --------------------------------------------------------------------------

    def _perform(self, request: SliceAsk) -> SliceFact:
        if isinstance(request, Implement):
            return self._implement(request.brief, request.number)
        if isinstance(request, Gates):
            return self._gates()
        if isinstance(request, NestedReview):
            return self._review(request.number)
        if isinstance(request, AskOracle):
            return self._oracle()
        assert_never(request)

    def _implement(self, brief: core.Brief, number: int) -> Implemented:
        prompt = {
            "spec": lambda: prompts.spec_brief(self.spec),
            "gates": lambda: prompts.gates_brief(self.spec, self.last_failed_gates),
            "findings": lambda: prompts.findings_brief(self.spec, self.last_blocking),
            "plan": lambda: prompts.plan_brief(self.spec, self.plan),
        }[brief]()
        request = AgentRequest(
            role="proposer",
            thread="implementer",
            round=number,
            system=prompts.IMPLEMENTER_SYSTEM,
            prompt=prompt,
            schema=prompts.IMPLEMENTER_SCHEMA,
            worktree=self.worktree,
            timeout_s=self.timeout_s,
            session=self.session,
            repo=self.worktree,
        )
        before = gitops.fingerprint(self.root)
        error: str | None = None
        try:
            reply = asyncio.run(self.cast.implementer.run(request))
        except AgentError as exc:
            error = str(exc)
        outside = gitops.outside_writes(self.root, before)
        if error is not None and not outside.paths:
            gitops.reset_to(self.worktree, self.head)  # a failed pass leaves nothing behind
            return Implemented(changed=False, error=error)
        if error is None:
            self._spend("implementer", reply)
            self.session = reply.session or self.session
        if outside.paths:
            # The worktree's own changes of this pass are dropped too: the pass is refused.
            gitops.reset_to(self.worktree, self.head)
            self.events.emit(
                "outside_writes",
                self.slice_id,
                paths=outside.paths,
                reverted=outside.reverted,
                not_reverted=outside.not_reverted,
            )
            return Implemented(changed=False, outside=tuple(outside.paths), error=error)
        commit = gitops.commit_all(
            self.worktree, f"contend run {self.slice_id}: implementer pass {number}"
        )
        if commit is not None:
            self.head = commit
        self.events.emit(
            SUBTASK_COMPLETED,
            self.slice_id,
            implementer_pass=number,
            brief=brief,
            commit=commit,
            changed=commit is not None,
        )
        return Implemented(changed=commit is not None)

    def _gates(self) -> GatesDone:
        async def all_gates() -> list[GateRanData]:
            return [
                await run_gate(cmd, self.worktree, when="slice", timeout_s=self.cfg.gate_timeout_s)
                for cmd in self.req.gates
            ]

        results = asyncio.run(all_gates())
        failed = [g for g in results if not g.get("ok")]  # no `ok`: the gate did not pass
        timed_out = any(GATE_KILLED in str(g.get("output")) for g in failed)
        self.events.emit(
            "gates_ran",
            self.slice_id,
            green=not failed,
            gates=[
                {k: g[k] for k in ("cmd", "ok", "exit_code", "wall_s")}
                | {"timed_out": GATE_KILLED in str(g.get("output"))}
                for g in results
            ],
        )
        self.last_failed_gates = failed
        return GatesDone(green=not failed, timed_out=timed_out)

    def _review(self, number: int) -> Reviewed:
        changed = gitops.changed_paths(self.worktree, self.base, self.head)
        areas = self.cfg.areas_for(changed)
        cast = (
            self.cast
            if areas == self.cfg.focus_areas
            else dataclasses.replace(self.cast, areas=spread(list(self.cast.critics), areas))
        )
        topology_a = self.cfg.topology == "A"

        def factory(spec: str, role: str) -> Any:
            agent = cast.critics.get(spec)
            if agent is None or role != "critic":
                raise UserError(f"the harness has no {role} {spec!r}")
            return Focused(
                agent,
                attack_prompt(cast.areas.get(spec, ())),
                lambda: number,
                lambda: self.session if topology_a else None,
            )

        settings = self.settings.model_copy(
            update={
                "critics": cast.critic_specs,
                "proposer": "none",
                "gates": [],  # the harness ran them already, on this very commit
                "oracle": None,
                "state_dir": ".contend",
                "trivial_diff_lines": 0,
                "agent_timeout": self.timeout_s,
            }
        )
        result = review(
            ReviewRequest(
                path=self.worktree,
                base=self.base,
                head=self.head,
                spec=str(self.req.spec_path),
                new=True,
                # The review's run directory lives in the worktree, which goes at the end:
                # its ledger and reports are kept in the slice's own directory.
                out=self.dir / "reviews" / str(number),
                command="contend run",
                agent_factory=factory,
            ),
            settings,
        )
        report: dict[str, Any] = json.loads(result.texts["json"])
        verdict = str(report["verdict"])
        disputes = [d for d in report.get("disputes", []) if isinstance(d, dict)]
        for d in disputes:
            loc = d.get("location") or {}
            key = (
                str(d.get("critic")),
                str(d.get("topic")),
                str(loc.get("path")),
                str(d.get("claim")),
            )
            self.seen.setdefault(key, d)
        stats = report.get("stats", {})
        self.spend["critic"]["tokens_in"] += int(stats.get("tokens_in", 0))
        self.spend["critic"]["tokens_out"] += int(stats.get("tokens_out", 0))
        self.spend["critic"]["cost"] += float(stats.get("cost", 0.0))
        blocking = [d for d in disputes if d.get("severity") in BLOCKING]
        self.reviews.append(
            {
                "review": number,
                "run": result.run_id,
                "ledger": str(self.dir / "reviews" / str(number) / "ledger.jsonl"),
                "head": self.head,
                "verdict": verdict,
                "focus_areas": list(areas),
                "disputes": len(disputes),
                "blocking": len(blocking),
            }
        )
        reason = "; ".join(result.outcome.reasons)
        if verdict in ("pass", "conditional_pass"):
            caveats = [prompts.finding_line(d) for d in disputes]
            self.events.emit(
                SUBTASK_VERIFIED, self.slice_id, review=number, verdict=verdict, caveats=caveats
            )
        else:
            self.events.emit(
                SUBTASK_FAILED,
                self.slice_id,
                review=number,
                verdict=verdict,
                reason=reason,
                blocking=[prompts.finding_line(d) for d in blocking],
            )
            self.failed_diffs.append(gitops.diff_text(self.worktree, self.base, self.head))
        self.last_blocking = blocking
        return Reviewed(verdict, reason)  # type: ignore[arg-type]

    def _oracle(self) -> OraclePlanned:
        oracle = self.cast.oracle
        assert oracle is not None
        request = AgentRequest(
            role="oracle",
            thread="oracle",
            round=1,
            system=prompts.ORACLE_SYSTEM,
            prompt=prompts.oracle_prompt(self.spec, self.failed_diffs[-3:], self.last_blocking),
            schema=prompts.ORACLE_SCHEMA,
            worktree=self.worktree,
            timeout_s=self.timeout_s,
        )
        try:
            reply = asyncio.run(oracle.run(request))
        except AgentError as exc:
            return OraclePlanned(None, str(exc))
        self._spend("oracle", reply)
        plan = None if reply.output is None else str(reply.output.get("plan", "")).strip()
        self.plan = plan or ""
        self.events.emit("oracle_planned", self.slice_id, plan=self.plan, error=reply.error)
        return OraclePlanned(plan, reply.error or "")

    # --- bookkeeping --------------------------------------------------------------------

    def _spend(self, role: str, reply: AgentReply) -> None:
        self.spend[role]["tokens_in"] += reply.usage.tokens_in
        self.spend[role]["tokens_out"] += reply.usage.tokens_out
        self.spend[role]["cost"] += reply.cost

    def _record(self, started_at: str, wall_s: float) -> dict[str, Any]:
        outcome = self.state.outcome
        assert outcome is not None
        by_topic: dict[str, int] = {}
        by_critic: dict[str, int] = {}
        static = 0
        for (critic, topic, _path, _claim), _d in self.seen.items():
            by_topic[topic] = by_topic.get(topic, 0) + 1
            by_critic[critic] = by_critic.get(critic, 0) + 1
            static += critic.startswith("static")
        return {
            "slice": self.slice_id,
            "started": started_at,
            "topology": self.cfg.topology,
            "branch": self.branch,
            "base": self.base,
            "head": self.head,
            "verdict": outcome.verdict,
            "reason": outcome.reason,
            "ready": outcome.ready,
            "exit_code": outcome.exit_code,
            "first_pass": self.state.first_pass,
            "implementer_passes": self.state.passes,
            "reviews": self.state.reviews,
            "fix_rounds": self.state.fix_rounds,
            "oracle_used": self.state.oracle_used,
            "rounds_to_resolution": self.state.reviews if outcome.ready else None,
            "review_runs": self.reviews,
            "caught": {
                "total": len(self.seen),
                "static": static,
                "model": len(self.seen) - static,
                "by_topic": by_topic,
                "by_critic": by_critic,
            },
            "spend": {r: dict(v) for r, v in self.spend.items()},
            "cost": round(sum(v["cost"] for v in self.spend.values()), 6),
            "wall_s": round(wall_s, 3),
            "spec": str(self.req.spec_path),
            "implementer": self.req.implementer,
            "critics": self.cast.critic_specs,
            "review_minutes": None,
            "defect_escape": None,
        }


def run_slice(req: SliceRequest) -> SliceResult:
    return SliceRunner(req).run()


__all__ = ["SliceRequest", "SliceResult", "SliceRunner", "run_slice"]
