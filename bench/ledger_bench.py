"""Build a 100,000-event ledger, then verify it and fold it. Target: < 1 s together.

The ledger is keyed (HMAC-SHA256 chain) and anchored, as every new run is; `--unkeyed`
measures the old sha256 chain. The key and the anchor live in the temporary directory,
never in the user's own config or state.

Run: .venv/bin/python bench/ledger_bench.py [--events N] [--unkeyed]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from contend.ledger.anchor import Anchors
from contend.ledger.keys import load_key
from contend.ledger.store import Ledger
from contend.ledger.verify import verify
from contend.protocol.events import EventKind
from contend.protocol.state import fold


def synthetic_events(n: int) -> list[tuple[str, dict[str, object]]]:
    """A plausible run: 8 threads, rounds of raises, answers, judgements and agent calls."""
    events: list[tuple[str, dict[str, object]]] = [
        (str(EventKind.RUN_STARTED), {"run_id": "bench", "artifact": {"kind": "change"}})
    ]
    threads = [f"t{i}" for i in range(8)]
    for t in threads:
        events.append(
            (str(EventKind.THREAD_STARTED), {"thread": t, "critic": "scripted", "family": t})
        )
    rnd = 0
    attack_no = 0
    while len(events) < n:
        rnd += 1
        for t in threads:
            events.append((str(EventKind.ROUND_STARTED), {"thread": t, "round": rnd}))
            events.append(
                (
                    str(EventKind.AGENT_CALL),
                    {
                        "thread": t,
                        "role": "critic",
                        "tokens_in": 1200,
                        "tokens_out": 300,
                        "cost": 0.002,
                        "usable": True,
                    },
                )
            )
            ids = []
            for _ in range(3):
                attack_no += 1
                aid = f"A{attack_no}"
                ids.append(aid)
                events.append(
                    (
                        str(EventKind.ATTACK_RAISED),
                        {
                            "id": aid,
                            "thread": t,
                            "critic": "scripted",
                            "family": t,
                            "topic": "silent-fallback",
                            "rule": "r",
                            "severity": "major",
                            "location": {"path": "src/x.py", "start_line": 10, "end_line": 12},
                            "claim": "returns a default where it raised",
                            "evidence": "return None",
                            "round": rnd,
                        },
                    )
                )
            for aid, (answer, judgement) in zip(
                ids,
                [("fix", "accept"), ("defend", "re_attack"), ("concede", "accept")],
                strict=True,
            ):
                events.append(
                    (
                        str(EventKind.ATTACK_TRANSITION),
                        {"attack": aid, "action": answer, "by": "proposer", "text": "…"},
                    )
                )
                events.append(
                    (
                        str(EventKind.ATTACK_TRANSITION),
                        {"attack": aid, "action": judgement, "by": "critic", "text": "…"},
                    )
                )
            events.append((str(EventKind.ROUND_CLOSED), {"thread": t, "round": rnd}))
    return events[:n]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--unkeyed", action="store_true", help="the old sha256 chain")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run" / "ledger.jsonl"
        key = (
            None
            if args.unkeyed
            else load_key(create=True, env={"CONTEND_KEY_FILE": str(Path(tmp) / "key")})
        )
        anchors = Anchors(Path(tmp) / "anchors")
        events = synthetic_events(args.events)
        t0 = time.perf_counter()
        with Ledger(path, "bench", key=key, anchors=anchors) as ledger:
            ledger.append_many(events)
        build = time.perf_counter() - t0
        size_mb = path.stat().st_size / 1e6
        totals, verifies, folds = [], [], []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            result = verify(path, keep_entries=True, key=key, anchors=anchors)
            t1 = time.perf_counter()
            state = fold(result.entries)
            t2 = time.perf_counter()
            assert result.strict_ok or key is None, result.unchecked
            assert result.ok and result.count == args.events, result.message
            assert state.events == args.events
            verifies.append(t1 - t0)
            folds.append(t2 - t1)
            totals.append(t2 - t0)
        chain = "sha256 (unkeyed)" if key is None else "hmac-sha256 (keyed), anchored"
        print(f"events: {args.events}  ledger: {size_mb:.1f} MB  chain: {chain}")
        print(f"build (redaction, hashing, one write): {build:.2f} s")
        print(f"verify median: {statistics.median(verifies):.3f} s")
        print(f"fold   median: {statistics.median(folds):.3f} s")
        print(
            f"verify+fold median: {statistics.median(totals):.3f} s "
            f"(min {min(totals):.3f}, max {max(totals):.3f}, {args.repeat} runs; target < 1 s)"
        )
        print(f"attacks: {len(state.attacks)}  unresolved: {len(state.unresolved())}")


if __name__ == "__main__":
    main()
