"""The verdict of a run and its exit code (DESIGN §2). Safety and liveness stay separate.

pass              nothing unresolved                                          exit 0
conditional_pass  only minor attacks unresolved; caveats listed               exit 0
fail              a critical/major attack unresolved and not deadlocked,
                  or a red gate                                               exit 1
escalate          no block, but liveness failed: a deadlock on a blocking
                  attack, a thread that crashed or gave no usable output,
                  too few model families, no critic ran at all, or a code
                  file that could not be reviewed (a skip marked `blocks`)     exit 3
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from contend.protocol.contention import headline
from contend.protocol.model import Attack, Status
from contend.protocol.state import RunState


class Verdict(StrEnum):
    PASS = "pass"
    CONDITIONAL_PASS = "conditional_pass"
    FAIL = "fail"
    ESCALATE = "escalate"

    @property
    def exit_code(self) -> int:
        return _EXIT[self]


_EXIT = {Verdict.PASS: 0, Verdict.CONDITIONAL_PASS: 0, Verdict.FAIL: 1, Verdict.ESCALATE: 3}


@dataclass(frozen=True, slots=True)
class Outcome:
    verdict: Verdict
    reasons: tuple[str, ...]
    headline: str | None = None
    caveats: tuple[str, ...] = field(default_factory=tuple)

    @property
    def exit_code(self) -> int:
        return self.verdict.exit_code


def decide(state: RunState, *, min_families: int = 1, nothing_to_review: bool = False) -> Outcome:
    """Fold the final run state into a verdict. Fails closed: no critic ran → escalate."""
    top = headline(state.attacks.values())
    top_id = top.id if top is not None else None
    red_gates = [g for g in state.gates if not g.get("ok", False)]
    if red_gates:
        names = ", ".join(str(g.get("name", "gate")) for g in red_gates)
        return Outcome(Verdict.FAIL, ("gate",), top_id, (f"red gate: {names}",))
    if nothing_to_review:
        return Outcome(Verdict.PASS, ("nothing to review",))

    unresolved = state.unresolved()
    blocking = [a for a in unresolved if a.severity.blocks and a.status is not Status.DEADLOCKED]
    if blocking:
        return Outcome(
            Verdict.FAIL,
            (f"{len(blocking)} blocking attack(s) unresolved",),
            top_id,
            _caveats(unresolved),
        )

    liveness: list[str] = []
    deadlocked = [a for a in unresolved if a.status is Status.DEADLOCKED and a.severity.blocks]
    if deadlocked:
        liveness.append(f"deadlock on {len(deadlocked)} blocking attack(s)")
    failed = sorted(t.name for t in state.threads.values() if t.failed)
    if failed:
        liveness.append("thread(s) failed: " + ", ".join(failed))
    silent = sorted(
        t.name for t in state.threads.values() if t.usable_outputs == 0 and not t.failed
    )
    if silent:
        liveness.append("thread(s) without usable output: " + ", ".join(silent))
    if not state.threads or not any(t.usable_outputs > 0 for t in state.threads.values()):
        liveness.append("no critic ran")
    families = state.families()
    if state.threads and len(families) < min_families:
        liveness.append(f"{len(families)} model family(ies), {min_families} required")
    # engine (issue 9): a code file that could not be reviewed never gives pass (DESIGN §9);
    # the engine marks such skips `blocks` when it records them.
    unreviewed = sorted({str(s.get("path")) for s in state.skipped if s.get("blocks")})
    if unreviewed:
        shown = ", ".join(unreviewed[:5]) + (" …" if len(unreviewed) > 5 else "")
        liveness.append(f"{len(unreviewed)} code file(s) could not be reviewed: {shown}")
    if liveness:
        return Outcome(Verdict.ESCALATE, tuple(liveness), top_id, _caveats(unresolved))

    if unresolved:
        return Outcome(
            Verdict.CONDITIONAL_PASS,
            ("only minor attacks unresolved",),
            top_id,
            _caveats(unresolved),
        )
    return Outcome(Verdict.PASS, ("nothing unresolved",))


def _caveats(unresolved: list[Attack]) -> tuple[str, ...]:
    return tuple(
        f"[{a.severity}] {a.location.path}:{a.location.start_line} {a.claim}" for a in unresolved
    )
