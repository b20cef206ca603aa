"""`contend review` end to end: target → lock → ledger → gates → threads → merge → verdict.

This module wires the pure core to git, agents and files. Everything it learns goes
through the Recorder (ledger first, then live state); reports are folds of that state.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from contend import __version__
from contend.config import Settings
from contend.critics.static.base import Topic
from contend.critics.static.registry import parse_selection
from contend.critics.static.runner import run_static
from contend.errors import RevisionNotFound, UserError
from contend.gitio.diff import collect_changes
from contend.gitio.git import resolve_commit, run_git
from contend.gitio.snapshot import snapshot_index, snapshot_worktree
from contend.gitio.worktree import WorktreeManager, apply_to_worktree, cleanup_stale
from contend.ledger.runs import LEDGER_FILE, new_run_id, runs_dir
from contend.ledger.store import Ledger
from contend.ledger.verify import verify
from contend.protocol.events import EventKind
from contend.protocol.state import RunState, fold
from contend.protocol.termination import Limits
from contend.protocol.verdict import Outcome, decide
from contend.review.active import active_run, set_active_run
from contend.review.agent_thread import AgentThread, RunContext, ThreadSetup
from contend.review.gates import run_gate
from contend.review.lock import review_lock
from contend.review.outputs import write_outputs
from contend.review.recorder import Recorder
from contend.review.spec import Spec, load_spec
from contend.review.static_round import plan_change_withdrawn, plan_static_round
from contend.review.target import Target, resolve_target

Listener = Callable[[dict[str, Any], RunState], None]
DIFF_PROMPT_LIMIT = 400_000


@dataclass
class ReviewRequest:
    path: Path
    base: str | None = None
    head: str | None = None
    staged: bool = False
    commit_range: str | None = None
    spec: str | None = None
    transcript: Path | None = None
    new: bool = False
    resume: bool = False
    apply: bool = False
    out: Path | None = None
    wait_s: float = 0.0
    stdin: TextIO | None = None
    command: str = "contend review"
    agent_factory: Callable[[str, str], Any] | None = None  # (spec, role) → Agent; tests


@dataclass
class ReviewResult:
    run_id: str
    run_dir: Path
    outcome: Outcome
    texts: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def review(
    req: ReviewRequest, settings: Settings, *, listener: Listener | None = None
) -> ReviewResult:
    """Run one review session. Returns after the ledger and the reports are written."""
    target = resolve_target(
        req.path,
        base=req.base,
        head=req.head,
        staged=req.staged,
        commit_range=req.commit_range,
    )
    state_dir = settings.state_path(target.repo_root)
    state_dir.mkdir(parents=True, exist_ok=True)
    _ignore_state_dir(target.repo_root, state_dir)
    with review_lock(state_dir, command=req.command, wait_s=req.wait_s):
        return _Session(req, settings, target, state_dir, listener).run()


def _ignore_state_dir(repo_root: Path, state_dir: Path) -> None:
    """The state dir is repo-local and git-ignored: a `.gitignore` inside it says so
    without touching the user's own ignore files."""
    if state_dir.resolve().is_relative_to(repo_root.resolve()):
        marker = state_dir / ".gitignore"
        if not marker.exists():
            marker.write_text("# created by contend: runs are local state\n*\n")


class _Session:
    def __init__(
        self,
        req: ReviewRequest,
        settings: Settings,
        target: Target,
        state_dir: Path,
        listener: Listener | None,
    ) -> None:
        self.req = req
        self.settings = settings
        self.target = target
        self.state_dir = state_dir
        self.listener = listener
        self.notes: list[str] = list(target.notes)
        self.started = time.perf_counter()

    # --- run selection ------------------------------------------------------------------

    def _open_run(self) -> tuple[str, Recorder, bool]:
        key = self.target.continuation_key
        previous = None if self.req.new else active_run(self.state_dir, key)
        if self.req.resume and previous is None:
            raise UserError(f"nothing to resume on {key}: no active review run")
        if previous is None:
            run_id = new_run_id()
            run_dir = runs_dir(self.state_dir) / run_id
            ledger = Ledger(run_dir / LEDGER_FILE, run_id)
            set_active_run(self.state_dir, key, run_id)
            return run_id, Recorder(ledger), False
        run_dir = runs_dir(self.state_dir) / previous
        path = run_dir / LEDGER_FILE
        ledger = Ledger.open(path, previous)
        result = verify(path, keep_entries=True)
        state = fold(result.entries)
        if ledger.discarded_torn_bytes:
            self.notes.append(
                f"discarded a torn last ledger line ({ledger.discarded_torn_bytes} bytes) "
                "left by a crash; every acknowledged event was kept"
            )
        return previous, Recorder(ledger, state), True

    # --- the session --------------------------------------------------------------------

    def run(self) -> ReviewResult:
        removed = cleanup_stale(self.state_dir, keep=set(), repo=self.target.repo_root)
        self.notes.extend(removed)
        run_id, rec, continued = self._open_run()
        rec.listener = self.listener
        self.rec = rec
        self.run_dir = runs_dir(self.state_dir) / run_id
        resumed = continued and rec.state.interrupted
        self.resuming = resumed
        kind = EventKind.RUN_RESUMED if resumed else EventKind.RUN_STARTED
        if resumed:
            rec.emit_kind(kind)
        rec.emit_kind(
            EventKind.RUN_STARTED,
            run_id=run_id,
            contend=__version__,
            artifact={
                "kind": "change",
                "repo": str(self.target.repo_root),
                "base": self.target.base,
                "head": self.target.head,
                "staged": self.target.staged,
                "label": self.target.label,
                "key": self.target.continuation_key,
            },
            critics=list(self.settings.critics),
            proposer=self.settings.proposer,
            notes=self.notes,
        )
        try:
            outcome = self._body()
        except KeyboardInterrupt:
            for thread in rec.state.threads.values():
                if thread.ended is None:
                    rec.emit_kind(EventKind.THREAD_ENDED, thread=thread.name, reason="interrupt")
            rec.emit_kind(EventKind.RUN_INTERRUPTED)
            rec.checkpoint()
            rec.ledger.close()
            raise
        rec.emit_kind(
            EventKind.RUN_FINISHED,
            verdict=str(outcome.verdict),
            reasons=list(outcome.reasons),
            exit_code=outcome.exit_code,
            wall_s=round(time.perf_counter() - self.started, 3),
        )
        rec.checkpoint()
        rec.ledger.close()
        texts = write_outputs(
            rec.state,
            outcome,
            self.run_dir,
            self.req.out,
            wall_time_s=float((rec.state.finished or {}).get("wall_s", 0.0)),
        )
        return ReviewResult(run_id, self.run_dir, outcome, texts, self.notes)

    def _body(self) -> Outcome:
        rec = self.rec
        target = self.target
        changes, skipped = collect_changes(
            target.repo_root,
            target.base,
            target.head,
            staged=target.staged,
            max_file_bytes=self.settings.max_file_bytes,
        )
        for s in skipped:
            rec.emit_kind(
                EventKind.FILE_SKIPPED,
                path=s.path,
                reason=s.reason,
                topic=str(s.topic) if s.topic else None,
            )
        spec = load_spec(
            target, spec_arg=self.req.spec, transcript=self.req.transcript, stdin=self.req.stdin
        )
        rec.emit_kind(
            EventKind.SPEC_LOADED,
            source=spec.source,
            path=spec.path,
            text=(spec.text or "")[:65536],
            chars=len(spec.text or ""),
        )
        if not changes and not skipped:
            if not rec.state.attacks:
                return decide(rec.state, nothing_to_review=True)
            # The change was withdrawn: its disputes are resolved as such, and the verdict
            # follows from the dispute set, not from "nothing to review".
            for event in plan_change_withdrawn(rec.state):
                rec.emit(event)
            return decide(rec.state, min_families=self.settings.min_families)
        changed_lines = sum(len(c.added_lines) + len(c.removed_lines) for c in changes)
        trivial = self.settings.trivial_diff_lines
        if trivial and changed_lines < trivial and not skipped and not rec.state.attacks:
            outcome = decide(rec.state, nothing_to_review=True)
            return Outcome(
                outcome.verdict,
                (f"trivial change: {changed_lines} changed lines < trivial_diff_lines {trivial}",),
            )
        static_topics, agent_specs = _split_critics(self.settings.critics)
        needs_tree = bool(agent_specs) or bool(self.settings.gates)
        snapshot = self._snapshot(run_id=rec.ledger.run_id) if needs_tree else None
        worktrees = WorktreeManager(
            target.repo_root, self.state_dir / "worktrees" / rec.ledger.run_id
        )
        try:
            if self.settings.gates:
                assert snapshot is not None
                gate_tree = worktrees.create("gates", snapshot)
                if not asyncio.run(self._gates(gate_tree, "entry")):
                    return decide(rec.state)
            if static_topics:
                self._static_round(static_topics, changes, skipped)
            if agent_specs:
                assert snapshot is not None
                asyncio.run(self._agent_threads(agent_specs, spec, snapshot, worktrees))
        finally:
            worktrees.remove_all()
        return decide(rec.state, min_families=self.settings.min_families)

    def _snapshot(self, run_id: str) -> str:
        ref = f"refs/contend/snapshots/{run_id}/s{self.rec.state.sessions}"
        if self.target.head is not None:
            return self.target.head
        if self.target.staged:
            return snapshot_index(self.target.repo_root, ref)
        return snapshot_worktree(self.target.repo_root, ref)

    async def _gates(self, cwd: Path, when: str, thread: str | None = None) -> bool:
        ok = True
        for cmd in self.settings.gates:
            result = await run_gate(cmd, cwd, when=when, thread=thread)
            self.rec.emit_kind(EventKind.GATE_RAN, **result)
            ok = ok and bool(result["ok"])
        return ok

    def _static_round(
        self, topics: set[Topic], changes: Sequence[Any], skipped: Sequence[Any]
    ) -> None:
        t0 = time.perf_counter()
        result = run_static(changes, topics)
        wall = time.perf_counter() - t0
        skipped_paths = {s.path for s in [*skipped, *result.skipped]}
        for s in result.skipped:
            if s not in skipped:
                self.rec.emit_kind(
                    EventKind.FILE_SKIPPED,
                    path=s.path,
                    reason=s.reason,
                    topic=str(s.topic) if s.topic else None,
                )
        model = f"contend-static/{__version__}"
        for topic in sorted(topics):
            mine = [f for f in result.findings if f.topic == topic]
            for event in plan_static_round(
                self.rec.state,
                topic,
                mine,
                skipped_paths=skipped_paths,
                model=model,
                wall_s=wall / max(len(topics), 1),
                changed_paths=[c.path for c in changes],
            ):
                self.rec.emit(event)

    async def _agent_threads(
        self, specs: list[str], spec: Spec, snapshot: str, worktrees: WorktreeManager
    ) -> None:
        from contend.agents.registry import resolve

        def make(agent_spec: str, role: str) -> Any:
            if self.req.agent_factory is not None:
                return self.req.agent_factory(agent_spec, role)
            return resolve(agent_spec, self.settings, role)  # type: ignore[arg-type]

        proposer_spec = self.settings.proposer
        limits = Limits(
            max_rounds=self.settings.max_rounds,
            max_thread_tokens=self.settings.limits.max_thread_tokens,
            max_thread_cost=self.settings.limits.max_thread_cost,
            max_run_tokens=self.settings.limits.max_run_tokens,
            max_run_cost=self.settings.limits.max_run_cost,
        )
        base = self.target.base

        def diff_for(tree: Path) -> str:
            text, truncated = worktrees.diff_text(base, tree, max_bytes=DIFF_PROMPT_LIMIT)
            return text + ("\n[diff truncated]" if truncated else "")

        async def gates_in(tree: Path, when: str) -> list[dict[str, Any]]:
            return [await run_gate(cmd, tree, when=when) for cmd in self.settings.gates]

        ctx = RunContext(
            spec=spec.text,
            invariants=self._invariants(),
            limits=limits,
            timeout_s=self.settings.agent_timeout,
            diff_for=diff_for,
            commit_fix=worktrees.commit_all,
            reset_to=worktrees.reset,
            head_of=worktrees.head,
            run_gates=gates_in,
            taken_topics=[t.topic for t in self.rec.state.threads.values() if t.topic],
        )
        oracle = make(self.settings.oracle, "oracle") if self.settings.oracle else None
        sem = asyncio.Semaphore(self.settings.parallelism)
        threads: list[AgentThread] = []
        for index, agent_spec in enumerate(specs, start=1):
            name = f"C{index}"
            tree = worktrees.create(name, self._thread_head(name, snapshot))
            proposer = (
                None if proposer_spec in ("none", "human") else make(proposer_spec, "proposer")
            )
            critic = make(agent_spec, "critic")
            if (
                proposer is not None
                and proposer.family == critic.family
                and proposer.model == critic.model
            ):
                raise UserError(
                    f"critic {agent_spec!r} is the proposer's own model ({critic.model}, "
                    f"family {critic.family}): it would share every blind spot; use another "
                    "model, or better another family"
                )
            setup = ThreadSetup(
                name=name,
                critic_spec=agent_spec,
                critic=critic,
                proposer=proposer,
                worktree=tree,
                oracle=oracle,
            )
            threads.append(AgentThread(self.rec, ctx, setup))

        async def bounded(thread: AgentThread) -> None:
            async with sem:
                await thread.run()

        await asyncio.gather(*(bounded(t) for t in threads))
        heads = {t.name: worktrees.head(t.s.worktree) for t in threads}
        fixed = {name: head for name, head in heads.items() if head != snapshot}
        if fixed:
            merge = worktrees.merge(snapshot, fixed)
            self.rec.emit_kind(
                EventKind.MERGE,
                merged=merge.merged_commit,
                threads=sorted(fixed),
                conflicts=[dataclasses.asdict(c) for c in merge.conflicts],
            )
            if self.settings.gates and merge.path is not None:
                await self._gates(merge.path, "merged")
            if self.req.apply and merge.merged_commit:
                apply_to_worktree(self.target.repo_root, snapshot, merge.merged_commit)

    def _thread_ref(self, name: str) -> str:
        return f"refs/contend/threads/{self.rec.ledger.run_id}/{name}"

    def _save_thread_head(self, name: str, commit: str) -> None:
        # Fix commits outlive the worktree, so an interrupted run resumes with its fixes.
        run_git(self.target.repo_root, ["update-ref", self._thread_ref(name), commit])

    def _thread_head(self, name: str, snapshot: str) -> str:
        """Where a thread's worktree starts: its saved head when resuming an interrupted
        run, else the snapshot under review."""
        if self.resuming:
            try:
                return resolve_commit(self.target.repo_root, self._thread_ref(name))
            # contend: allow silent-fallback -- no saved head: start at the snapshot
            except RevisionNotFound:
                return snapshot
        return snapshot

    def _invariants(self) -> list[tuple[str, str]]:
        found = []
        for name in self.settings.invariants:
            path = self.target.repo_root / name
            if path.is_file():
                found.append((name, path.read_text(encoding="utf-8", errors="replace")))
        return found


def _split_critics(specs: Sequence[str]) -> tuple[set[Topic], list[str]]:
    topics: set[Topic] = set()
    agents: list[str] = []
    for spec in specs:
        if spec == "static" or spec.startswith("static:"):
            topics |= set(parse_selection(spec))
        else:
            agents.append(spec)
    return topics, agents
