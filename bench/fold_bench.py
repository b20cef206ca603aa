"""Fold CPU time of a 100,000-event ledger, and — given a base commit — the ratio against
that commit's fold, measured in the same run on the same entries.

The entries are written once (bench/ledger_bench.synthetic_events through a real keyed
Ledger, then read back by `verify`), so both sides fold byte-identical data. Each side runs
in its own child process (the base from a scratch `git worktree` of the commit under the
temporary directory, importing its own `src/`); the children run alternately, `--rounds`
times each, and each reports the best of `--repeat` folds in process CPU time. The figure
is the median over rounds; the ratio is the median of the rounds' head/base ratios.

Run: nice -n 10 .venv/bin/python bench/fold_bench.py [--base 385b802] [--events N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# Run in a child with `src` first on sys.path: fold the entries file, print CPU seconds.
_CHILD = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from contend.protocol.state import fold
with open(sys.argv[2], encoding="utf-8") as f:
    entries = json.load(f)
repeat = int(sys.argv[3])
best = float("inf")
for _ in range(repeat):
    t0 = time.process_time()
    state = fold(entries)
    best = min(best, time.process_time() - t0)
assert state.events == len(entries), state.events
print(json.dumps({"fold": best, "attacks": len(state.attacks)}))
"""


def write_entries(path: Path, events: int, tmp: Path) -> None:
    sys.path.insert(0, str(REPO / "bench"))
    from contend.ledger.anchor import Anchors
    from contend.ledger.keys import load_key
    from contend.ledger.store import Ledger
    from contend.ledger.verify import verify
    from ledger_bench import synthetic_events

    key = load_key(create=True, env={"CONTEND_KEY_FILE": str(tmp / "key")})
    anchors = Anchors(tmp / "anchors")
    ledger_path = tmp / "run" / "ledger.jsonl"
    with Ledger(ledger_path, "bench", key=key, anchors=anchors) as ledger:
        ledger.append_many(synthetic_events(events))
    result = verify(ledger_path, keep_entries=True, key=key, anchors=anchors)
    assert result.ok and result.count == events, result.message
    path.write_text(json.dumps(result.entries), encoding="utf-8")


def fold_time(src: Path, entries: Path, repeat: int) -> tuple[float, int]:
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(src), str(entries), str(repeat)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    figures = json.loads(out)
    return float(figures["fold"]), int(figures["attacks"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--base", help="a commit to compare against (e.g. 385b802)")
    parser.add_argument("--rounds", type=int, default=5, help="alternating child runs per side")
    parser.add_argument("--repeat", type=int, default=3, help="folds per child (best kept)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        entries = tmp / "entries.json"
        write_entries(entries, args.events, tmp)
        sides = {"head": REPO / "src"}
        base_tree = tmp / "base"
        if args.base:
            subprocess.run(
                ["git", "-C", str(REPO), "worktree", "add", "--detach", str(base_tree), args.base],
                check=True,
                capture_output=True,
            )
            sides["base"] = base_tree / "src"
        try:
            times: dict[str, list[float]] = {side: [] for side in sides}
            attacks: dict[str, int] = {}
            for _ in range(args.rounds):
                for side, src in sides.items():
                    seconds, attacks[side] = fold_time(src, entries, args.repeat)
                    times[side].append(seconds)
        finally:
            if args.base:
                subprocess.run(
                    ["git", "-C", str(REPO), "worktree", "remove", "--force", str(base_tree)],
                    check=True,
                    capture_output=True,
                )
    print(f"events: {args.events}  rounds: {args.rounds}  best of {args.repeat} folds each")
    for side, values in times.items():
        label = f"{side} ({args.base})" if side == "base" else side
        print(
            f"fold CPU {label}: median {statistics.median(values):.3f} s "
            f"(min {min(values):.3f}, max {max(values):.3f}; attacks {attacks[side]})"
        )
    if args.base:
        # Each round ran head and base back to back, so their ratio shares that moment's
        # load on a shared machine; the median of those paired ratios is the figure.
        paired = statistics.median(h / b for h, b in zip(times["head"], times["base"], strict=True))
        best = min(times["head"]) / min(times["base"])
        print(
            f"ratio head/base: {paired:.3f} ({(paired - 1) * 100:+.1f}%; median of paired rounds; "
            f"bound +5%), best/best {best:.3f}"
        )


if __name__ == "__main__":
    main()
