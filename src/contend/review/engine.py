"""`contend review` end to end: target → preflight → lock → ledger → gates → threads → merge
→ verdict.

This module wires the pure core to git, agents and files. Everything it learns goes
through the Recorder (ledger first, then live state); reports are folds of that state.

Order matters: everything that can be checked without writing (target, state directory
location, spec, agents, `--out`, git's directory) is checked before the state directory
is created, the lock taken or a `run_started` written. A session that then fails still
closes its ledger (a `run_interrupted` naming the error), and a run it had just created
does not stay the active one. A run's snapshot, thread and rescue refs live while the run
can be resumed and go when it finishes.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from contend import __version__
from contend.change import CONFIG_FILES, FileChange, Skipped
from contend.config import Settings
from contend.critics.static.js_runner_config import read_runner_config
from contend.critics.static.review_config import configs_of
from contend.critics.static.runner import run_static
from contend.errors import ConfigError, UserError
from contend.gitio.diff import blocks_pass, collect_changes, deleted_sources
from contend.gitio.git import git_text, repo_root, resolve_commit
from contend.gitio.runrefs import (
    delete_run_refs,
    latest_snapshot,
    runs_with_refs,
    save_thread_head,
    snapshot_ref,
    thread_head,
)
from contend.gitio.snapshot import (
    commit_snapshot,
    index_tree,
    remove_stale_temp_indexes,
    worktree_tree,
)
from contend.gitio.worktree import WorktreeManager, apply_to_worktree, cleanup_stale
from contend.ledger.runs import LEDGER_FILE, new_run_id, runs_dir
from contend.ledger.store import Ledger
from contend.ledger.verify import verify
from contend.protocol import events as ev
from contend.protocol.event_types import GateRanData
from contend.protocol.state import RunState, fold
from contend.protocol.termination import Limits
from contend.protocol.verdict import Outcome, decide
from contend.review.active import active_run, all_active_runs, set_active_run
from contend.review.gates import run_gate
from contend.review.lock import review_lock
from contend.review.outputs import write_outputs
from contend.review.preflight import Plan, preflight
from contend.review.recorder import Recorder
from contend.review.state_dir import exclude_paths, locate_state_dir, open_state_dir
from contend.review.static_round import plan_change_withdrawn, plan_static_round
from contend.review.target import Target, resolve_target
from contend.topics import Topic

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
    force: bool = False  # --out may overwrite files contend did not write
    wait_s: float = 0.0
    stdin: TextIO | None = None
    command: str = "contend review"
    agent_factory: Callable[[str, str], Any] | None = None  # (spec, role) → Agent; tests
    # Told each note as it arises, so a session that fails later still shows what it did
    # (a rescued worktree, a lock taken over).
    on_note: Callable[[str], None] | None = None


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
    root = repo_root(req.path)
    state_dir = locate_state_dir(root, settings)
    exclude = exclude_paths(root, state_dir)
    configured = settings.base if req.commit_range is None else None
    target = resolve_target(
        req.path,
        base=req.base if req.base is not None else configured,
        head=req.head,
        staged=req.staged,
        commit_range=req.commit_range,
        exclude=exclude,
    )
    _check_config_revision(settings, target)
    plan = preflight(
        settings,
        target,
        spec_arg=req.spec,
        transcript=req.transcript,
        stdin=req.stdin,
        out=req.out,
        force=req.force,
        agent_factory=req.agent_factory,
    )
    state_dir = open_state_dir(root, settings)
    with review_lock(state_dir, command=req.command, wait_s=req.wait_s) as held:
        session = _Session(req, settings, target, state_dir, exclude, plan, listener)
        session.notes.extend(held.notes)
        session.notes.extend(plan.notes)
        return session.run()


def _check_config_revision(settings: Settings, target: Target) -> None:
    """The project config must have been read at this review's base (DESIGN §9)."""
    rev = settings.origin.project_rev
    if rev is not None and rev != target.base:
        raise ConfigError(
            f"the settings were read from the project config at {rev[:12]}, but this review's "
            f"base is {target.base[:12]}: load them for this target "
            "(load_settings(..., project_rev=target.base))"
        )


class _Session:
    def __init__(
        self,
        req: ReviewRequest,
        settings: Settings,
        target: Target,
        state_dir: Path,
        exclude: list[str],
        plan: Plan,
        listener: Listener | None,
    ) -> None:
        self.req = req
        self.settings = settings
        self.target = target
        self.root = target.repo_root
        self.state_dir = state_dir
        self.exclude = exclude
        self.plan = plan
        self.listener = listener
        self.notes = _Notes(req.on_note)
        self.notes.extend(target.notes)
        self.started = time.perf_counter()

    # --- run selection ------------------------------------------------------------------

    def _open_run(self) -> tuple[str, Recorder, bool, str | None]:
        """(run id, recorder, continued, the previously active run when a new one started)."""
        key = self.target.continuation_key
        previous = None if self.req.new else active_run(self.state_dir, key)
        if self.req.resume and previous is None:
            raise UserError(f"nothing to resume on {key}: no active review run")
        if previous is None:
            replaced = active_run(self.state_dir, key) if self.req.new else None
            run_id = new_run_id()
            run_dir = runs_dir(self.state_dir) / run_id
            ledger = Ledger(run_dir / LEDGER_FILE, run_id)
            set_active_run(self.state_dir, key, run_id)
            return run_id, Recorder(ledger), False, replaced
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
        return previous, Recorder(ledger, state), True, previous

    # --- the session --------------------------------------------------------------------

    def run(self) -> ReviewResult:
        self.notes.extend(remove_stale_temp_indexes(self.root))
        self.notes.extend(cleanup_stale(self.state_dir, keep=set(), repo=self.root))
        run_id, rec, continued, replaced = self._open_run()
        rec.listener = self.listener
        self.rec = rec
        self.run_dir = runs_dir(self.state_dir) / run_id
        self.resuming = continued and rec.state.interrupted
        if self.resuming:
            rec.emit(ev.run_resumed())
        rec.emit(
            ev.run_started(
                run_id=run_id,
                contend=__version__,
                artifact={
                    "kind": "change",
                    "repo": str(self.root),
                    "base": self.target.base,
                    "head": self.target.head,
                    "staged": self.target.staged,
                    "label": self.target.label,
                    "key": self.target.continuation_key,
                },
                critics=list(self.settings.critics),
                proposer=self.settings.proposer,
                config_rev=self.settings.origin.project_rev,
                notes=list(self.notes),
            )
        )
        try:
            outcome = self._body()
        except KeyboardInterrupt:
            # Resumable: the run's refs (snapshot, thread fixes) stay for --resume.
            self._close_unfinished(cause="interrupt")
            raise
        except Exception as exc:
            self._close_unfinished(cause="error", error=str(exc))
            if not continued:
                # A run that never got past its first session is not left active.
                set_active_run(self.state_dir, self.target.continuation_key, replaced)
                delete_run_refs(self.root, run_id)
            raise
        rec.emit(
            ev.run_finished(
                verdict=str(outcome.verdict),
                reasons=list(outcome.reasons),
                exit_code=outcome.exit_code,
                wall_s=round(time.perf_counter() - self.started, 3),
            )
        )
        rec.checkpoint()
        rec.ledger.close()
        removed = delete_run_refs(self.root, run_id)
        if removed:
            self.notes.append(
                f"removed {len(removed)} ref(s) of this run (snapshots, fixes) now that it "
                "has finished"
            )
        # Only now: had this session failed, a run it replaced would be active again.
        self.notes.extend(self._drop_refs_of_ended_runs())
        texts = write_outputs(
            rec.state,
            outcome,
            self.run_dir,
            self.req.out,
            wall_time_s=rec.state.finished.get("wall_s", 0.0) if rec.state.finished else 0.0,
        )
        return ReviewResult(run_id, self.run_dir, outcome, texts, list(self.notes))

    def _close_unfinished(self, *, cause: str, error: str | None = None) -> None:
        rec = self.rec
        for thread in rec.state.threads.values():
            if thread.ended is None:
                rec.emit(ev.thread_ended(thread=thread.name, reason=cause))
        if error is None:
            rec.emit(ev.run_interrupted(cause=cause))
        else:
            rec.emit(ev.run_interrupted(cause=cause, error=error))
        rec.checkpoint()
        rec.ledger.close()

    def _drop_refs_of_ended_runs(self) -> list[str]:
        """Refs of this state directory's runs that no branch would continue any more."""
        folder = runs_dir(self.state_dir)
        known = {p.name for p in folder.iterdir()} if folder.is_dir() else set()
        ended = (runs_with_refs(self.root) & known) - all_active_runs(self.state_dir)
        notes = []
        for run_id in sorted(ended):
            removed = delete_run_refs(self.root, run_id)
            notes.append(
                f"removed {len(removed)} ref(s) of run {run_id}, which can no longer be "
                "resumed (another run replaced it)"
            )
        return notes

    def _body(self) -> Outcome:
        rec = self.rec
        target = self.target
        changes, skipped = collect_changes(
            target.repo_root,
            target.base,
            target.head,
            staged=target.staged,
            max_file_bytes=self.settings.max_file_bytes,
            exclude=self.exclude,
        )
        for s in skipped:
            self._skip(s)
        edits_config = self._note_config_edit(changes)
        spec = self.plan.spec
        rec.emit(
            ev.spec_loaded(
                source=spec.source,
                path=spec.path,
                text=(spec.text or "")[:65536],
                chars=len(spec.text or ""),
            )
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
        # Never for an edit of the review's own configuration: a two-line change that raises
        # the threshold (or drops a critic) would otherwise land without the critic that
        # names it ever running.
        shortcut = not skipped and not rec.state.attacks and not edits_config
        if trivial and changed_lines < trivial and shortcut:
            outcome = decide(rec.state, nothing_to_review=True)
            return Outcome(
                outcome.verdict,
                (f"trivial change: {changed_lines} changed lines < trivial_diff_lines {trivial}",),
            )
        needs_tree = self.plan.needs_tree or bool(self.settings.gates)
        snapshot = self._snapshot() if needs_tree else None
        worktrees = WorktreeManager(
            target.repo_root, self.state_dir / "worktrees" / rec.ledger.run_id
        )
        try:
            if self.settings.gates:
                assert snapshot is not None
                gate_tree = worktrees.create("gates", snapshot)
                if not asyncio.run(self._gates(gate_tree, "entry")):
                    return decide(rec.state)
            if self.plan.static_topics:
                self._static_round(self.plan.static_topics, changes, skipped)
            if self.plan.threads:
                assert snapshot is not None
                asyncio.run(self._agent_threads(snapshot, worktrees))
        finally:
            worktrees.remove_all()
        return decide(rec.state, min_families=self.settings.min_families)

    def _skip(self, s: Skipped) -> None:
        self.rec.emit(
            ev.file_skipped(
                path=s.path,
                reason=s.reason,
                topic=str(s.topic) if s.topic else None,
                blocks=blocks_pass(s),
            )
        )

    def _note_config_edit(self, changes: Sequence[FileChange]) -> bool:
        """Note each edit of contend's configuration (not applied: the base's is); whether
        there was one."""
        edited = False
        for change in changes:
            if change.path not in CONFIG_FILES and (change.old_path or "") not in CONFIG_FILES:
                continue
            old, new = configs_of(change)
            if old != new:
                edited = True
                self.notes.append(
                    f"the change edits contend's review configuration in {change.path}: not "
                    f"applied — this review reads its configuration at the base revision "
                    f"{self.target.base[:12]}"
                )
        return edited

    def _snapshot(self) -> str:
        """The commit the review's worktrees check out: the reviewed commit, else a snapshot
        of the working tree or index — the run's previous one when nothing changed since
        (an interrupted run resumes on the tree its fixes were made on)."""
        if self.target.head is not None:
            return self.target.head
        if self.target.staged:
            tree, what = index_tree(self.root), "the index"
        else:
            tree, what = worktree_tree(self.root, exclude=self.exclude), "the working tree"
        run_id = self.rec.ledger.run_id
        previous = latest_snapshot(self.root, run_id)
        if previous is not None and _tree_of(self.root, previous[1]) == tree:
            return previous[1]
        ref = snapshot_ref(run_id, self.rec.state.sessions)
        return commit_snapshot(self.root, tree, ref, what=what)

    async def _gates(self, cwd: Path, when: str, thread: str | None = None) -> bool:
        ok = True
        for cmd in self.settings.gates:
            result = await run_gate(cmd, cwd, when=when, thread=thread)
            self.rec.emit(ev.gate_ran(**result))
            ok = ok and result.get("ok", False)
        return ok

    def _static_round(
        self, topics: frozenset[Topic], changes: Sequence[Any], skipped: Sequence[Skipped]
    ) -> None:
        t0 = time.perf_counter()
        # The test runner's config at the base says which files are tests (read at the base,
        # as contend's own config is: a change cannot redefine how it is reviewed).
        project_files = read_runner_config(self.root, self.target.base)
        # Deleted modules are not reviewed, but code a change moves out of them is not new.
        moved_from = deleted_sources(
            self.root, self.target.base, skipped, max_file_bytes=self.settings.max_file_bytes
        )
        result = run_static(
            changes,
            topics,
            project_files=project_files,
            blocking=self.settings.static.blocking,
            moved_from=moved_from,
        )
        wall = time.perf_counter() - t0
        skipped_paths = {s.path for s in [*skipped, *result.skipped]}
        for s in result.skipped:
            if s not in skipped:
                self._skip(s)
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

    async def _agent_threads(self, snapshot: str, worktrees: WorktreeManager) -> None:
        # Imported here: the agent side (turn planner, reply schemas, jsonschema) is a tenth
        # of a second of CPU that a review with only static critics never needs.
        from contend.review.agent_thread import AgentThread, RunContext, ThreadSetup

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

        async def gates_in(tree: Path, when: str) -> list[GateRanData]:
            return [await run_gate(cmd, tree, when=when) for cmd in self.settings.gates]

        def commit_fix(tree: Path, message: str) -> str | None:
            commit = worktrees.commit_all(tree, message)
            if commit is not None:
                self._save_thread_head(tree.name, commit)
            return commit

        def reset_to(tree: Path, commit: str) -> None:
            worktrees.reset(tree, commit)
            self._save_thread_head(tree.name, commit)

        ctx = RunContext(
            spec=self.plan.spec.text,
            invariants=self._invariants(),
            limits=limits,
            timeout_s=self.settings.agent_timeout,
            diff_for=diff_for,
            commit_fix=commit_fix,
            reset_to=reset_to,
            head_of=worktrees.head,
            run_gates=gates_in,
        )
        sem = asyncio.Semaphore(self.settings.parallelism)
        threads: list[AgentThread] = []
        for index, agents in enumerate(self.plan.threads, start=1):
            name = f"C{index}"
            tree = worktrees.create(name, self._thread_head(name, snapshot))
            setup = ThreadSetup(
                name=name,
                critic_spec=agents.spec,
                critic=agents.critic,
                proposer=agents.proposer,
                worktree=tree,
                oracle=self.plan.oracle,
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
            self.rec.emit(
                ev.merge(
                    merged=merge.merged_commit,
                    threads=sorted(fixed),
                    conflicts=[
                        {"thread": c.thread, "files": list(c.files), "message": c.message}
                        for c in merge.conflicts
                    ],
                )
            )
            if self.settings.gates and merge.path is not None:
                await self._gates(merge.path, "merged")
            if self.req.apply and merge.merged_commit:
                apply_to_worktree(self.root, snapshot, merge.merged_commit, exclude=self.exclude)

    def _save_thread_head(self, name: str, commit: str) -> None:
        # Fix commits outlive the worktree, so an interrupted run resumes with its fixes.
        save_thread_head(self.root, self.rec.ledger.run_id, name, commit)

    def _thread_head(self, name: str, snapshot: str) -> str:
        """Where a thread's worktree starts: the head it saved in an earlier, unfinished
        session of this run (its fixes), else the snapshot under review."""
        found = thread_head(self.root, self.rec.ledger.run_id, name)
        return resolve_commit(self.root, found) if found else snapshot

    def _invariants(self) -> list[tuple[str, str]]:
        found = []
        for name in self.settings.invariants:
            path = self.target.repo_root / name
            if path.is_file():
                found.append((name, path.read_text(encoding="utf-8", errors="replace")))
        return found


class _Notes(list[str]):
    """The session's notes; each is also handed to `sink` as it is added."""

    def __init__(self, sink: Callable[[str], None] | None) -> None:
        super().__init__()
        self._sink = sink

    def append(self, note: str) -> None:
        super().append(note)
        if self._sink is not None:
            self._sink(note)

    def extend(self, notes: Iterable[str]) -> None:
        for note in notes:
            self.append(note)


def _tree_of(root: Path, commit: str) -> str:
    return git_text(root, ["rev-parse", f"{commit}^{{tree}}"]).strip()
