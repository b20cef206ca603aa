"""Tasks for testing executors (they ship in the library so a process-pool worker or a
Ray worker can import them by name, like any cell task).

    square(payload)    {"x": n, "cost": usd, "sleep": s, "fail": bool} -> n*n, with usage
    asquare(payload)   the same as a coroutine, recording how many run at once
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any

_in_flight = 0
peak_in_flight = 0


def square(payload: Mapping[str, Any]) -> dict[str, Any]:
    x = int(payload["x"])
    if payload.get("sleep"):
        time.sleep(float(payload["sleep"]))
    if payload.get("fail"):
        raise ValueError(f"cell {x} was told to fail")
    return {
        "result": {"x": x, "square": x * x},
        "tokens_in": x,
        "tokens_out": 1,
        "cost": float(payload.get("cost", 0.0)),
    }


async def asquare(payload: Mapping[str, Any]) -> dict[str, Any]:
    global _in_flight, peak_in_flight
    _in_flight += 1
    peak_in_flight = max(peak_in_flight, _in_flight)
    try:
        await asyncio.sleep(float(payload.get("sleep", 0.0)))
        return square({**payload, "sleep": 0})
    finally:
        _in_flight -= 1


def reset_peak() -> None:
    global peak_in_flight
    peak_in_flight = 0
