"""`static.blocking` through a whole review (issues 8 and 17): the setting reaches the static
critics' calibration from every layer, and decides whether a static finding fails the
verdict. Real git repositories, the real engine, the real CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from contend.cli.main import main
from review_helpers import make_repo

BASE = """\
def parse_amount(raw):
    if not isinstance(raw, str):
        raise TypeError("amount must be text")
    return int(raw)
"""
# A broad handler that turns every failure into 0: a `swallowing-handler`, whose blocking
# record on the seen real commits (0 TRUE / 5 DEBATABLE / 29 FALSE) does not earn blocking.
SWALLOW = BASE.replace(
    "    return int(raw)\n",
    "    try:\n        return int(raw)\n    except Exception:\n        return 0\n",
)
# A committed AWS access key id in the provider's own format (random characters, not a
# placeholder): the evidence is the leak, so it blocks under either rule.
AWS_KEY = "AKIA" + "Q3XW7ZMR2KT5VHL4"
LEAK = BASE + f'\n\nBACKUP_KEY_ID = "{AWS_KEY}"\n'


def review_json(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["review", "--format", "json", "-q"])
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return code, data


def findings(data: dict[str, Any], rule: str) -> list[dict[str, Any]]:
    return [d for d in [*data["disputes"], *data["resolved"]] if d["rule"] == rule]


def test_earned_lists_a_swallowing_handler_as_minor_and_passes_conditionally(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(make_repo(tmp_path, base={"app.py": BASE}, change={"app.py": SWALLOW}))
    monkeypatch.setenv("CONTEND_STATIC_BLOCKING", "earned")
    code, data = review_json(capsys)
    [swallow] = findings(data, "swallowing-handler")
    assert swallow["severity"] == "minor" and swallow["status"] == "open"
    assert data["verdict"] == "conditional_pass" and code == 0


def test_rule_fails_the_same_swallowing_handler(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(make_repo(tmp_path, base={"app.py": BASE}, change={"app.py": SWALLOW}))
    monkeypatch.setenv("CONTEND_STATIC_BLOCKING", "rule")
    code, data = review_json(capsys)
    [swallow] = findings(data, "swallowing-handler")
    assert swallow["severity"] == "major"
    assert data["verdict"] == "fail" and code == 1


@pytest.mark.parametrize("blocking", ["earned", "rule"])
def test_a_committed_provider_key_fails_under_either_rule(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    blocking: str,
) -> None:
    monkeypatch.chdir(make_repo(tmp_path, base={"app.py": BASE}, change={"app.py": LEAK}))
    monkeypatch.setenv("CONTEND_STATIC_BLOCKING", blocking)
    code, data = review_json(capsys)
    [leak] = findings(data, "aws-access-key-id")
    assert leak["severity"] == "critical"
    assert data["verdict"] == "fail" and code == 1


def test_the_project_config_at_the_base_chooses_the_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = '[static]\nblocking = "rule"\n'
    repo = make_repo(
        tmp_path,
        base={"app.py": BASE, "contend.toml": config},
        change={"app.py": SWALLOW},
    )
    monkeypatch.chdir(repo)
    code, data = review_json(capsys)
    assert [f["severity"] for f in findings(data, "swallowing-handler")] == ["major"]
    assert data["verdict"] == "fail" and code == 1


# --- the default, with nothing set ----------------------------------------------------------


def test_by_default_a_new_swallowing_handler_is_minor_and_the_verdict_conditional(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(make_repo(tmp_path, base={"app.py": BASE}, change={"app.py": SWALLOW}))
    code, data = review_json(capsys)
    [swallow] = findings(data, "swallowing-handler")
    assert swallow["severity"] == "minor" and swallow["status"] == "open"
    assert data["verdict"] == "conditional_pass" and code == 0


def test_by_default_a_committed_provider_key_still_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(make_repo(tmp_path, base={"app.py": BASE}, change={"app.py": LEAK}))
    code, data = review_json(capsys)
    [leak] = findings(data, "aws-access-key-id")
    assert leak["severity"] == "critical"
    assert data["verdict"] == "fail" and code == 1
