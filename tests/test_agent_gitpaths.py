"""Which checkout is the author's, and which directories codex keys a worktree's trust by:
asked of git for real repositories and linked worktrees (contend's layout)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from contend.agents.codex import untrusted_projects
from contend.agents.gitpaths import author_checkout, repo_paths
from contend.errors import AgentError
from fakes.cli_env import git, make_repo


def _linked_worktree(repo: Path) -> Path:
    worktree = repo / ".contend" / "worktrees" / "run-1" / "C1"
    git(repo, "worktree", "add", "--detach", "--quiet", str(worktree), "HEAD")
    return worktree


def test_a_linked_worktree_leads_back_to_the_main_checkout(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    worktree = _linked_worktree(repo)
    found = repo_paths(worktree / ".", backend="test")
    assert found is not None
    assert (found.toplevel, found.main, found.common_parent) == (worktree, repo, repo)
    assert author_checkout(worktree, None, backend="test") == repo


def test_the_named_repository_wins_and_outside_git_the_directory_is_its_own(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "repo")
    worktree = _linked_worktree(repo)
    elsewhere = tmp_path / "linked-checkout"
    assert author_checkout(worktree, elsewhere, backend="test") == elsewhere
    plain = tmp_path / "plain"
    plain.mkdir()
    assert repo_paths(plain, backend="test") is None
    assert author_checkout(plain, None, backend="test") == plain


def test_a_git_failure_other_than_no_repository_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(AgentError, match="cannot run git"):
        repo_paths(tmp_path / "does-not-exist", backend="test")


def test_codex_trust_override_names_the_worktree_and_the_main_repository(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "repo")
    worktree = _linked_worktree(repo)
    projects = tomllib.loads(untrusted_projects(worktree))["projects"]
    assert {str(worktree), str(repo)} <= set(projects)
    assert {entry["trust_level"] for entry in projects.values()} == {"untrusted"}


def test_codex_trust_override_is_valid_toml_for_odd_paths(tmp_path: Path) -> None:
    odd = tmp_path / 'a "quoted" dir\\with\x7fdel and ünïcode 😀'
    odd.mkdir()
    parsed = tomllib.loads(untrusted_projects(odd))
    assert parsed["projects"] == {str(odd): {"trust_level": "untrusted"}}
