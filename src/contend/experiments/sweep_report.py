"""Write a simulator sweep: sweep.json, sweep.md (table) and sweep.png (survival vs k for
vote and adversarial across rho)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from contend.experiments.framework import Figure, Series, Table
from contend.experiments.plots import draw
from contend.experiments.report import table_md, write_atomic


def write_sweep(out: Path, p: float, rows: list[dict[str, Any]]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(
        out / "sweep.json",
        json.dumps({"schema": "contend.sweep/v1", "p": p, "rows": rows}, indent=1) + "\n",
    )
    table = Table(
        f"Flaw survival vs number of critics k (every p = {p:g})",
        ["rho", "k", "adversarial", "± se", "majority", "± se", "exact adversarial"],
        [
            [
                r["rho"],
                r["k"],
                f"{r['adversarial_survival']:.4f}",
                f"{r['stderr']['adversarial']:.4f}",
                f"{r['majority_survival']:.4f}",
                f"{r['stderr']['majority']:.4f}",
                _exact(r),
            ]
            for r in rows
        ],
    )
    write_atomic(out / "sweep.md", table_md(table))
    series = []
    for rho in sorted({r["rho"] for r in rows}):
        mine = [r for r in rows if r["rho"] == rho]
        ks = [float(r["k"]) for r in mine]
        series.append(
            Series(f"adversarial, rho={rho:g}", ks, [r["adversarial_survival"] for r in mine], "-")
        )
        series.append(
            Series(f"majority, rho={rho:g}", ks, [r["majority_survival"] for r in mine], "--")
        )
    draw(
        Figure(
            "sweep",
            "lines",
            f"Flaw survival vs critics (p={p:g})",
            "critics k",
            "survival probability",
            series,
        ),
        out / "sweep.png",
    )


def _exact(row: dict[str, Any]) -> str:
    value = row.get("closed_form_adversarial", row.get("quadrature_adversarial"))
    return "n/a" if value is None else f"{value:.4f}"
