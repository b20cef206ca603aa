"""Experiment 01, parallel consensus: N agents answer questions with verifiable answers.

Liveness and safety on separate axes, never one accuracy number:
    liveness  how the vote went: unanimous / majority (not unanimous) / fragmented
    safety    P(correct | unanimous), P(correct | majority)
for N in the bank's `ensemble_sizes` (default 3, 5, 9), homogeneous (N copies of the first
agent) and mixed-family (the agents in turn) ensembles. An agent that gives no usable
answer abstains: it counts in N and against unanimity.
"""

from __future__ import annotations

from typing import Any

from contend.executor import Cell
from contend.experiments.agents import Context, ask_all, usage
from contend.experiments.bank import Bank, validate_items
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
    ensemble,
    ensembles,
    ok_records,
)
from contend.experiments.metrics import plurality, rate
from contend.experiments.questions import Question, normalise, text, truth

ID = "01"
TITLE = "parallel consensus"
BANK = "01_consensus.yaml"
STEPS = 1


def questions(bank: Bank) -> list[Question]:
    parsed: list[Question] = validate_items(bank, Question)
    from contend.experiments.bank import BankError

    for q in parsed:
        try:
            truth(q)
        except (ValueError, KeyError, TypeError, SyntaxError, ZeroDivisionError) as exc:
            raise BankError(
                f"bank {bank.path}: item {q.id}: cannot compute its answer: {exc}"
            ) from None
    return parsed


def check_bank(bank: Bank) -> None:
    questions(bank)


def plan(bank: Bank, cfg: RunConfig) -> list[Cell]:
    sizes = [int(n) for n in cfg.params.get("ensemble_sizes", [3, 5, 9])]
    cells = []
    for ordinal, q in enumerate(questions(bank)):
        for kind in ensembles(cfg.agents):
            for n in sizes:
                for rep in range(cfg.replicates):
                    cells.append(
                        cell(
                            ID,
                            f"{kind}/n{n}/{q.id}/r{rep}",
                            cfg,
                            item=q.model_dump(),
                            truth=truth(q),
                            ensemble=kind,
                            n=n,
                            agents=ensemble(cfg.agents, n, kind),
                            call=call_index(ordinal, 1, STEPS),
                        )
                    )
    return cells


async def run_cell(payload: dict[str, Any], ctx: Context) -> dict[str, Any]:
    q = Question.model_validate(payload["item"])
    asked = await ask_all(
        ctx,
        [
            {
                "spec": spec,
                "slot": f"a{i}",
                "call": payload["call"],
                "system": ANSWER_SYSTEM,
                "prompt": text(q),
                "schema": ANSWER_SCHEMA,
            }
            for i, spec in enumerate(payload["agents"])
        ],
    )
    answers = [normalise((a.output or {}).get("answer")) for a in asked]
    return {
        "result": {
            "ensemble": payload["ensemble"],
            "n": payload["n"],
            "item": q.id,
            "truth": payload["truth"],
            "answers": answers,
            "families": [a.family for a in asked],
            "errors": [a.error for a in asked],
        },
        **usage(asked),
    }


def summarise(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Liveness and safety of one group of votes (pure; the toy-data tests call it)."""
    outcomes = {"unanimous": 0, "majority": 0, "fragmented": 0}
    correct = {"unanimous": 0, "majority": 0}
    for r in results:
        answer, outcome = plurality(r["answers"])
        outcomes[outcome] += 1
        if outcome in correct and answer == r["truth"]:
            correct[outcome] += 1
    n = len(results)
    return {
        "n": n,
        "unanimous": rate(outcomes["unanimous"], n),
        "majority": rate(outcomes["majority"], n),
        "fragmented": rate(outcomes["fragmented"], n),
        "correct_given_unanimous": rate(correct["unanimous"], outcomes["unanimous"]),
        "correct_given_majority": rate(correct["majority"], outcomes["majority"]),
    }


def analyse(bank: Bank, records: list[dict[str, Any]], cfg: RunConfig) -> Analysis:
    results = [r["result"] for r in ok_records(records)]
    groups: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for r in results:
        groups.setdefault((r["ensemble"], int(r["n"])), []).append(r)
    rows: list[list[Any]] = []
    data: list[dict[str, Any]] = []
    series: dict[str, tuple[list[float], list[float]]] = {}
    for (kind, n), group in sorted(groups.items()):
        s = summarise(group)
        rows.append(
            [
                kind,
                n,
                s["n"],
                s["unanimous"].text(),
                s["majority"].text(),
                s["fragmented"].text(),
                s["correct_given_unanimous"].text(),
                s["correct_given_majority"].text(),
            ]
        )
        data.append(
            {
                "ensemble": kind,
                "N": n,
                **{k: v.as_dict() if hasattr(v, "as_dict") else v for k, v in s.items()},
            }
        )
        for key in ("unanimous", "fragmented", "correct_given_unanimous"):
            value = s[key].value
            if value is not None:
                ser = series.setdefault(f"{kind}: {key}", ([], []))
                ser[0].append(n)
                ser[1].append(value)
    table = Table(
        "Liveness (how the vote went) and safety (is the agreed answer right), per ensemble",
        [
            "ensemble",
            "N",
            "votes",
            "unanimous",
            "majority",
            "fragmented",
            "P(correct | unanimous)",
            "P(correct | majority)",
        ],
        rows,
    )
    figure = Figure(
        "liveness_safety_vs_n",
        "lines",
        "01: agreement and its correctness vs N",
        "agents N",
        "rate",
        [
            Series(label, x, y, "--" if "fragmented" in label else "-")
            for label, (x, y) in series.items()
        ],
    )
    overall = summarise(results)
    finding = (
        f"Unanimity was reached in {overall['unanimous'].text()} of votes and a unanimous "
        f"answer was right {overall['correct_given_unanimous'].text()}; "
        f"{overall['fragmented'].text()} fragmented (liveness failures)."
    )
    return Analysis(finding, [table], [figure], {"groups": data})
