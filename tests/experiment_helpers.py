"""Scripted agents for the experiment tests, built from the banks themselves.

A scripted agent reads its turn by the request's round, and an experiment asks with
round = `framework.call_index(item ordinal, step, STEPS)`; these helpers write a script
whose turn at each call is what `answer(item, step)` says, so a test states behaviour
("always right", "always the lie") instead of listing turns by hand.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from contend.experiments.catalogue import experiment
from contend.experiments.framework import call_index


def script_for(
    path: Path,
    exp_id: str,
    output: Callable[[dict[str, Any], int], dict[str, Any] | None],
    *,
    family: str = "scripted-a",
    model: str = "script",
    latency_s: float = 0.0,
) -> str:
    """`output(item, step)` is the structured output at that call (None: a malformed
    reply). Returns the agent spec."""
    exp = experiment(exp_id)
    steps = int(exp.module.STEPS)
    items = exp.bank().items
    turns: list[dict[str, Any]] = []
    for ordinal, item in enumerate(items):
        for step in range(1, steps + 1):
            index = call_index(ordinal, step, steps)
            while len(turns) < index:
                turns.append({"raw": "not json"})
            out = output(item, step)
            turns[index - 1] = {"raw": "not json"} if out is None else {"output": out}
    path.write_text(
        json.dumps({"family": family, "model": model, "latency_s": latency_s, "critic": turns})
    )
    return f"scripted:{path}"
