"""Snapshots leave the user's index and files alone; worktrees are created, committed, reset,
diffed, merged (conflicts reported) and cleaned up (stale work rescued, never dropped)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from contend.errors import RevisionNotFound, UserError
from contend.gitio.git import GitError
from contend.gitio.snapshot import snapshot_index, snapshot_worktree
from contend.gitio.worktree import WorktreeManager, apply_to_worktree, cleanup_stale
from contend.review.target import EMPTY_TREE


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True)
    return done.stdout.decode().rstrip("\n")


def show(repo: Path, rev: str, path: str) -> str:
    return git(repo, "show", f"{rev}:{path}")


def files_of(repo: Path, rev: str) -> list[str]:
    return git(repo, "ls-tree", "-r", "--name-only", rev).splitlines()


@pytest.fixture
def repo(repo_dir: Path) -> Path:
    git(repo_dir, "init", "-q", "-b", "main")
    (repo_dir / ".gitignore").write_text("*.log\n")
    (repo_dir / "a.txt").write_text("line 1\nline 2\nline 3\n")
    (repo_dir / "b.txt").write_text("bee\n")
    git(repo_dir, "add", ".")
    git(repo_dir, "commit", "-q", "-m", "first")
    return repo_dir


def user_state(repo: Path) -> tuple[str, bytes]:
    status = git(repo, "status", "--porcelain")
    return status, (repo / ".git" / "index").read_bytes()


def test_snapshot_worktree_includes_untracked_and_leaves_the_user_alone(repo: Path) -> None:
    (repo / "a.txt").write_text("edited, unstaged\n")
    (repo / "b.txt").write_text("edited, staged\n")
    git(repo, "add", "b.txt")
    (repo / "new.txt").write_text("untracked\n")
    (repo / "debug.log").write_text("ignored\n")
    before = user_state(repo)
    head = git(repo, "rev-parse", "HEAD")

    sha = snapshot_worktree(repo, "refs/contend/snapshots/run-1")

    assert user_state(repo) == before
    assert before[0] != ""  # the comparison above compared a real, non-empty status
    assert git(repo, "rev-parse", "refs/contend/snapshots/run-1") == sha
    assert git(repo, "rev-parse", f"{sha}^") == head
    assert files_of(repo, sha) == [".gitignore", "a.txt", "b.txt", "new.txt"]
    assert show(repo, sha, "a.txt") == "edited, unstaged"
    assert show(repo, sha, "new.txt") == "untracked"


def test_snapshot_index_takes_the_staged_side_only(repo: Path) -> None:
    (repo / "b.txt").write_text("staged\n")
    git(repo, "add", "b.txt")
    (repo / "b.txt").write_text("staged, then edited again\n")
    (repo / "new.txt").write_text("untracked\n")
    before = user_state(repo)
    sha = snapshot_index(repo, "refs/contend/snapshots/run-2")
    assert user_state(repo) == before
    assert show(repo, sha, "b.txt") == "staged"
    assert "new.txt" not in files_of(repo, sha)


def test_snapshot_without_head_has_no_parent(repo_dir: Path) -> None:
    git(repo_dir, "init", "-q", "-b", "main")
    (repo_dir / "only.txt").write_text("x\n")
    sha = snapshot_worktree(repo_dir, "refs/contend/snapshots/first")
    assert git(repo_dir, "rev-list", "--parents", "-n", "1", sha) == sha
    assert files_of(repo_dir, sha) == ["only.txt"]
    assert not (repo_dir / ".git" / "index").exists()


def test_snapshot_never_overwrites_a_ref(repo: Path) -> None:
    first = snapshot_worktree(repo, "refs/contend/snapshots/same")
    (repo / "a.txt").write_text("changed\n")
    with pytest.raises(GitError, match="already exists"):
        snapshot_worktree(repo, "refs/contend/snapshots/same")
    assert git(repo, "rev-parse", "refs/contend/snapshots/same") == first


def test_worktree_create_commit_reset_remove(repo: Path, tmp_path: Path) -> None:
    base = snapshot_worktree(repo, "refs/contend/snapshots/r")
    manager = WorktreeManager(repo, tmp_path / "state" / "worktrees" / "r")
    path = manager.create("C1", base)
    assert (path / "a.txt").read_text() == "line 1\nline 2\nline 3\n"
    assert manager.head(path) == base
    assert manager.commit_all(path, "nothing") is None

    (path / "a.txt").write_text("fixed\n")
    (path / "added.txt").write_text("new file\n")
    fix = manager.commit_all(path, "fix: C1")
    assert fix is not None and fix == manager.head(path)
    assert git(repo, "rev-parse", f"{fix}^") == base
    assert files_of(repo, fix) == [".gitignore", "a.txt", "added.txt", "b.txt"]
    assert git(repo, "log", "-1", "--format=%an %s", fix) == "contend fix: C1"

    (path / "b.txt").write_text("dirty\n")
    (path / "junk.txt").write_text("untracked\n")
    manager.reset(path, base)
    assert manager.head(path) == base
    assert (path / "a.txt").read_text() == "line 1\nline 2\nline 3\n"
    assert (path / "b.txt").read_text() == "bee\n"
    assert not (path / "junk.txt").exists()
    assert not (path / "added.txt").exists()

    with pytest.raises(UserError, match="already exists"):
        manager.create("C1", base)
    manager.remove("C1")
    assert not path.exists()
    assert str(path) not in git(repo, "worktree", "list")
    # The user's own checkout was never switched or touched.
    assert git(repo, "status", "--porcelain") == ""


def test_diff_text_shows_binary_files_and_cuts_large_diffs(repo: Path, tmp_path: Path) -> None:
    base = git(repo, "rev-parse", "HEAD")
    manager = WorktreeManager(repo, tmp_path / "wt")
    path = manager.create("C1", base)
    (path / "image.bin").write_bytes(b"\x00\x01\x02binary")
    (path / "a.txt").write_text("".join(f"new line {i}\n" for i in range(200)))
    text, truncated = manager.diff_text(base, path, max_bytes=1_000_000)
    assert not truncated
    assert "Binary files /dev/null and b/image.bin differ" in text
    assert "+new line 199\n" in text
    # The worktree's own index was not used: nothing is staged there.
    assert git(path, "diff", "--cached", "--name-only") == ""

    cut, was_cut = manager.diff_text(base, path, max_bytes=300)
    assert was_cut
    assert len(cut.encode()) <= 300
    assert cut.endswith("\n")
    assert text.startswith(cut)

    fix = manager.commit_all(path, "fix")
    assert fix is not None
    by_commit, _ = manager.diff_text(base, fix, max_bytes=1_000_000)
    assert by_commit == text
    from_nothing, _ = manager.diff_text(EMPTY_TREE, base, max_bytes=1_000_000)
    assert "+++ b/b.txt\n@@ -0,0 +1 @@\n+bee\n" in from_nothing
    with pytest.raises(RevisionNotFound, match="no-such-rev"):
        manager.diff_text("no-such-rev", path, max_bytes=100)


def thread_fix(manager: WorktreeManager, base: str, name: str, edits: dict[str, str]) -> str:
    path = manager.create(name, base)
    for file, text in edits.items():
        (path / file).write_text(text)
    head = manager.commit_all(path, f"fix {name}")
    assert head is not None
    return head


def test_merge_combines_threads_and_reports_a_conflict(repo: Path, tmp_path: Path) -> None:
    base = snapshot_worktree(repo, "refs/contend/snapshots/m")
    manager = WorktreeManager(repo, tmp_path / "wt" / "m")
    heads = {
        "C1": thread_fix(manager, base, "C1", {"a.txt": "line 1\nline 2\nline 3 fixed\n"}),
        "C2": thread_fix(manager, base, "C2", {"b.txt": "bee fixed\n"}),
        "C3": thread_fix(manager, base, "C3", {"a.txt": "line 1\nline 2\nline 3 other\n"}),
    }
    result = manager.merge(base, heads, ref="refs/contend/merged/m")

    assert result.merged == ["C1", "C2"]
    assert len(result.conflicts) == 1
    conflict = result.conflicts[0]
    assert conflict.thread == "C3"
    assert conflict.files == ["a.txt"]
    assert "CONFLICT (content): Merge conflict in a.txt" in conflict.message
    assert conflict.to_dict() == {"thread": "C3", "files": ["a.txt"], "message": conflict.message}
    merged = result.merged_commit
    assert show(repo, merged, "a.txt") == "line 1\nline 2\nline 3 fixed"
    assert show(repo, merged, "b.txt") == "bee fixed"
    assert git(repo, "rev-parse", "refs/contend/merged/m") == merged
    # The conflicting merge was aborted: the merge worktree is clean and not mid-merge.
    assert result.path is not None
    assert git(result.path, "status", "--porcelain") == ""
    assert not (repo / ".git" / "worktrees" / "merge" / "MERGE_HEAD").exists()

    manager.remove_all()
    assert not manager.root.exists()


def test_merge_of_nothing_is_the_base(repo: Path, tmp_path: Path) -> None:
    base = git(repo, "rev-parse", "HEAD")
    result = WorktreeManager(repo, tmp_path / "wt").merge(base, {})
    assert (result.merged_commit, result.conflicts, result.merged) == (base, [], [])


def test_cleanup_rescues_stale_work_before_removing(repo: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    base = snapshot_worktree(repo, "refs/contend/snapshots/crashed")
    crashed = WorktreeManager(repo, state / "worktrees" / "crashed")
    dirty = crashed.create("C1", base)
    (dirty / "a.txt").write_text("half-done fix\n")
    (dirty / "untracked.txt").write_text("new\n")
    committed = crashed.create("C2", base)
    (committed / "b.txt").write_text("committed fix\n")
    fix = crashed.commit_all(committed, "fix C2")
    clean = crashed.create("C3", base)
    stray = state / "worktrees" / "crashed" / "C4"
    stray.mkdir()
    (stray / "notes.txt").write_text("not a worktree\n")
    live = WorktreeManager(repo, state / "worktrees" / "live").create("C1", base)

    messages = cleanup_stale(state, keep={"live"})

    assert len(messages) == 4
    c1, c2, c3, c4 = messages
    assert "uncommitted changes saved as refs/contend/rescue/crashed/C1" in c1
    rescued = git(repo, "rev-parse", "refs/contend/rescue/crashed/C1")
    assert show(repo, rescued, "a.txt") == "half-done fix"
    assert show(repo, rescued, "untracked.txt") == "new"
    assert "commits on no ref saved as refs/contend/rescue/crashed/C2" in c2
    assert git(repo, "rev-parse", "refs/contend/rescue/crashed/C2") == fix
    assert c3 == f"removed stale worktree {clean} (run crashed)"
    assert "refs/contend/rescue/crashed/C4" in c4
    assert show(repo, "refs/contend/rescue/crashed/C4", "notes.txt") == "not a worktree"
    assert not (state / "worktrees" / "crashed").exists()
    assert live.exists()
    listed = git(repo, "worktree", "list")
    assert str(live) in listed
    assert "crashed" not in listed


def test_cleanup_never_overwrites_an_earlier_rescue(repo: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    base = git(repo, "rev-parse", "HEAD")
    for text in ("first crash\n", "second crash\n"):
        path = WorktreeManager(repo, state / "worktrees" / "r1").create("C1", base)
        (path / "a.txt").write_text(text)
        cleanup_stale(state, keep=set(), repo=repo)
    assert show(repo, "refs/contend/rescue/r1/C1", "a.txt") == "first crash"
    assert show(repo, "refs/contend/rescue/r1/C1-2", "a.txt") == "second crash"


def test_cleanup_rescues_a_worktree_whose_directory_vanished(repo: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    base = git(repo, "rev-parse", "HEAD")
    manager = WorktreeManager(repo, state / "worktrees" / "gone")
    path = manager.create("C1", base)
    (path / "a.txt").write_text("fix\n")
    fix = manager.commit_all(path, "fix")
    subprocess.run(["rm", "-rf", str(path)], check=True)
    messages = cleanup_stale(state, keep=set(), repo=repo)
    assert any("refs/contend/rescue/gone/C1" in m for m in messages)
    assert git(repo, "rev-parse", "refs/contend/rescue/gone/C1") == fix
    assert "gone" not in git(repo, "worktree", "list")


def test_apply_to_worktree(repo: Path, tmp_path: Path) -> None:
    (repo / "new.txt").write_text("untracked, reviewed\n")
    base = snapshot_worktree(repo, "refs/contend/snapshots/apply")
    manager = WorktreeManager(repo, tmp_path / "wt")
    fix = thread_fix(manager, base, "C1", {"a.txt": "fixed\n", "new.txt": "fixed too\n"})
    index_before = (repo / ".git" / "index").read_bytes()

    (repo / "b.txt").write_text("the user kept working\n")
    with pytest.raises(UserError, match=r"changed since the review's snapshot .*: b\.txt"):
        apply_to_worktree(repo, base, fix)
    assert (repo / "a.txt").read_text() == "line 1\nline 2\nline 3\n"

    (repo / "b.txt").write_text("bee\n")
    changed = apply_to_worktree(repo, base, fix)
    assert changed == ["a.txt", "new.txt"]
    assert (repo / "a.txt").read_text() == "fixed\n"
    assert (repo / "new.txt").read_text() == "fixed too\n"
    assert (repo / ".git" / "index").read_bytes() == index_before


def test_cleanup_in_a_repo_local_state_dir(repo: Path) -> None:
    state = repo / ".contend"
    state.mkdir()
    (state / ".gitignore").write_text("*\n")
    stray = state / "worktrees" / "old-run" / "C1"
    stray.mkdir(parents=True)
    (stray / "half.txt").write_text("left by a crash\n")
    (state / "worktrees" / "old-run" / "C2").mkdir()

    messages = cleanup_stale(state, keep=set())

    assert messages[0].endswith(
        "files of an unregistered directory saved as "
        f"refs/contend/rescue/old-run/C1 "
        f"({git(repo, 'rev-parse', 'refs/contend/rescue/old-run/C1')[:12]})"
    )
    assert messages[1] == (
        f"removed stale worktree {state / 'worktrees' / 'old-run' / 'C2'} (run old-run) "
        "(empty, not a registered worktree)"
    )
    assert show(repo, "refs/contend/rescue/old-run/C1", "half.txt") == "left by a crash"
    assert list((state / "worktrees").iterdir()) == []
    assert git(repo, "status", "--porcelain") == ""
