"""What the one driver costs a claim's rounds: CPU of driving claims on `Drive`, planning
from the fold of their events (claims/driver.run_rounds), against the loop the rounds had
before (plan from the state the planner carried in its step, perform, repeat), in the same
process on the same scripted claims, with the same in-memory speakers (no agent, no
ledger: the planner, the fold and the loop are all that is measured).

The claims are drawn from a seeded generator: three axes, a proponent on half of them, a
meta-judge on half, turns that attack, concede, narrow, fall silent or fail. Each side
runs `--rounds` times alternately; each time the best of `--repeat` passes over all claims,
in process CPU time. The figure is the median; the ratio is the median of the rounds'
drive/loop ratios.

Run: nice -n 10 .venv/bin/python bench/claims_drive_bench.py [--claims 300] [--rounds 7]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from contend.agents.base import AgentRequest
from contend.claims.driver import perform, run_rounds
from contend.claims.events import Event
from contend.claims.round_state import AgentOutput, Setup, State, start
from contend.claims.rounds import plan
from contend.claims.speakers import Panel

AXES = ("internal-logic", "external-fact", "internal-fact")
TEXTS = ("the sample is small", "the unit is wrong", "the baseline differs", "the run is old")


def _turn(rng: random.Random) -> dict[str, Any] | None:
    if rng.random() < 0.1:
        return None
    attacks = [
        {
            "text": rng.choice(TEXTS),
            "decisive": rng.random() < 0.5,
            "evidence": ["E1"],
            "narrowing": rng.choice(["", "", "a narrower claim"]),
        }
        for _ in range(rng.choice([0, 0, 1, 2]))
    ]
    return {
        "no_attack_point": not attacks,
        "position": rng.choice(["accept", "reject"]),
        "attacks": attacks,
        "meta_attacks": [],
        "withdrawn": rng.choice([[], [], ["IL-1"]]),
        "concessions": rng.choice(
            [[], [{"attack_id": "IL-1", "text": "my evidence E1 was defeated by evidence P1-1"}]]
        ),
        "external_tools": rng.choice([[], ["tool-a"]]),
        "community_sources": [],
    }


def _proponent(rng: random.Random) -> dict[str, Any] | None:
    if rng.random() < 0.2:
        return None
    return {
        "evidence": [{"source_type": "logic", "argument": "it follows"}] * rng.choice([0, 1]),
        "answers": rng.choice([[], ["IL-1"], ["EF-1"]]),
        "narrowed_claim": rng.choice(["", "", "a narrower claim"]),
        "added_assumptions": rng.choice([[], ["warm cache"]]),
        "withdrawn_evidence": [],
        "schema_context": "",
        "note": "",
    }


REPORT = {
    "agreed_subclaims": [],
    "unresolved": [
        {
            "subclaim": "the claim",
            "issue": "the sample size",
            "support_evidence": ["E1"],
            "support_final": "it holds",
            "opposition_attack": "the sample is small",
            "opposition_evidence": [],
            "cause": "missing-evidence",
            "decision_needed": "a larger sample",
        }
    ],
    "reason": "cap",
}


@dataclass
class Scripted:
    """Replies by (who, round): the same for both sides."""

    name: str
    replies: Mapping[int, dict[str, Any] | None]

    async def speak(self, request: AgentRequest, context: Mapping[str, Any]) -> AgentOutput:
        del context
        out = self.replies.get(request.round)
        return AgentOutput(self.name, out, None if out is not None else "backend failed")


def claims(n: int, seed: int) -> list[tuple[Setup, Panel]]:
    rng = random.Random(seed)
    out: list[tuple[Setup, Panel]] = []
    for i in range(n):
        proponent, judge = rng.random() < 0.5, rng.random() < 0.5
        cap = rng.randint(2, 8)
        setup = Setup(
            f"C{i}",
            "a claim",
            {"schema-context": ""},
            {"E1": "x"},
            {a: a for a in AXES},
            proponent="proponent" if proponent else None,
            meta_judge="meta-judge" if judge else None,
            cap=cap,
        )
        rounds = range(1, cap + 1)
        panel = Panel(
            {a: Scripted(a, {r: _turn(rng) for r in rounds}) for a in AXES},
            proponent=Scripted("proponent", {r: _proponent(rng) for r in rounds})
            if proponent
            else None,
            meta_judge=Scripted("meta-judge", {1: REPORT}) if judge else None,
        )
        out.append((setup, panel))
    return out


async def loop_before(state: State, panel: Panel) -> tuple[State, list[Event]]:
    """The rounds' own loop before the one driver: plan from the step's state."""
    log: list[Event] = []
    step = plan(state, None)
    while True:
        log.extend(step.events)
        if step.request is None:
            return step.state, log
        reply = await perform(step.request, step.state.setup.claim_id, panel)
        step = plan(step.state, reply)


async def all_claims(batch: list[tuple[Setup, Panel]], driven: bool) -> int:
    events = 0
    for setup, panel in batch:
        if driven:
            _, log = await run_rounds(start(setup), panel)
        else:
            _, log = await loop_before(start(setup), panel)
        events += len(log)
    return events


def best(batch: list[tuple[Setup, Panel]], driven: bool, repeat: int) -> tuple[float, int]:
    times: list[float] = []
    events = 0
    for _ in range(repeat):
        t0 = time.process_time()
        events = asyncio.run(all_claims(batch, driven))
        times.append(time.process_time() - t0)
    return min(times), events


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--claims", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    batch = claims(args.claims, args.seed)
    drive_s: list[float] = []
    loop_s: list[float] = []
    ratios: list[float] = []
    for _ in range(args.rounds):
        before, n_before = best(batch, False, args.repeat)
        after, n_after = best(batch, True, args.repeat)
        if n_before != n_after:
            raise SystemExit(f"the two sides wrote {n_before} and {n_after} events")
        loop_s.append(before)
        drive_s.append(after)
        ratios.append(after / before)
    print(f"claims: {args.claims}, events per pass: {n_after}")
    print(f"own loop (plan from the step's state): {statistics.median(loop_s):.3f} s CPU")
    print(f"one driver (plan from the fold):       {statistics.median(drive_s):.3f} s CPU")
    print(f"ratio driver/loop: {statistics.median(ratios):.3f}x (median of {args.rounds})")


if __name__ == "__main__":
    main()
