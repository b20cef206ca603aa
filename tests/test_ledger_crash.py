"""SIGKILL a process appending to a ledger at 50 random moments.

After each kill: verify accepts the surviving prefix, every event the writer had
acknowledged (append returned, so it was fsynced) is there, and the next writer resumes
after the last good entry.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from contend.ledger.store import Ledger
from contend.ledger.verify import verify

WRITER = r"""
import sys
from pathlib import Path
from contend.ledger.store import Ledger

path = Path(sys.argv[1])
ledger = Ledger.open(path, "crash")
print(f"start {ledger.next_seq}", flush=True)
i = 0
while True:
    i += 1
    # Vary the size so some writes are large enough to be caught mid-way.
    entry = ledger.append("agent_call", {"thread": "t", "i": i, "pad": "x" * (i * 997 % 8192)})
    print(f"ack {entry['seq']}", flush=True)
"""


@pytest.mark.slow
def test_sigkill_at_random_moments_loses_no_acknowledged_event(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    rng = random.Random(20261130)
    acknowledged = -1
    torn_seen = 0
    for _ in range(50):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None
        first = proc.stdout.readline().split()
        assert first[0] == "start"
        # The resumed writer continues right after the last acknowledged event or later
        # (an event can be durable before its "ack" line was printed).
        assert int(first[1]) >= acknowledged + 1
        time.sleep(rng.uniform(0.0, 0.15))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate()
        acks = [int(line.split()[1]) for line in out.splitlines() if line.startswith("ack")]
        if acks:
            acknowledged = max(acknowledged, max(acks))
        result = verify(path)
        assert result.ok, result.message
        assert result.count >= acknowledged + 1, "an acknowledged event was lost"
        torn_seen += result.torn_line is not None
    with Ledger.open(path, "crash") as ledger:
        entry = ledger.append("run_resumed", {})
    final = verify(path)
    assert final.ok and final.torn_line is None
    assert entry["seq"] == final.count - 1 >= acknowledged + 1
    print(f"torn tails seen: {torn_seen} of 50 kills")
