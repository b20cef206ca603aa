"""Where the spec comes from, in order: --spec file/stdin, --transcript, commit messages,
the newest Claude Code session of the repository, none."""

from __future__ import annotations

import io
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from contend.agents.claude_sessions import encode, project_dir_name
from contend.errors import UserError
from contend.review.spec import Spec, first_user_turn, load_spec
from contend.review.target import Target, resolve_target


def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args],
        capture_output=True,
        check=True,
        env={**os.environ, **(env or {})},
    )
    return done.stdout.decode().strip()


def commit(repo: Path, name: str, message: str) -> None:
    (repo / name).write_text(message + "\n")
    git(repo, "add", name)
    # Distinct dates, one per commit, so "oldest first" has one answer.
    count = int(git(repo, "rev-list", "--all", "--count"))
    date = f"{1_700_000_000 + 60 * count} +0000"
    git(
        repo,
        "commit",
        "-q",
        "-m",
        message,
        env={"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date},
    )


@pytest.fixture
def on_main(repo_dir: Path) -> Target:
    """On main with one commit and an edit: reviewed against HEAD, no commits in the range."""
    git(repo_dir, "init", "-q", "-b", "main")
    commit(repo_dir, "a.txt", "initial")
    (repo_dir / "a.txt").write_text("edited\n")
    return resolve_target(repo_dir)


@pytest.fixture
def feature(repo_dir: Path) -> Target:
    git(repo_dir, "init", "-q", "-b", "main")
    commit(repo_dir, "a.txt", "initial")
    git(repo_dir, "switch", "-q", "-c", "feature")
    commit(repo_dir, "b.txt", "Add retries to the fetcher\n\nRetry 3 times on 503.")
    git(repo_dir, "switch", "-q", "-c", "side", "main")
    commit(repo_dir, "c.txt", "side work")
    git(repo_dir, "switch", "-q", "feature")
    git(repo_dir, "merge", "-q", "--no-edit", "side")
    commit(repo_dir, "d.txt", "Log every retry")
    return resolve_target(repo_dir)


def user(content: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "user", "message": {"role": "user", "content": content}, **extra}


def write_session(path: Path, records: list[dict[str, Any]], mtime: float) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    os.utime(path, (mtime, mtime))
    return path


def sessions_dir(home: Path, target: Target) -> Path:
    return home / "projects" / project_dir_name(target.repo_root)


def test_spec_file_and_stdin(on_main: Target, tmp_path: Path) -> None:
    spec_file = tmp_path / "SPEC.md"
    spec_file.write_text("The fetcher retries.\n")
    got = load_spec(on_main, spec_arg=str(spec_file), transcript=None, stdin=None)
    assert got == Spec("file", "The fetcher retries.\n", str(spec_file))
    piped = load_spec(on_main, spec_arg="-", transcript=None, stdin=io.StringIO("from a pipe"))
    assert piped == Spec("stdin", "from a pipe", None)


def test_spec_file_errors(on_main: Target, tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"spec file not found: .*missing\.md"):
        load_spec(on_main, spec_arg=str(tmp_path / "missing.md"), transcript=None, stdin=None)
    (tmp_path / "empty.md").write_text("  \n")
    with pytest.raises(UserError, match="is empty"):
        load_spec(on_main, spec_arg=str(tmp_path / "empty.md"), transcript=None, stdin=None)
    with pytest.raises(UserError, match="standard input"):
        load_spec(on_main, spec_arg="-", transcript=None, stdin=None)
    with pytest.raises(UserError, match="not both"):
        load_spec(on_main, spec_arg="-", transcript=tmp_path / "t.jsonl", stdin=None)


def test_commit_messages_of_the_range_oldest_first_without_merges(
    feature: Target, tmp_path: Path
) -> None:
    home = tmp_path / "claude"
    write_session(sessions_dir(home, feature) / "s.jsonl", [user("ignored")], 1_000)
    got = load_spec(feature, spec_arg=None, transcript=None, stdin=None, claude_home=home)
    assert got.source == "commits"
    assert (
        got.text
        == "Add retries to the fetcher\n\nRetry 3 times on 503.\n\nside work\n\nLog every retry"
    )
    assert got.path == f"{feature.base[:12]}..{feature.head_sha[:12]}"


def test_newest_session_of_this_repository_is_found(on_main: Target, tmp_path: Path) -> None:
    home = tmp_path / "claude"
    folder = sessions_dir(home, on_main)
    write_session(folder / "old.jsonl", [user("old request")], 1_000)
    newest = write_session(folder / "new.jsonl", [user("Make the parser strict")], 2_000)
    write_session(folder / "older.jsonl", [user("older request")], 500)
    other = home / "projects" / project_dir_name(on_main.repo_root / "elsewhere")
    write_session(other / "x.jsonl", [user("another project")], 9_000)
    got = load_spec(on_main, spec_arg=None, transcript=None, stdin=None, claude_home=home)
    assert got == Spec("transcript", "Make the parser strict", str(newest))


def test_a_newest_session_without_a_user_turn_is_skipped_with_a_note(
    on_main: Target, tmp_path: Path
) -> None:
    home = tmp_path / "claude"
    folder = sessions_dir(home, on_main)
    used = write_session(folder / "a.jsonl", [user("the real ask")], 1_000)
    empty = write_session(folder / "b.jsonl", [{"type": "summary", "summary": "x"}], 2_000)
    got = load_spec(on_main, spec_arg=None, transcript=None, stdin=None, claude_home=home)
    assert (got.source, got.text, got.path) == ("transcript", "the real ask", str(used))
    assert got.notes == (f"session {empty} has no user turn with plain text; skipped",)


def test_no_spec_anywhere(on_main: Target, tmp_path: Path) -> None:
    got = load_spec(on_main, spec_arg=None, transcript=None, stdin=None, claude_home=tmp_path)
    assert got == Spec(None, None, None)


def test_encoded_project_path() -> None:
    assert encode("/home/me/my_repo.v2") == "-home-me-my-repo-v2"


def test_first_user_turn_skips_meta_tool_results_and_wrappers(tmp_path: Path) -> None:
    records = [
        {"type": "summary", "summary": "earlier"},
        user("<local-command-caveat>Caveat: generated locally</local-command-caveat>", isMeta=True),
        user("<command-name>/clear</command-name>\n<command-message>clear</command-message>"),
        user("<local-command-stdout></local-command-stdout>"),
        user("Caveat: The messages below were generated by the user while running local commands."),
        {"type": "assistant", "message": {"role": "assistant", "content": "hello"}},
        user([{"type": "tool_result", "tool_use_id": "t1", "content": "output"}]),
        user("sub-agent prompt", isSidechain=True),
        user(
            [
                {"type": "text", "text": "<system-reminder>be nice</system-reminder>"},
                {"type": "text", "text": "Add a retry to fetch()"},
                {"type": "image", "source": {}},
                {"type": "text", "text": "and log it"},
            ]
        ),
        user("a later turn"),
    ]
    path = write_session(tmp_path / "t.jsonl", records, 1_000)
    assert first_user_turn(path) == "Add a retry to fetch()\n\nand log it"


def test_explicit_transcript_outranks_commits(feature: Target, tmp_path: Path) -> None:
    path = write_session(tmp_path / "t.jsonl", [user("  Fix the flaky test  ")], 1_000)
    got = load_spec(feature, spec_arg=None, transcript=path, stdin=None)
    assert got == Spec("transcript", "Fix the flaky test", str(path))


def test_unreadable_transcripts_are_named(on_main: Target, tmp_path: Path) -> None:
    missing = tmp_path / "missing.jsonl"
    with pytest.raises(UserError, match=f"cannot read transcript {missing}"):
        load_spec(on_main, spec_arg=None, transcript=missing, stdin=None)
    torn = tmp_path / "torn.jsonl"
    torn.write_text('{"type": "summary"}\n{"type": "us\n')
    with pytest.raises(UserError, match=f"transcript {torn} line 2 is not JSON"):
        load_spec(on_main, spec_arg=None, transcript=torn, stdin=None)
    no_user = write_session(tmp_path / "none.jsonl", [{"type": "summary"}], 1_000)
    with pytest.raises(UserError, match="has no user turn"):
        load_spec(on_main, spec_arg=None, transcript=no_user, stdin=None)
