"""resolve_target on real repositories: default bases, ranges, detached HEAD, bad input."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from contend.errors import NotAGitRepository, RevisionNotFound, UserError
from contend.review.target import EMPTY_TREE, resolve_target


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True)
    return done.stdout.decode().strip()


def commit(repo: Path, name: str, text: str) -> str:
    (repo / name).write_text(text)
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", f"change {name}")
    return git(repo, "rev-parse", "HEAD")


def init(repo: Path, branch: str = "main") -> Path:
    git(repo, "init", "-q", "-b", branch)
    return repo


def test_not_a_repository(tmp_path: Path) -> None:
    with pytest.raises(NotAGitRepository):
        resolve_target(tmp_path)


def test_repository_without_commits_is_a_clear_error(repo_dir: Path) -> None:
    init(repo_dir)
    (repo_dir / "a.txt").write_text("x\n")
    with pytest.raises(UserError, match="has no commits yet"):
        resolve_target(repo_dir)


def test_single_clean_commit_is_compared_with_the_empty_tree(repo_dir: Path) -> None:
    init(repo_dir)
    head = commit(repo_dir, "a.txt", "one\n")
    target = resolve_target(repo_dir)
    assert target.base == EMPTY_TREE
    assert target.head is None
    assert target.head_sha == head
    assert target.branch == "main"
    assert target.continuation_key == "main"
    assert target.label == "working tree vs the empty tree"
    assert any("empty tree" in note for note in target.notes)


def test_on_default_branch_clean_tree_reviews_the_last_commit(repo_dir: Path) -> None:
    init(repo_dir)
    first = commit(repo_dir, "a.txt", "one\n")
    commit(repo_dir, "a.txt", "two\n")
    target = resolve_target(repo_dir)
    assert target.base == first
    assert target.label == f"working tree vs HEAD~1 ({first[:7]})"


def test_on_default_branch_untracked_file_makes_head_the_base(repo_dir: Path) -> None:
    init(repo_dir)
    commit(repo_dir, "a.txt", "one\n")
    second = commit(repo_dir, "a.txt", "two\n")
    (repo_dir / "new.txt").write_text("untracked\n")
    target = resolve_target(repo_dir / "new.txt")
    assert target.base == second
    assert target.repo_root == repo_dir.resolve()


def test_single_dirty_commit_uses_head(repo_dir: Path) -> None:
    init(repo_dir)
    head = commit(repo_dir, "a.txt", "one\n")
    (repo_dir / "a.txt").write_text("edited\n")
    assert resolve_target(repo_dir).base == head


def test_feature_branch_uses_merge_base_with_main(repo_dir: Path) -> None:
    init(repo_dir)
    commit(repo_dir, "a.txt", "one\n")
    fork = commit(repo_dir, "a.txt", "two\n")
    git(repo_dir, "switch", "-q", "-c", "feature")
    commit(repo_dir, "b.txt", "feature work\n")
    git(repo_dir, "switch", "-q", "main")
    commit(repo_dir, "a.txt", "main moved on\n")
    git(repo_dir, "switch", "-q", "feature")
    target = resolve_target(repo_dir)
    assert target.base == fork
    assert target.branch == "feature"
    assert target.continuation_key == "feature"
    assert target.label == f"working tree vs main (merge-base {fork[:7]})"
    assert target.notes == ()


def test_origin_head_names_the_default_branch(repo_dir: Path) -> None:
    init(repo_dir)
    commit(repo_dir, "a.txt", "one\n")
    fork = commit(repo_dir, "a.txt", "two\n")
    git(repo_dir, "update-ref", "refs/remotes/origin/develop", fork)
    git(repo_dir, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/develop")
    commit(repo_dir, "a.txt", "three on main\n")  # main is no longer the fork point
    target = resolve_target(repo_dir)
    assert target.base == fork
    assert "origin/develop (merge-base" in target.label


def test_master_is_the_default_when_there_is_no_main(repo_dir: Path) -> None:
    init(repo_dir, "master")
    fork = commit(repo_dir, "a.txt", "one\n")
    git(repo_dir, "switch", "-q", "-c", "topic")
    commit(repo_dir, "a.txt", "two\n")
    commit(repo_dir, "a.txt", "three\n")
    target = resolve_target(repo_dir)
    assert target.base == fork
    assert "master (merge-base" in target.label


def test_no_default_branch_reviews_the_last_commit_with_a_note(repo_dir: Path) -> None:
    init(repo_dir, "work")
    first = commit(repo_dir, "a.txt", "one\n")
    commit(repo_dir, "a.txt", "two\n")
    target = resolve_target(repo_dir)
    assert target.base == first
    assert any("no default branch" in note for note in target.notes)


def test_detached_head_continues_by_commit(repo_dir: Path) -> None:
    init(repo_dir)
    commit(repo_dir, "a.txt", "one\n")
    git(repo_dir, "switch", "-q", "-c", "feature")
    commit(repo_dir, "a.txt", "two\n")
    third = commit(repo_dir, "a.txt", "three\n")
    git(repo_dir, "switch", "-q", "--detach", third)
    target = resolve_target(repo_dir)
    assert target.branch is None
    assert target.continuation_key == f"detached@{third[:12]}"
    assert any("continues by commit, not by branch" in note for note in target.notes)
    # Detached on a feature commit: still the merge-base with main.
    assert target.base == git(repo_dir, "rev-parse", "main")
    # Detached on main's own history: the commit before it.
    git(repo_dir, "switch", "-q", "--detach", "main")
    on_main = resolve_target(repo_dir)
    assert on_main.base == EMPTY_TREE


def test_explicit_base_and_head(repo_dir: Path) -> None:
    init(repo_dir)
    first = commit(repo_dir, "a.txt", "one\n")
    second = commit(repo_dir, "a.txt", "two\n")
    commit(repo_dir, "a.txt", "three\n")
    target = resolve_target(repo_dir, base="HEAD~2", head="HEAD~1")
    assert (target.base, target.head) == (first, second)
    assert target.label == f"HEAD~1 ({second[:7]}) vs HEAD~2 ({first[:7]})"


def test_head_on_the_default_branch_defaults_to_its_parent(repo_dir: Path) -> None:
    init(repo_dir)
    first = commit(repo_dir, "a.txt", "one\n")
    second = commit(repo_dir, "a.txt", "two\n")
    commit(repo_dir, "a.txt", "three\n")
    target = resolve_target(repo_dir, head=second)
    assert (target.base, target.head) == (first, second)


def test_unknown_base_and_head_name_the_revision(repo_dir: Path) -> None:
    init(repo_dir)
    commit(repo_dir, "a.txt", "one\n")
    with pytest.raises(RevisionNotFound, match="no-such-base"):
        resolve_target(repo_dir, base="no-such-base")
    with pytest.raises(RevisionNotFound, match="no-such-head"):
        resolve_target(repo_dir, head="no-such-head")
    with pytest.raises(RevisionNotFound, match="nope"):
        resolve_target(repo_dir, commit_range="HEAD..nope")


def test_commit_ranges(repo_dir: Path) -> None:
    init(repo_dir)
    fork = commit(repo_dir, "a.txt", "one\n")
    git(repo_dir, "switch", "-q", "-c", "feature")
    tip = commit(repo_dir, "b.txt", "feature\n")
    git(repo_dir, "switch", "-q", "main")
    main_tip = commit(repo_dir, "a.txt", "two\n")
    two_dot = resolve_target(repo_dir, commit_range="main..feature")
    assert (two_dot.base, two_dot.head) == (main_tip, tip)
    three_dot = resolve_target(repo_dir, commit_range="main...feature")
    assert (three_dot.base, three_dot.head) == (fork, tip)
    assert "merge-base of main" in three_dot.label
    with pytest.raises(UserError, match="not a commit range"):
        resolve_target(repo_dir, commit_range="main")
    with pytest.raises(UserError, match="already names both sides"):
        resolve_target(repo_dir, commit_range="main..feature", base="main")


def test_staged(repo_dir: Path) -> None:
    init(repo_dir)
    first = commit(repo_dir, "a.txt", "one\n")
    second = commit(repo_dir, "a.txt", "two\n")
    (repo_dir / "a.txt").write_text("unstaged edit\n")
    # Only unstaged edits: the index equals HEAD, so the last commit is reviewed.
    assert resolve_target(repo_dir, staged=True).base == first
    git(repo_dir, "add", "a.txt")
    staged = resolve_target(repo_dir, staged=True)
    assert (staged.base, staged.head, staged.staged) == (second, None, True)
    assert staged.label.startswith("staged changes vs HEAD")
    with pytest.raises(UserError, match="not both"):
        resolve_target(repo_dir, staged=True, head="HEAD")
