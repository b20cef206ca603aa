"""What every experiment module provides, and the shapes its results take.

An experiment module defines

    TITLE, BANK (the built-in bank's file name), STEPS (agent calls per item, for `call`)
    check_bank(bank) -> None               validate items and compute their ground truth
    plan(bank, RunConfig) -> list[Cell]    the grid, pure
    async run_cell(payload, Context) -> {"result", "tokens_in", "tokens_out", "cost"}
    analyse(bank, records, RunConfig) -> Analysis     metrics, pure

`Analysis` holds Markdown tables, figures as data (drawn by `plots`), the JSON behind
them and the experiment's finding in one sentence with its n and confidence interval.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from contend.executor import Cell

CELL_TASK = "contend.experiments.cells:run_cell"
ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["answer"],
    "properties": {"answer": {"type": "string", "description": "the value only"}},
}
ANSWER_SYSTEM = (
    "You answer questions that have one verifiable answer. Work it out carefully. "
    "Answer only with JSON matching the given schema; put the value alone in 'answer'."
)


@dataclass(frozen=True, slots=True)
class RunConfig:
    agents: tuple[str, ...]
    replicates: int = 1
    params: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    timeout_s: float = 300.0
    proposer: str = "none"
    budget_tokens: int | None = None

    def manifest(self) -> dict[str, Any]:
        """What must not change between sessions of one grid."""
        return {
            "agents": list(self.agents),
            "replicates": self.replicates,
            "params": self.params,
            "proposer": self.proposer,
            "budget_tokens": self.budget_tokens,
        }


@dataclass(frozen=True, slots=True)
class Table:
    title: str
    headers: list[str]
    rows: list[list[Any]]


@dataclass(frozen=True, slots=True)
class Series:
    label: str
    x: list[float]
    y: list[float]
    style: str = "-"


@dataclass(frozen=True, slots=True)
class Figure:
    name: str  # file stem
    kind: str  # "lines" | "roc" | "stacked"
    title: str
    xlabel: str
    ylabel: str
    series: list[Series]
    categories: list[str] = field(default_factory=list)  # x tick labels of "stacked"


@dataclass
class Analysis:
    finding: str
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)


def cell(experiment: str, cell_id: str, cfg: RunConfig, **payload: Any) -> Cell:
    """A cell of `experiment` with the run-wide payload (settings, timeout) added."""
    return Cell(
        id=f"{experiment}/{cell_id}",
        task=CELL_TASK,
        payload={
            "experiment": experiment,
            "settings": cfg.settings,
            "timeout_s": cfg.timeout_s,
            **payload,
        },
    )


def ensemble(agents: tuple[str, ...], n: int, kind: str) -> list[str]:
    """n agent specs: all the first agent (homogeneous) or the agents in turn (mixed)."""
    if kind == "homogeneous":
        return [agents[0]] * n
    return [agents[i % len(agents)] for i in range(n)]


def ensembles(agents: tuple[str, ...]) -> list[str]:
    """Mixed ensembles only when there is more than one agent to mix."""
    return ["homogeneous", "mixed"] if len(set(agents)) > 1 else ["homogeneous"]


def call_index(ordinal: int, step: int, steps: int) -> int:
    """The request round of step `step` (1-based) of the item at `ordinal` (0-based)."""
    return ordinal * steps + step


def ok_records(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in records if r.get("status") == "ok" and r.get("result") is not None]
