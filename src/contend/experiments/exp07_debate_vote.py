"""Experiment 07, debate vs vote at a matched token budget, on planted defects.

Per item of the planted-defect bank (defects and benign controls), two arms with the same
agents:

    adversarial  `contend review` itself (`contend.review.engine.review`, the same engine
                 and critics as the command): every agent is a critic thread, the
                 configured proposer answers, the run's verdict decides. `fail` blocks,
                 `escalate` is a liveness outcome, `pass`/`conditional_pass` let it through.
                 One upheld objection suffices.
    vote         the same agents as independent voters, each shown the same spec and diff
                 once (a first critic turn, the critic schema); the change is blocked when
                 more than half of the voters raise a major or critical objection.

The budget match is enforced here, in code: each item's budget B is `budget_tokens` when
set (it also caps the review through `limits.max_run_tokens`), else what the adversarial
arm actually spent. The vote arm then adds voters (the agents in turn) only while the next
vote fits: spent + the dearest vote so far <= B, at least one voter, at most `max_voters`.
Every record carries B and both arms' tokens, and the report shows their ratio and any
cell over budget.
"""

from __future__ import annotations

import asyncio
from typing import Any

import orjson

from contend.config import Settings
from contend.executor import Cell
from contend.experiments.agents import Asked, Context, ask_all
from contend.experiments.bank import Bank
from contend.experiments.framework import (
    Analysis,
    Figure,
    RunConfig,
    Series,
    Table,
    cell,
    ok_records,
)
from contend.experiments.metrics import mean, rate
from contend.experiments.planted import PlantedItem, planted, unified_diff, write_repo
from contend.protocol.reply_schemas import CRITIC_SCHEMA
from contend.review.engine import ReviewRequest, review

ID = "07"
TITLE = "debate vs vote at a matched budget"
BANK = "07_debate_vs_vote.yaml"
STEPS = 1
BLOCKING = frozenset({"critical", "major"})
VOTE_SYSTEM = (
    "You are an independent code reviewer. Find defects in the change you are shown and "
    "state each as an objection with a location and evidence; if you find none, set "
    "no_defect_found to true. Answer only with JSON matching the given schema."
)


def spec_text(item: PlantedItem) -> str:
    return f"Maintenance change to {item.path}. Behaviour and test strength must be preserved."


def check_bank(bank: Bank) -> None:
    planted(bank)


def plan(bank: Bank, cfg: RunConfig) -> list[Cell]:
    cells = []
    for item, old in planted(bank):
        for rep in range(cfg.replicates):
            cells.append(
                cell(
                    ID,
                    f"{item.id}/r{rep}",
                    cfg,
                    item=item.model_dump(),
                    old=old,
                    agents=list(cfg.agents),
                    proposer=cfg.proposer,
                    budget=cfg.budget_tokens,
                    max_rounds=int(cfg.params.get("max_rounds", 2)),
                    max_voters=int(cfg.params.get("max_voters", 15)),
                )
            )
    return cells


def _review(payload: dict[str, Any], ctx: Context, item: PlantedItem) -> dict[str, Any]:
    repo = ctx.workdir / "repo"
    write_repo(repo, item.path, payload["old"], item.new, spec_text(item))
    base = ctx.settings.model_dump(mode="json", by_alias=True)
    overrides: dict[str, Any] = {
        "critics": list(payload["agents"]),
        "proposer": payload["proposer"],
        "max_rounds": payload["max_rounds"],
        "state_dir": ".contend",  # inside the scratch repository, gone with it
        "invariants": [],
        "gates": [],
        "base": None,
        "agent_timeout": ctx.timeout_s,
    }
    if payload.get("budget"):
        overrides["limits"] = {**base.get("limits", {}), "max_run_tokens": int(payload["budget"])}
    settings = Settings.model_validate({**base, **overrides})
    result = review(
        # No --spec: the review reads the task from the change's commit message (spec_text).
        ReviewRequest(path=repo, base="main", head="HEAD"),
        settings,
    )
    report = orjson.loads(result.texts["json"])
    stats = report.get("stats", {})
    return {
        "verdict": str(result.outcome.verdict),
        "disputes": len(report.get("disputes", [])),
        "tokens": int(stats.get("tokens_in", 0)) + int(stats.get("tokens_out", 0)),
        "tokens_in": int(stats.get("tokens_in", 0)),
        "tokens_out": int(stats.get("tokens_out", 0)),
        "cost": float(stats.get("cost", 0.0)),
    }


def _blocks(a: Asked) -> bool | None:
    if a.output is None:
        return None
    return any(o.get("severity") in BLOCKING for o in a.output.get("objections", []))


async def _votes(
    payload: dict[str, Any], ctx: Context, item: PlantedItem, budget: int
) -> tuple[list[Asked], bool]:
    """Voters in turn while the next fits the budget; (votes, over budget)."""
    agents: list[str] = payload["agents"]
    diff = unified_diff(item.path, payload["old"], item.new)
    prompt = f"## The task\n{spec_text(item)}\n\n## The change (unified diff)\n```diff\n{diff}```"

    def call(index: int) -> dict[str, Any]:
        return {
            "spec": agents[index % len(agents)],
            "slot": f"v{index}",
            "call": 1,
            "system": VOTE_SYSTEM,
            "prompt": prompt,
            "schema": CRITIC_SCHEMA,
        }

    votes = await ask_all(ctx, [call(0)])
    max_voters = int(payload["max_voters"])
    while len(votes) < max_voters:
        spent = sum(v.tokens_in + v.tokens_out for v in votes)
        dearest = max(v.tokens_in + v.tokens_out for v in votes)
        room = (budget - spent) // dearest if dearest else max_voters - len(votes)
        batch = min(int(room), max_voters - len(votes))
        if batch <= 0:
            break
        votes += await ask_all(ctx, [call(len(votes) + i) for i in range(batch)])
    spent = sum(v.tokens_in + v.tokens_out for v in votes)
    return votes, spent > budget


async def run_cell(payload: dict[str, Any], ctx: Context) -> dict[str, Any]:
    item = PlantedItem.model_validate(payload["item"])
    adversarial = await asyncio.to_thread(_review, payload, ctx, item)
    budget = int(payload["budget"]) if payload.get("budget") else adversarial["tokens"]
    votes, over = await _votes(payload, ctx, item, max(budget, 1))
    said = [_blocks(v) for v in votes]
    yes = sum(1 for s in said if s)
    vote_tokens = sum(v.tokens_in + v.tokens_out for v in votes)
    return {
        "result": {
            "item": item.id,
            "label": item.label,
            "defect": item.defect,
            "lookalike": item.lookalike,
            "budget": budget,
            "adversarial": adversarial,
            "vote": {
                "voters": len(votes),
                "blocking_votes": yes,
                "blocked": yes * 2 > len(votes),
                "said": said,
                "tokens": vote_tokens,
                "over_budget": over,
                "errors": [v.error for v in votes],
            },
            "budget_matched": not over
            and (not payload.get("budget") or adversarial["tokens"] <= budget),
        },
        "tokens_in": adversarial["tokens_in"] + sum(v.tokens_in for v in votes),
        "tokens_out": adversarial["tokens_out"] + sum(v.tokens_out for v in votes),
        "cost": adversarial["cost"] + sum(v.cost for v in votes),
    }


def arm_outcomes(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Per arm: flaw survival on defects, false blocks on controls, escalations, tokens."""
    defects = [r for r in results if r["defect"]]
    benign = [r for r in results if not r["defect"]]

    def adv_blocked(r: dict[str, Any]) -> bool:
        return bool(r["adversarial"]["verdict"] == "fail")

    def adv_passed(r: dict[str, Any]) -> bool:
        return r["adversarial"]["verdict"] in ("pass", "conditional_pass")

    return {
        "adversarial": {
            "flaw_survival": rate(sum(adv_passed(r) for r in defects), len(defects)),
            "false_block": rate(sum(adv_blocked(r) for r in benign), len(benign)),
            "escalated": rate(
                sum(r["adversarial"]["verdict"] == "escalate" for r in results), len(results)
            ),
            "tokens_per_item": mean([r["adversarial"]["tokens"] for r in results]),
        },
        "vote": {
            "flaw_survival": rate(sum(not r["vote"]["blocked"] for r in defects), len(defects)),
            "false_block": rate(sum(r["vote"]["blocked"] for r in benign), len(benign)),
            "escalated": rate(0, len(results)),
            "tokens_per_item": mean([r["vote"]["tokens"] for r in results]),
        },
        "over_budget": sum(1 for r in results if not r["budget_matched"]),
        "n_defects": len(defects),
        "n_benign": len(benign),
    }


def analyse(bank: Bank, records: list[dict[str, Any]], cfg: RunConfig) -> Analysis:
    results = [r["result"] for r in ok_records(records)]
    o = arm_outcomes(results)
    rows = []
    for arm in ("adversarial", "vote"):
        a = o[arm]
        tokens = a["tokens_per_item"]
        rows.append(
            [
                arm,
                a["flaw_survival"].text(),
                a["false_block"].text(),
                a["escalated"].text(),
                "n/a" if tokens is None else f"{tokens:.0f}",
            ]
        )
    budget_rows = [
        [
            r["item"],
            r["budget"],
            r["adversarial"]["tokens"],
            r["vote"]["tokens"],
            r["vote"]["voters"],
            "yes" if r["budget_matched"] else "NO",
        ]
        for r in results
    ]
    tables = [
        Table(
            "Safety (flaw survival, false blocks) and liveness (escalations) per arm",
            [
                "arm",
                "flaw survival (defects)",
                "false block (controls)",
                "escalated",
                "tokens per item",
            ],
            rows,
        ),
        Table(
            f"Budget match per item ({o['over_budget']} over budget)",
            ["item", "budget B", "adversarial tokens", "vote tokens", "voters", "matched"],
            budget_rows,
        ),
    ]
    adv, vote = o["adversarial"], o["vote"]
    figure = Figure(
        "survival_by_arm",
        "lines",
        "07: flaw survival and false blocks per arm",
        "0 = flaw survival, 1 = false block",
        "rate",
        [
            Series(
                arm,
                [0, 1],
                [o[arm]["flaw_survival"].value or 0.0, o[arm]["false_block"].value or 0.0],
                "o-",
            )
            for arm in ("adversarial", "vote")
        ],
    )
    finding = (
        f"At a matched token budget ({o['over_budget']} of {len(results)} items over budget), "
        f"planted flaws survived adversarial review in {adv['flaw_survival'].text()} against "
        f"{vote['flaw_survival'].text()} under majority vote; false blocks on controls were "
        f"{adv['false_block'].text()} vs {vote['false_block'].text()}."
    )
    data: dict[str, Any] = {
        arm: {k: v.as_dict() if hasattr(v, "as_dict") else v for k, v in o[arm].items()}
        for arm in ("adversarial", "vote")
    }
    data["over_budget"] = o["over_budget"]
    data["items"] = results
    return Analysis(finding, tables, [figure], data)
