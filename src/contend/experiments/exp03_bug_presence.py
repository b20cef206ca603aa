"""Experiment 03, bug presence: N agents judge a change for a defect; does their agreement
track the planted ground truth?

Items are the planted-defect bank (defect operators vs benign controls; look-alike controls
touch what critics watch and are the ambiguous ones). Safety: precision and recall of the
verdict when all N agree (and of the majority verdict); liveness: how often they agree at
all, on clear items and on look-alikes.
"""

from __future__ import annotations

from typing import Any

from contend.executor import Cell
from contend.experiments.agents import Context, ask_all, usage
from contend.experiments.bank import Bank
from contend.experiments.framework import (
    Analysis,
    Figure,
    RunConfig,
    Series,
    Table,
    call_index,
    cell,
    ensemble,
    ok_records,
)
from contend.experiments.metrics import Rate, rate
from contend.experiments.planted import PlantedItem, planted, unified_diff

ID = "03"
TITLE = "bug presence"
BANK = "03_bug_presence.yaml"
STEPS = 1
VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["defect", "reason"],
    "properties": {"defect": {"type": "boolean"}, "reason": {"type": "string"}},
}
SYSTEM = (
    "You review one code change. Decide whether it introduces a defect: a bug, a failure "
    "that is silently swallowed, a weakened or removed test, a concurrency hazard, or lost "
    "input validation. A behaviour-preserving refactor is not a defect. Answer only with "
    "JSON matching the given schema."
)


def check_bank(bank: Bank) -> None:
    planted(bank)


def plan(bank: Bank, cfg: RunConfig) -> list[Cell]:
    n = int(cfg.params.get("n", 3))
    cells = []
    for ordinal, (item, old) in enumerate(planted(bank)):
        for rep in range(cfg.replicates):
            cells.append(
                cell(
                    ID,
                    f"{item.id}/r{rep}",
                    cfg,
                    item=item.model_dump(),
                    old=old,
                    agents=ensemble(cfg.agents, n, "mixed"),
                    call=call_index(ordinal, 1, STEPS),
                )
            )
    return cells


async def run_cell(payload: dict[str, Any], ctx: Context) -> dict[str, Any]:
    item = PlantedItem.model_validate(payload["item"])
    diff = unified_diff(item.path, payload["old"], item.new)
    prompt = f"## The change\n```diff\n{diff}```\nDoes this change introduce a defect?"
    asked = await ask_all(
        ctx,
        [
            {
                "spec": spec,
                "slot": f"a{i}",
                "call": payload["call"],
                "system": SYSTEM,
                "prompt": prompt,
                "schema": VERDICT_SCHEMA,
            }
            for i, spec in enumerate(payload["agents"])
        ],
    )
    verdicts = [None if a.output is None else bool(a.output["defect"]) for a in asked]
    return {
        "result": {
            "item": item.id,
            "label": item.label,
            "defect": item.defect,
            "lookalike": item.lookalike,
            "verdicts": verdicts,
            "errors": [a.error for a in asked],
        },
        **usage(asked),
    }


def _pr(pairs: list[tuple[bool, bool]]) -> tuple[Rate, Rate]:
    """(precision, recall) of the verdict `said` against `truth` over (said, truth) pairs."""
    tp = sum(1 for said, truth in pairs if said and truth)
    said_yes = sum(1 for said, _ in pairs if said)
    actual = sum(1 for _, truth in pairs if truth)
    return rate(tp, said_yes), rate(tp, actual)


def summarise(results: list[dict[str, Any]]) -> dict[str, Any]:
    unanimous: list[tuple[bool, bool]] = []
    majority: list[tuple[bool, bool]] = []
    agree = {"clear": [0, 0], "lookalike": [0, 0]}
    for r in results:
        votes = r["verdicts"]
        usable = [v for v in votes if v is not None]
        kind = "lookalike" if r["lookalike"] else "clear"
        agree[kind][1] += 1
        if len(usable) == len(votes) and len(set(usable)) == 1:
            unanimous.append((usable[0], r["defect"]))
            agree[kind][0] += 1
        yes = sum(1 for v in usable if v)
        majority.append((yes * 2 > len(votes), r["defect"]))
    up, ur = _pr(unanimous)
    mp, mr = _pr(majority)
    return {
        "n": len(results),
        "unanimous_rate": rate(len(unanimous), len(results)),
        "precision_unanimous": up,
        "recall_unanimous": ur,
        "precision_majority": mp,
        "recall_majority": mr,
        "agreement_clear": rate(*agree["clear"]),
        "agreement_lookalike": rate(*agree["lookalike"]),
    }


def analyse(bank: Bank, records: list[dict[str, Any]], cfg: RunConfig) -> Analysis:
    results = [r["result"] for r in ok_records(records)]
    s = summarise(results)
    by_label: dict[str, list[dict[str, Any]]] = {}
    for r in results:
        by_label.setdefault(r["label"], []).append(r)
    label_rows = []
    for label, group in sorted(by_label.items()):
        flagged = sum(1 for r in group for v in r["verdicts"] if v)
        votes = sum(len(r["verdicts"]) for r in group)
        label_rows.append([label, len(group), rate(flagged, votes).text()])
    tables = [
        Table(
            "Safety when the agents agree, and how often they agree",
            ["metric", "value"],
            [[k, v.text()] for k, v in s.items() if isinstance(v, Rate)],
        ),
        Table(
            "Share of votes saying 'defect', per planted topic",
            ["label", "items", "defect votes"],
            label_rows,
        ),
    ]
    figure = Figure(
        "agreement_clear_vs_lookalike",
        "lines",
        "03: agreement on clear vs look-alike items",
        "item kind (0 clear, 1 look-alike)",
        "unanimous rate",
        [
            Series(
                "agreement",
                [0, 1],
                [s["agreement_clear"].value or 0.0, s["agreement_lookalike"].value or 0.0],
                "o-",
            )
        ],
    )
    finding = (
        f"When all agents agreed ({s['unanimous_rate'].text()} of items) their defect verdict "
        f"had precision {s['precision_unanimous'].text()} and recall "
        f"{s['recall_unanimous'].text()}; agreement on look-alike controls was "
        f"{s['agreement_lookalike'].text()} against {s['agreement_clear'].text()} on clear items."
    )
    data = {k: v.as_dict() if isinstance(v, Rate) else v for k, v in s.items()}
    return Analysis(finding, tables, [figure], data)
