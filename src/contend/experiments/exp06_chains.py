"""Experiment 06, sequential chains: do errors get introduced, propagated, amplified or
corrected when agents consume each other's output?

A chain item is a start value and a list of integer operations (its truth after every step
computed here). Worker j of a chain of length K sees the whole task, applies operation j
and reports the value, given the previous worker's reported value. Seeded chains tell the
first worker a wrong start (`seed_error`); clean chains tell the truth. Per step:

    introduced   input right, output wrong
    corrected    input wrong, output right
    amplified    input wrong, output further from the truth than applying operation j
                 faithfully to that input would be
    propagated   input wrong, output wrong, not amplified
    correct      input right, output right
    no answer    the worker gave no usable value (the chain stops there)
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from contend.executor import Cell
from contend.experiments.agents import Asked, Context, ask
from contend.experiments.bank import Bank, BankError, Strict, validate_items
from contend.experiments.framework import (
    ANSWER_SCHEMA,
    ANSWER_SYSTEM,
    Analysis,
    Figure,
    RunConfig,
    Series,
    Table,
    call_index,
    cell,
    ok_records,
)
from contend.experiments.metrics import rate
from contend.experiments.questions import normalise

ID = "06"
TITLE = "sequential chains"
BANK = "06_chains.yaml"
STEPS = 8  # calls per item: one per operation (banks hold at most 8)
OPS: dict[str, Callable[[int, int], int]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "//": operator.floordiv,
}
FLOW = ("correct", "introduced", "propagated", "amplified", "corrected", "no answer")


class Chain(Strict):
    id: str
    start: int
    ops: list[str]
    seed_error: int


def apply(op: str, value: int) -> int:
    symbol, _, operand = op.strip().partition(" ")
    if symbol not in OPS or not operand.strip().lstrip("-").isdigit():
        raise ValueError(f"operation {op!r} is not '<+|-|*|//> <integer>'")
    return OPS[symbol](value, int(operand))


def truths(c: Chain) -> list[int]:
    """Value after each step (index 0 is the start)."""
    values = [c.start]
    for op in c.ops:
        values.append(apply(op, values[-1]))
    return values


def chains(bank: Bank) -> list[Chain]:
    parsed: list[Chain] = validate_items(bank, Chain)
    for c in parsed:
        if not 1 <= len(c.ops) <= STEPS:
            raise BankError(f"bank {bank.path}: item {c.id}: needs 1..{STEPS} operations")
        if c.seed_error == c.start:
            raise BankError(f"bank {bank.path}: item {c.id}: seed_error equals the start")
        try:
            truths(c)
        except (ValueError, ZeroDivisionError) as exc:
            raise BankError(f"bank {bank.path}: item {c.id}: {exc}") from None
    return parsed


def check_bank(bank: Bank) -> None:
    chains(bank)


def plan(bank: Bank, cfg: RunConfig) -> list[Cell]:
    lengths = [int(k) for k in cfg.params.get("lengths", [2, 4, 6])]
    cells = []
    for ordinal, c in enumerate(chains(bank)):
        for k in (k for k in lengths if k <= len(c.ops)):
            for variant in ("clean", "seeded"):
                for rep in range(cfg.replicates):
                    cells.append(
                        cell(
                            ID,
                            f"{variant}/k{k}/{c.id}/r{rep}",
                            cfg,
                            item=c.model_dump(),
                            k=k,
                            variant=variant,
                            agents=list(cfg.agents),
                            call=call_index(ordinal, 1, STEPS),
                        )
                    )
    return cells


def _prompt(c: Chain, k: int, j: int, claimed: int) -> str:
    ops = ", ".join(f"({i}) {op}" for i, op in enumerate(c.ops[:k], start=1))
    return (
        f"Task: start from {c.start} and apply these integer operations in order "
        f"(// is integer division): {ops}.\nYou are worker {j} of {k}: apply operation ({j}) "
        f"{c.ops[j - 1]}. The previous worker reports that the value before operation ({j}) "
        f"is {claimed}. Reply with the value after operation ({j})."
    )


async def run_cell(payload: dict[str, Any], ctx: Context) -> dict[str, Any]:
    c = Chain.model_validate(payload["item"])
    k, agents = int(payload["k"]), list(payload["agents"])
    claimed = c.seed_error if payload["variant"] == "seeded" else c.start
    inputs: list[int] = []
    outputs: list[int | None] = []
    asked: list[Asked] = []
    for j in range(1, k + 1):
        reply = await ask(
            ctx,
            agents[(j - 1) % len(agents)],
            slot=f"w{j}",
            call=payload["call"] + j - 1,
            system=ANSWER_SYSTEM,
            prompt=_prompt(c, k, j, claimed),
            schema=ANSWER_SCHEMA,
        )
        asked.append(reply)
        inputs.append(claimed)
        value = normalise((reply.output or {}).get("answer"))
        number = int(value) if value is not None and value.lstrip("-").isdigit() else None
        outputs.append(number)
        if number is None:
            break
        claimed = number
    return {
        "result": {
            "chain": c.id,
            "k": k,
            "variant": payload["variant"],
            "truth": truths(c)[: k + 1],
            "inputs": inputs,
            "outputs": outputs,
            "errors": [a.error for a in asked],
        },
        "tokens_in": sum(a.tokens_in for a in asked),
        "tokens_out": sum(a.tokens_out for a in asked),
        "cost": sum(a.cost for a in asked),
    }


def classify(op: str, truth_in: int, truth_out: int, given: int, out: int | None) -> str:
    if out is None:
        return "no answer"
    if given == truth_in:
        return "correct" if out == truth_out else "introduced"
    if out == truth_out:
        return "corrected"
    return "amplified" if abs(out - truth_out) > abs(apply(op, given) - truth_out) else "propagated"


def flows(result: dict[str, Any], ops: list[str]) -> list[str]:
    t = result["truth"]
    return [
        classify(ops[j], t[j], t[j + 1], given, out)
        for j, (given, out) in enumerate(zip(result["inputs"], result["outputs"], strict=True))
    ]


def analyse(bank: Bank, records: list[dict[str, Any]], cfg: RunConfig) -> Analysis:
    by_id = {c.id: c for c in chains(bank)}
    counts: dict[str, dict[int, dict[str, int]]] = {"clean": {}, "seeded": {}}
    finals: dict[tuple[str, int], list[int]] = {}
    for r in [x["result"] for x in ok_records(records)]:
        kinds = flows(r, by_id[r["chain"]].ops)
        for step, kind in enumerate(kinds, start=1):
            counts[r["variant"]].setdefault(step, dict.fromkeys(FLOW, 0))[kind] += 1
        done = len(r["outputs"]) == r["k"] and r["outputs"][-1] == r["truth"][-1]
        tally = finals.setdefault((r["variant"], r["k"]), [0, 0])
        tally[0] += done
        tally[1] += 1
    rows = [
        [v, step, *[c[f] for f in FLOW]]
        for v in ("clean", "seeded")
        for step, c in sorted(counts[v].items())
    ]
    final_rows = [[v, k, rate(*t).text()] for (v, k), t in sorted(finals.items())]
    steps = sorted({s for v in counts.values() for s in v})
    series = [
        Series(
            f"{v}: {f}",
            [float(s) for s in steps],
            [float(counts[v].get(s, {}).get(f, 0)) for s in steps],
        )
        for v in ("clean", "seeded")
        for f in FLOW
    ]
    figure = Figure(
        "chain_error_flow",
        "stacked",
        "06: error flow along the chain",
        "step",
        "links",
        series,
        [str(s) for s in steps],
    )
    seeded = [t for (v, _), t in finals.items() if v == "seeded"]
    clean = [t for (v, _), t in finals.items() if v == "clean"]
    s_rate = rate(sum(t[0] for t in seeded), sum(t[1] for t in seeded))
    c_rate = rate(sum(t[0] for t in clean), sum(t[1] for t in clean))
    corrected = sum(c["corrected"] for c in counts["seeded"].values())
    wrong_in = sum(
        c["corrected"] + c["propagated"] + c["amplified"] for c in counts["seeded"].values()
    )
    finding = (
        f"Seeded chains ended right {s_rate.text()} against {c_rate.text()} for clean ones; "
        f"a wrong input was corrected {rate(corrected, wrong_in).text()} of the time."
    )
    tables = [
        Table("Error flow per step (counts of links)", ["variant", "step", *FLOW], rows),
        Table("Chains ending on the right value", ["variant", "K", "right at the end"], final_rows),
    ]
    data = {"flow": counts, "final": {f"{v}/k{k}": t for (v, k), t in finals.items()}}
    return Analysis(finding, tables, [figure], data)
