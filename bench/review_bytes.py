"""How many bytes reach a critic per turn, against what it needs to see?

Target: each critic turn sends at most 1.3 × (spec + diff + that thread's previous
exchange) bytes — no resending of whole transcripts. The numerator counts everything
sent in the turn (system prompt included); the exchange is every earlier critic output
and proposer answer of the same thread, as recorded in the ledger.

Run: .venv/bin/python bench/review_bytes.py [--files 10]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import tempfile
from pathlib import Path

from contend.config import load_settings
from contend.ledger.verify import verify
from contend.review.engine import ReviewRequest, review
from review_bench_common import debate_scripts, make_repo

SPEC = (
    "Add input validation and an average helper to the billing module.\n\n"
    "Averages must raise ValueError on empty input. Amounts are parsed at the API "
    "boundary into Decimal; core code must not re-validate strings. Keep the public "
    "functions' signatures unchanged and add tests for each new branch.\n"
)


def module(i: int, rng: random.Random, changed: bool) -> str:
    lines = [f'"""Billing helpers, part {i}."""', "", "from decimal import Decimal", ""]
    for f in range(12):
        lines += [
            f"def compute_{i}_{f}(amounts):",
            f"    total = sum(Decimal(a) for a in amounts) * {rng.randint(2, 9)}",
            "    return total"
            if not changed or f % 3
            else "    if not amounts:\n        raise ValueError('no amounts')\n    return total",
            "",
        ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=10)
    args = parser.parse_args()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files = {}
        for i in range(args.files):
            state = rng.getstate()
            base = module(i, rng, False)
            rng.setstate(state)
            files[f"billing/part{i}.py"] = (base, module(i, rng, True))
        files["app.py"] = (
            "def total(items):\n    return sum(items)\n",
            "def total(items):\n    return sum(items) / len(items)\n",
        )
        repo = make_repo(root, files, SPEC)
        critic, proposer = debate_scripts(root, 1, 0.0, claim_pad=" " + "x" * 200)
        settings = load_settings(
            repo, flags={"critics": [critic], "proposer": proposer, "max_rounds": 2}
        )
        result = review(ReviewRequest(path=repo, spec=None), settings)
        diff = subprocess.run(
            ["git", "diff", "main", "HEAD"], cwd=repo, capture_output=True, check=True
        ).stdout
        spec_bytes = len(result_spec(result.run_dir))
        entries = verify(result.run_dir / "ledger.jsonl", keep_entries=True).entries
        exchange = 0
        rows = []
        for e in entries:
            if e["kind"] != "agent_call":
                continue
            data = e["data"]
            response = str(data.get("exchange", {}).get("response", ""))
            if data["role"] == "critic":
                budget = spec_bytes + len(diff) + exchange
                rows.append((data["round"], data["bytes_sent"], budget))
            exchange += len(response.encode())
        print(f"spec {spec_bytes} B, diff {len(diff)} B ({args.files + 1} files)")
        worst = 0.0
        for rnd, sent, budget in rows:
            ratio = sent / budget
            worst = max(worst, ratio)
            print(
                f"critic round {rnd}: sent {sent} B; spec+diff+previous exchange {budget} B; "
                f"ratio {ratio:.3f}"
            )
        print(f"worst ratio {worst:.3f} (target <= 1.3)")


def result_spec(run_dir: Path) -> bytes:
    entries = verify(run_dir / "ledger.jsonl", keep_entries=True).entries
    for e in entries:
        if e["kind"] == "spec_loaded":
            return str(e["data"].get("text") or "").encode()
    raise SystemExit(f"{run_dir}: the ledger records no spec_loaded event")


if __name__ == "__main__":
    main()
