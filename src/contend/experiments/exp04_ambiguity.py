"""Experiment 04, partial-agreement maps: does disagreement locate spec ambiguity?

Specs come in pairs: a vague one and a clarified one. Each spec lists the implementation
decisions it implies; a decision is ambiguous exactly when the spec does not pin its value
(`pinned: null`), and a pinned value must appear in the spec's text (checked in code, so a
label cannot silently contradict its spec). N agents answer every decision; per decision
the disagreement is the normalised entropy of the answers (choices) or their coefficient
of variation (numbers). Disagreement is then scored as an ambiguity detector: ROC and AUC.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from contend.executor import Cell
from contend.experiments.agents import Context, ask_all, usage
from contend.experiments.bank import Bank, BankError, Strict, validate_items
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
from contend.experiments.metrics import coefficient_of_variation, entropy, roc_auc, roc_curve
from contend.experiments.questions import normalise

ID = "04"
TITLE = "partial-agreement maps"
BANK = "04_ambiguity.yaml"
STEPS = 1
CV_CAP = 10.0  # a zero-mean spread has infinite CV; capped so it still ranks highest


class Decision(Strict):
    id: str
    question: str
    type: Literal["number", "choice"]
    pinned: str | None = None


class Spec(Strict):
    id: str
    pair: str
    text: str
    decisions: list[Decision]


SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["decisions"],
    "properties": {
        "decisions": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["id", "value"],
                "properties": {"id": {"type": "string"}, "value": {"type": "string"}},
            },
        }
    },
}
SYSTEM = (
    "You are about to implement a spec. For each decision listed, say what you would do, "
    "as a short value (a number for numeric decisions). Where the spec does not say, make "
    "the choice you find most natural. Answer only with JSON matching the given schema."
)


def specs(bank: Bank) -> list[Spec]:
    parsed: list[Spec] = validate_items(bank, Spec)
    for s in parsed:
        for d in s.decisions:
            if d.pinned is not None and d.pinned.lower() not in s.text.lower():
                raise BankError(
                    f"bank {bank.path}: item {s.id}: decision {d.id} is pinned to "
                    f"{d.pinned!r}, which its spec text does not say"
                )
    return parsed


def check_bank(bank: Bank) -> None:
    specs(bank)


def plan(bank: Bank, cfg: RunConfig) -> list[Cell]:
    n = int(cfg.params.get("n", 5))
    return [
        cell(
            ID,
            f"{s.id}/r{rep}",
            cfg,
            item=s.model_dump(),
            agents=ensemble(cfg.agents, n, "mixed"),
            call=call_index(ordinal, 1, STEPS),
        )
        for ordinal, s in enumerate(specs(bank))
        for rep in range(cfg.replicates)
    ]


def _prompt(s: Spec) -> str:
    listed = "\n".join(f"- {d.id} ({d.type}): {d.question}" for d in s.decisions)
    return f"## Spec\n{s.text}\n\n## Decisions\n{listed}"


async def run_cell(payload: dict[str, Any], ctx: Context) -> dict[str, Any]:
    s = Spec.model_validate(payload["item"])
    asked = await ask_all(
        ctx,
        [
            {
                "spec": spec,
                "slot": f"a{i}",
                "call": payload["call"],
                "system": SYSTEM,
                "prompt": _prompt(s),
                "schema": SCHEMA,
            }
            for i, spec in enumerate(payload["agents"])
        ],
    )
    answers: dict[str, list[str | None]] = {d.id: [] for d in s.decisions}
    for a in asked:
        given = {str(x["id"]): x["value"] for x in (a.output or {}).get("decisions", [])}
        for d in s.decisions:
            answers[d.id].append(normalise(given.get(d.id)))
    return {
        "result": {
            "spec": s.id,
            "pair": s.pair,
            "decisions": [
                {
                    "id": d.id,
                    "type": d.type,
                    "ambiguous": d.pinned is None,
                    "answers": answers[d.id],
                }
                for d in s.decisions
            ],
            "errors": [a.error for a in asked],
        },
        **usage(asked),
    }


def disagreement(kind: str, answers: list[str | None]) -> float:
    """Entropy of the choices, or the CV of the numbers (capped); unusable answers are left
    out, and a decision nobody answered counts as full disagreement."""
    given = [a for a in answers if a is not None]
    if kind == "number":
        numbers = []
        for a in given:
            try:
                numbers.append(float(a))
            except ValueError:
                continue
        if len(numbers) < 2:
            return CV_CAP
        cv = coefficient_of_variation(numbers)
        return min(cv, CV_CAP) if math.isfinite(cv) else CV_CAP
    if not given:
        return 1.0
    return entropy(given)


def analyse(bank: Bank, records: list[dict[str, Any]], cfg: RunConfig) -> Analysis:
    rows, scores, labels, data = [], [], [], []
    for r in [x["result"] for x in ok_records(records)]:
        for d in r["decisions"]:
            score = disagreement(d["type"], d["answers"])
            scores.append(score)
            labels.append(bool(d["ambiguous"]))
            rows.append(
                [
                    r["spec"],
                    d["id"],
                    d["type"],
                    "yes" if d["ambiguous"] else "no",
                    f"{score:.3f}",
                    ", ".join(str(a) for a in d["answers"]),
                ]
            )
            data.append(
                {
                    "spec": r["spec"],
                    "decision": d["id"],
                    "ambiguous": d["ambiguous"],
                    "disagreement": score,
                    "answers": d["answers"],
                }
            )
    auc = roc_auc(scores, labels) if scores else None
    points = roc_curve(scores, labels) if scores else []
    pos = sum(labels)
    figure = Figure(
        "roc_disagreement",
        "roc",
        "04: disagreement as an ambiguity detector",
        "false positive rate",
        "true positive rate",
        [
            Series(
                f"disagreement (AUC {auc:.2f})" if auc is not None else "disagreement",
                [p.fpr for p in points],
                [p.tpr for p in points],
            )
        ],
    )
    table = Table(
        "Disagreement map: one row per spec decision",
        ["spec", "decision", "type", "ambiguous", "disagreement", "answers"],
        rows,
    )
    finding = (
        f"Disagreement separated ambiguous from pinned decisions with ROC AUC "
        f"{'n/a' if auc is None else f'{auc:.2f}'} "
        f"({_auc_ci(auc, pos, len(labels) - pos)}, n={len(labels)} decisions, {pos} ambiguous)."
    )
    return Analysis(
        finding,
        [table],
        [figure],
        {"auc": auc, "decisions": data, "roc": [[p.fpr, p.tpr] for p in points]},
    )


def _auc_ci(auc: float | None, pos: int, neg: int) -> str:
    """95% interval of an AUC by Hanley and McNeil (1982)."""
    if auc is None or pos == 0 or neg == 0:
        return "95% CI n/a"
    q1, q2 = auc / (2 - auc), 2 * auc * auc / (1 + auc)
    var = (auc * (1 - auc) + (pos - 1) * (q1 - auc**2) + (neg - 1) * (q2 - auc**2)) / (pos * neg)
    half = 1.959963984540054 * math.sqrt(max(var, 0.0))
    return f"95% CI [{max(0.0, auc - half):.2f}, {min(1.0, auc + half):.2f}]"
