"""`contend demo`: the protocol on a sample repository, offline, in two rounds.

Builds a small repository in a temporary directory whose feature branch carries four
planted defects an agent might leave behind (a committed cloud access key, a silent
fallback, a weakened test, a removed input guard), reviews it with the static critics, then
edits it as an author would — removes the key, fixes the fallback, waives the guard with a
reason, leaves the weakened test — and reviews again. Under the default earned blocking
policy (docs/static-critics.md, "Calibration") the key is what fails round 1: its evidence
is the defect itself; the other three are listed as minor disputes, since whether a
fallback is deliberate or a test was weakened needs a person's judgement. The second
report shows resolutions by fix, a waiver (conceded with its reason), a survivor whose
contention grew, and the verdict (`conditional_pass`: the survivor is listed, not blocking).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from contend.config import Settings
from contend.protocol.verdict import Verdict
from contend.review.engine import ReviewRequest, ReviewResult, review

# The agent pastes the gateway's access key id into the code (random characters in AWS's
# own format, not a placeholder); built by concatenation so this file holds no key.
GATEWAY_KEY_ID = "AKIA" + "W7QX2M4ZRKT3VHL5"

BUDGET_BASE = '''\
"""Budget reconciliation between API keys and user accounts."""


class GatewayError(Exception):
    """The budget gateway could not answer."""


def load_spend(gateway, user_id):
    try:
        return gateway.get_user_spend(user_id)
    except TimeoutError as exc:
        raise GatewayError(f"spend of {user_id} is unavailable") from exc


def parse_delta(raw):
    if not isinstance(raw, (int, float)):
        raise TypeError(f"delta must be a number, got {type(raw).__name__}")
    return float(raw)


def sync_budget(gateway, user_id, raw_delta):
    current = load_spend(gateway, user_id)
    new_max = current["max_budget"] + parse_delta(raw_delta)
    gateway.update_user_budget(user_id, new_max)
    return {"user": user_id, "max_budget": new_max, "status": "verified"}
'''

BUDGET_AGENT = (
    BUDGET_BASE.replace(
        """class GatewayError(Exception):""",
        f"""GATEWAY_ACCESS_KEY_ID = "{GATEWAY_KEY_ID}"


class GatewayError(Exception):""",
    )
    .replace(
        """    except TimeoutError as exc:
        raise GatewayError(f"spend of {user_id} is unavailable") from exc""",
        """    except Exception:
        return {"spend": 0, "max_budget": 200}""",
    )
    .replace(
        """    if not isinstance(raw, (int, float)):
        raise TypeError(f"delta must be a number, got {type(raw).__name__}")
    return float(raw)""",
        """    return float(raw)""",
    )
)

BUDGET_AUTHOR = BUDGET_BASE.replace(
    """    if not isinstance(raw, (int, float)):
        raise TypeError(f"delta must be a number, got {type(raw).__name__}")
    return float(raw)""",
    """    # contend: allow boundary-typing -- the API schema already checks deltas are numbers
    return float(raw)""",
)

TEST_BASE = """\
import unittest

from budget import sync_budget


class FakeGateway:
    def get_user_spend(self, user_id):
        return {"spend": 10, "max_budget": 2000}

    def update_user_budget(self, user_id, new_max):
        self.updated = (user_id, new_max)


class SyncBudgetTest(unittest.TestCase):
    def test_sync_reports_verified(self):
        result = sync_budget(FakeGateway(), "u1", 5)
        self.assertEqual(result["status"], "verified")
        self.assertEqual(result["max_budget"], 2005)


if __name__ == "__main__":
    unittest.main()
"""

TEST_AGENT = TEST_BASE.replace(
    """        self.assertEqual(result["status"], "verified")""",
    """        self.assertIn(result["status"], ["verified", "pending"])""",
)


@dataclass
class DemoRound:
    title: str
    result: ReviewResult


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True)


def build_sample(repo: Path) -> None:
    repo.mkdir(parents=True, exist_ok=True)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.name", "contend demo")
    _git(repo, "config", "user.email", "demo@contend.invalid")
    (repo / "budget.py").write_text(BUDGET_BASE)
    (repo / "test_budget.py").write_text(TEST_BASE)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "Budget sync with gateway errors surfaced")
    _git(repo, "checkout", "-q", "-b", "agent/budget-resilience")
    (repo / "budget.py").write_text(BUDGET_AGENT)
    (repo / "test_budget.py").write_text(TEST_AGENT)
    _git(
        repo,
        "commit",
        "-q",
        "-am",
        "Make budget sync resilient to gateway timeouts\n\n"
        "Task: sync_budget must never lose a user's budget when the gateway times out.",
    )


def author_edits(repo: Path) -> None:
    (repo / "budget.py").write_text(BUDGET_AUTHOR)


def run_demo(
    workdir: Path, settings: Settings, show: Callable[[str, ReviewResult], None]
) -> tuple[list[DemoRound], list[str]]:
    """Run both rounds; return them and the list of expectations that did not hold."""
    repo = workdir / "sample"
    build_sample(repo)
    rounds = []
    first = review(ReviewRequest(path=repo, base="main", command="contend demo"), settings)
    rounds.append(DemoRound("Round 1: the agent's change, reviewed by the static critics", first))
    show(rounds[-1].title, first)
    author_edits(repo)
    second = review(ReviewRequest(path=repo, base="main", command="contend demo"), settings)
    rounds.append(DemoRound("Round 2: the author fixed two, waived one, left one", second))
    show(rounds[-1].title, second)
    return rounds, check_demo(first, second)


def check_demo(first: ReviewResult, second: ReviewResult) -> list[str]:
    import json

    problems: list[str] = []
    r1 = json.loads(first.texts["json"])
    r2 = json.loads(second.texts["json"])
    topics1 = {d["topic"] for d in r1["disputes"]}
    for topic in ("secrets", "silent-fallback", "test-weakening", "boundary-typing"):
        if topic not in topics1:
            problems.append(f"round 1 did not raise a {topic} objection")
    if first.outcome.verdict is not Verdict.FAIL:
        problems.append(f"round 1 verdict {first.outcome.verdict}, expected fail")
    resolved = [(d["topic"], d["status"]) for d in r2["resolved"]]
    for topic, what in (("secrets", "committed key"), ("silent-fallback", "silent fallback")):
        if (topic, "fixed") not in resolved:
            problems.append(f"round 2 did not resolve the {what} by fix")
    if [s for t, s in resolved if t == "boundary-typing"] != ["conceded"]:
        problems.append("round 2 did not record the waived guard as one conceded objection")
    if r2["stats"]["attacks"] != 4:
        problems.append(f"round 2 has {r2['stats']['attacks']} objections, expected the same 4")
    survivors = [d for d in r2["disputes"] if d["topic"] == "test-weakening"]
    if not survivors or survivors[0]["contention"] < 1:
        problems.append("the weakened test did not survive with growing contention")
    if second.run_id != first.run_id:
        problems.append("round 2 did not continue the ledger of round 1")
    return problems
