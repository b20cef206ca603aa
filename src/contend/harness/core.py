"""The slice state machine (pure): given what has happened, the next step.

    implement → (no change | wrote outside → end) → gates ─red→ implement (gate output) …
                                                          └green→ review
    review ─pass/conditional_pass→ ready
           ─fail→ implement (findings), at most max_attack_rounds times
                  → then, with an oracle (topology D): oracle → implement (plan) → gates → review
                  → else escalate
           ─escalate (critics could not run)→ escalate

The driver (`slice`, on the one driver through harness/plan.py) performs each step and
reports its result, which is folded with one of the `on_*` functions; nothing here touches
git, agents or files. A slice never ends merged: its best
outcome is a branch ready to merge.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

StepKind = Literal["implement", "gates", "review", "oracle", "done"]
Brief = Literal["spec", "gates", "findings", "plan"]
Verdict = Literal["pass", "conditional_pass", "fail", "escalate"]
EXIT_CODES: dict[str, int] = {"pass": 0, "conditional_pass": 0, "fail": 1, "escalate": 3}


@dataclass(frozen=True, slots=True)
class Step:
    kind: StepKind
    brief: Brief | None = None  # for "implement": what the implementer is handed


@dataclass(frozen=True, slots=True)
class Outcome:
    verdict: Verdict
    reason: str
    ready: bool  # the slice's branch is ready to merge

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]


@dataclass(slots=True)
class SliceState:
    max_attack_rounds: int
    gate_cap: int
    has_gates: bool
    has_oracle: bool
    passes: int = 0  # implementer passes
    gate_failures: int = 0  # red gate runs since the implementer last got a new brief
    reviews: int = 0
    fix_rounds: int = 0
    oracle_used: bool = False
    next: Step = field(default_factory=lambda: Step("implement", "spec"))
    outcome: Outcome | None = None

    def _end(self, verdict: Verdict, reason: str, *, ready: bool = False) -> None:
        self.outcome = Outcome(verdict, reason, ready)
        self.next = Step("done")

    @property
    def first_pass(self) -> bool:
        """Ready on the first review, with no fix round and no gate retry."""
        return (
            self.outcome is not None
            and self.outcome.ready
            and self.reviews == 1
            and self.passes == 1
        )


def on_implemented(s: SliceState, *, changed: bool, outside: list[str]) -> None:
    """The implementer finished a pass. Writes outside the worktree end the slice (they were
    reverted by the driver); a pass that leaves the branch without any change ends it too."""
    s.passes += 1
    if outside:
        shown = ", ".join(outside[:3]) + (" …" if len(outside) > 3 else "")
        s._end(
            "fail", f"the implementer wrote outside its worktree ({shown}); refused and reverted"
        )
        return
    if not changed:
        s._end("escalate", "the implementer produced no change")
        return
    s.next = Step("gates") if s.has_gates else Step("review")


def on_implementer_failed(s: SliceState, error: str) -> None:
    """The implementer's pass failed (its backend): the pass counts, the slice escalates."""
    s.passes += 1
    s._end("escalate", f"the implementer failed: {error}")


def on_gates(s: SliceState, *, green: bool, timed_out: bool = False) -> None:
    if green:
        s.gate_failures = 0
        s.next = Step("review")
        return
    s.gate_failures += 1
    if s.gate_failures > s.gate_cap:
        why = "a gate timed out" if timed_out else "the gates stayed red"
        s._end("fail", f"{why} after {s.gate_failures} attempt(s) (gate cap {s.gate_cap})")
        return
    s.next = Step("implement", "gates")


def on_review(s: SliceState, verdict: Verdict, reason: str = "") -> None:
    s.reviews += 1
    if verdict in ("pass", "conditional_pass"):
        s._end(verdict, reason or "no blocking finding stands", ready=True)
        return
    if verdict == "escalate":
        s._end("escalate", f"the review could not conclude: {reason}")
        return
    if s.oracle_used:
        s._end("escalate", "blocking findings still stand after the oracle's plan")
        return
    if s.fix_rounds < s.max_attack_rounds:
        s.fix_rounds += 1
        s.gate_failures = 0
        s.next = Step("implement", "findings")
        return
    if s.has_oracle:
        s.next = Step("oracle")
        return
    s._end(
        "escalate",
        f"blocking findings still stand after {s.fix_rounds} fix round(s) "
        f"(max_attack_rounds {s.max_attack_rounds})",
    )


def on_oracle(s: SliceState, *, plan: str | None, error: str = "") -> None:
    s.oracle_used = True
    if not plan:
        s._end("escalate", f"the oracle gave no plan{': ' + error if error else ''}")
        return
    s.gate_failures = 0
    s.next = Step("implement", "plan")
