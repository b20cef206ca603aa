"""The git refs a review run keeps while it can be resumed, and their removal.

    refs/contend/snapshots/<run>/s<N>   the tree a session reviewed (working tree or index)
    refs/contend/threads/<run>/<T>      the last fix commit of agent thread T
    refs/contend/rescue/<run>/<name>    what a crashed session's worktrees still held

They keep commits from `git gc` while a run is resumable, and they hold the user's files
(untracked ones included), so they are removed when the run ends, and the refs of a run
that can no longer be resumed are removed by the next review. No other `refs/contend/*`
namespace is touched here.
"""

from __future__ import annotations

from pathlib import Path

from contend.gitio.git import run_git

SPACES = ("snapshots", "threads", "rescue")


def snapshot_ref(run_id: str, session: int) -> str:
    return f"refs/contend/snapshots/{run_id}/s{session}"


def thread_ref(run_id: str, thread: str) -> str:
    return f"refs/contend/threads/{run_id}/{thread}"


def rescue_ref(run_id: str, name: str) -> str:
    return f"refs/contend/rescue/{run_id}/{name}"


def save_thread_head(repo: Path, run_id: str, thread: str, commit: str) -> None:
    """Record `commit` as the last fix commit of `thread`, so it outlives the worktree."""
    run_git(repo, ["update-ref", thread_ref(run_id, thread), commit])


def thread_head(repo: Path, run_id: str, thread: str) -> str | None:
    """The commit `thread` saved in an earlier session of `run_id`, if it saved one."""
    out = run_git(repo, ["for-each-ref", "--format=%(objectname)", thread_ref(run_id, thread)])
    found = out.decode("ascii").strip()
    return found or None


def run_refs(repo: Path, run_id: str) -> list[str]:
    """Every run-scoped ref of `run_id`, sorted."""
    patterns = [f"refs/contend/{space}/{run_id}/" for space in SPACES]
    out = run_git(repo, ["for-each-ref", "--format=%(refname)", *patterns])
    return sorted(line for line in out.decode("utf-8").splitlines() if line)


def runs_with_refs(repo: Path) -> set[str]:
    """The run ids that own at least one run-scoped ref."""
    patterns = [f"refs/contend/{space}/" for space in SPACES]
    out = run_git(repo, ["for-each-ref", "--format=%(refname)", *patterns])
    runs: set[str] = set()
    for line in out.decode("utf-8").splitlines():
        parts = line.split("/")
        if len(parts) >= 5:
            runs.add(parts[3])
    return runs


def delete_run_refs(repo: Path, run_id: str) -> list[str]:
    """Delete every run-scoped ref of `run_id` in one transaction; the names deleted."""
    refs = run_refs(repo, run_id)
    if refs:
        commands = "".join(f"delete {ref}\n" for ref in refs).encode("utf-8")
        run_git(repo, ["update-ref", "--stdin"], stdin=commands)
    return refs


def latest_snapshot(repo: Path, run_id: str) -> tuple[int, str] | None:
    """(session number, commit) of the newest snapshot ref of `run_id`, if any."""
    out = run_git(
        repo,
        [
            "for-each-ref",
            "--format=%(refname) %(objectname)",
            f"refs/contend/snapshots/{run_id}/",
        ],
    )
    found: list[tuple[int, str]] = []
    for line in out.decode("utf-8").splitlines():
        name, _, sha = line.partition(" ")
        tail = name.rsplit("/", 1)[-1]
        if tail.startswith("s") and tail[1:].isdigit():
            found.append((int(tail[1:]), sha))
    return max(found) if found else None
