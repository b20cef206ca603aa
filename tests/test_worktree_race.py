"""Concurrent worktree administration in one repository: the harness's slices and the
review engine's threads add, list, prune and remove worktrees at the same time.

Without one lock around every such git command, a `git worktree list`/`prune`/`add` that
walks the repository's worktrees reads another one's admin directory while `git worktree
add` is still writing it, and fails with "failed to read .git/worktrees/X/commondir".
These tests run real git on a real repository with several threads doing what `contend
run` and `contend review` do, and require that no git command fails.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from contend.gitio.git import git_common_dir
from contend.gitio.stale import cleanup_stale, registered, worktree_heads
from contend.gitio.worktree import WorktreeManager
from contend.harness import gitops

ROUNDS = 12  # per worker: about 200 worktree commands in all, a few seconds on 2 cores


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    _git(path, "init", "-q", "-b", "main")
    for i in range(20):
        (path / f"f{i}.txt").write_text(f"file {i}\n" * 50)
    _git(path, "add", "-A")
    _git(path, "commit", "-q", "-m", "base")
    return path


def _run_together(workers: list[Callable[[], None]]) -> list[BaseException]:
    """Start every worker at once; every exception any of them raised."""
    errors: list[BaseException] = []
    start = threading.Barrier(len(workers))

    def wrap(work: Callable[[], None]) -> None:
        start.wait()
        try:
            work()
        except BaseException as exc:  # collected, then reported by the test
            errors.append(exc)

    threads = [threading.Thread(target=wrap, args=(w,)) for w in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def _harness_slice(repo: Path, tmp: Path, n: int) -> Callable[[], None]:
    """What a `contend run` slice does: branch + worktree, then remove it (or discard)."""

    def work() -> None:
        base = gitops.head_commit(repo)
        for i in range(ROUNDS):
            slice_id = f"s{n}-{i}"
            path = tmp / "slices" / slice_id
            gitops.create_slice(repo, slice_id, base, path)
            if i % 3 == 2:
                gitops.discard_unfinished(repo, slice_id, path)
            else:
                gitops.remove_worktree(repo, path)

    return work


def _review_threads(repo: Path, tmp: Path, n: int) -> Callable[[], None]:
    """What a review's thread worktrees go through: created, checked, removed."""

    def work() -> None:
        manager = WorktreeManager(repo, tmp / "state" / "worktrees" / f"run{n}")
        for i in range(ROUNDS):
            path = manager.create(f"t{i}", "HEAD")
            assert registered(repo, path)
            manager.remove(f"t{i}")

    return work


def _review_cleanup(repo: Path, tmp: Path, runs: set[str]) -> Callable[[], None]:
    """A review's start: cleanup of stale worktrees (list + prune), keeping live runs."""

    def work() -> None:
        for _ in range(ROUNDS * 2):
            cleanup_stale(tmp / "state", keep=runs, repo=repo)
            worktree_heads(repo)

    return work


def test_concurrent_worktree_admin_never_fails(repo: Path, tmp_path: Path) -> None:
    runs = {f"run{n}" for n in range(2)}
    workers = [
        *(_harness_slice(repo, tmp_path, n) for n in range(3)),
        *(_review_threads(repo, tmp_path, n) for n in range(2)),
        _review_cleanup(repo, tmp_path, runs),
    ]
    errors = _run_together(workers)
    assert not errors, f"{len(errors)} worktree commands failed, first: {errors[0]!r}"
    # Every worktree made was removed: only the main work tree is left.
    assert list(worktree_heads(repo)) == [str(repo.resolve())]


def test_worktree_lock_file_lives_in_the_common_git_dir(repo: Path, tmp_path: Path) -> None:
    """One lock per repository, found the same from the main tree and from any worktree."""
    from contend.gitio.worktree_lock import lock_path

    path = tmp_path / "wt"
    gitops.create_slice(repo, "one", gitops.head_commit(repo), path)
    expected = git_common_dir(repo) / "contend-worktrees.lock"
    assert lock_path(repo) == expected
    assert lock_path(path) == expected


def test_lock_serialises_across_processes(repo: Path, tmp_path: Path) -> None:
    """While another process holds the lock, this process's `worktree add` waits for it."""
    from contend.gitio.worktree_lock import lock_path

    script = (
        "import sys; from filelock import FileLock\n"
        "with FileLock(sys.argv[1]):\n"
        "    print('held', flush=True); sys.stdin.readline()\n"
    )
    path = tmp_path / "w"
    errors: list[BaseException] = []
    with subprocess.Popen(
        [sys.executable, "-c", script, str(lock_path(repo))],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as holder:
        assert holder.stdin is not None and holder.stdout is not None
        try:
            assert holder.stdout.readline().strip() == "held"
            adder = threading.Thread(
                target=lambda: _collect(
                    errors, lambda: gitops.create_slice(repo, "waits", "HEAD", path)
                )
            )
            adder.start()
            adder.join(timeout=1.0)
            # Not `registered`: listing worktrees takes the lock too, and would wait here.
            blocked = adder.is_alive() and not path.exists()
        finally:
            holder.stdin.write("go\n")
            holder.stdin.flush()
            holder.wait(timeout=30)
    adder.join(timeout=60)
    assert blocked, "git worktree add ran while another process held the worktree lock"
    assert not errors, errors
    assert registered(repo, path)


def _collect(errors: list[BaseException], work: Callable[[], object]) -> None:
    try:
        work()
    except BaseException as exc:  # reported by the caller's assertion
        errors.append(exc)


def test_a_slice_killed_during_its_checkout_is_discarded_on_resume(
    repo: Path, tmp_path: Path
) -> None:
    # A SIGKILL while `git worktree add` checks out leaves the worktree locked
    # "initializing"; git refuses `worktree remove --force` on a locked worktree, so the
    # resumed batch errored on that slice (seen in test_run_cli's SIGKILL resume test).
    base = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    path = tmp_path / "slices" / "s1"
    gitops.create_slice(repo, "s1", base, path)
    _git(repo, "worktree", "lock", "--reason", "initializing", str(path))
    gitops.discard_unfinished(repo, "s1", path)
    assert not path.exists()
    assert not registered(repo, path)
    branches = subprocess.run(
        ["git", "-C", str(repo), "branch", "--list", "contend/run/s1"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert branches == ""


def test_a_slice_killed_before_git_registered_its_worktree_is_discarded_on_resume(
    repo: Path, tmp_path: Path
) -> None:
    # `git worktree add` creates the directory before it writes the admin file that makes
    # the worktree listed; a SIGKILL in between leaves a directory git does not know, and
    # `git worktree remove` refuses it ("is not a working tree") — seen in CI on the
    # SIGKILL resume test of test_run_cli. The admin directory it leaves is locked too.
    base = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    path = tmp_path / "slices" / "s1"
    path.mkdir(parents=True)
    admin = git_common_dir(repo) / "worktrees" / "s1"
    admin.mkdir(parents=True)
    (admin / "locked").write_text("initializing\n")
    _git(repo, "branch", "contend/run/s1", base)
    gitops.discard_unfinished(repo, "s1", path)
    assert not path.exists()
    assert not admin.exists()
    gitops.create_slice(repo, "s1", base, path)
    assert registered(repo, path)
