"""collect_changes on real git repositories: every path lands in changes or in skipped."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from contend.critics.static.base import FileChange, Skipped
from contend.errors import NotAGitRepository, RevisionNotFound, UserError
from contend.gitio.diff import collect_changes
from contend.gitio.git import repo_root, resolve_commit


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(repo), *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def write(repo: Path, path: str, content: str | bytes) -> None:
    full = repo / path
    full.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        full.write_bytes(content)
    else:
        full.write_text(content, encoding="utf-8")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write(root, "app.py", "def f():\n    return 1\n\n\ndef g():\n    return 2\n")
    write(root, "tests/test_app.py", "def test_f():\n    assert 1 == 1\n")
    write(root, "lib/old.py", "x = 1\n")
    write(root, "moved.py", "".join(f"line_{i} = {i}\n" for i in range(20)))
    write(root, ".gitignore", "ignored.py\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    return root


def commit_all(repo: Path, message: str = "change") -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def by_path(changes: list[FileChange]) -> dict[str, FileChange]:
    return {c.path: c for c in changes}


def reasons(skipped: list[Skipped]) -> dict[str, str]:
    return {s.path: s.reason for s in skipped}


def test_modified_file_between_commits_has_exact_lines(repo: Path) -> None:
    write(repo, "app.py", "def f():\n    return 10\n\n\ndef g():\n    return 2\n    # end\n")
    commit_all(repo)
    changes, skipped = collect_changes(repo, "HEAD~1", "HEAD")
    assert skipped == []
    (change,) = changes
    assert change.path == "app.py"
    assert change.status == "modified"
    assert change.language == "python"
    assert change.added_lines == frozenset({2, 7})
    assert change.removed_lines == frozenset({2})
    assert change.old_text == "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
    assert change.new_text is not None and change.new_text.endswith("# end\n")


def test_added_file_and_untracked_file_in_working_tree(repo: Path) -> None:
    write(repo, "staged_new.py", "a = 1\nb = 2\n")
    git(repo, "add", "staged_new.py")
    write(repo, "loose.py", "c = 3\n")
    write(repo, "ignored.py", "secret = 1\n")
    changes, skipped = collect_changes(repo, "HEAD")
    found = by_path(changes)
    assert set(found) == {"staged_new.py", "loose.py"}
    assert found["staged_new.py"].status == "added"
    assert found["staged_new.py"].old_text is None
    assert found["staged_new.py"].added_lines == frozenset({1, 2})
    assert found["loose.py"].status == "added"
    assert found["loose.py"].added_lines == frozenset({1})
    assert skipped == []


def test_untracked_can_be_left_out(repo: Path) -> None:
    write(repo, "loose.py", "c = 3\n")
    changes, skipped = collect_changes(repo, "HEAD", include_untracked=False)
    assert changes == []
    assert skipped == []


def test_working_tree_sees_unstaged_edit(repo: Path) -> None:
    write(repo, "lib/old.py", "x = 2\n")
    changes, _ = collect_changes(repo, "HEAD")
    (change,) = changes
    assert change.path == "lib/old.py"
    assert change.new_text == "x = 2\n"
    assert change.added_lines == frozenset({1})


def test_staged_compares_index_not_working_tree(repo: Path) -> None:
    write(repo, "lib/old.py", "x = 2\n")
    git(repo, "add", "lib/old.py")
    write(repo, "lib/old.py", "x = 3\n")
    write(repo, "app.py", "changed = True\n")  # unstaged: not part of --staged
    changes, _ = collect_changes(repo, "HEAD", staged=True)
    (change,) = changes
    assert change.path == "lib/old.py"
    assert change.new_text == "x = 2\n"


def test_staged_and_head_together_is_a_usage_error(repo: Path) -> None:
    with pytest.raises(UserError, match="not both"):
        collect_changes(repo, "HEAD", "HEAD", staged=True)


def test_deleted_test_is_a_change_deleted_source_is_skipped(repo: Path) -> None:
    (repo / "tests/test_app.py").unlink()
    (repo / "lib/old.py").unlink()
    commit_all(repo)
    changes, skipped = collect_changes(repo, "HEAD~1", "HEAD")
    (deleted,) = changes
    assert deleted.path == "tests/test_app.py"
    assert deleted.status == "deleted"
    assert deleted.new_text is None
    assert deleted.old_text == "def test_f():\n    assert 1 == 1\n"
    assert deleted.added_lines == frozenset()
    assert deleted.removed_lines == frozenset({1, 2})
    assert reasons(skipped) == {"lib/old.py": "deleted: nothing on the new side to check"}


def test_rename_with_edit_reports_only_edited_lines(repo: Path) -> None:
    (repo / "pkg").mkdir()
    git(repo, "mv", "moved.py", "pkg/renamed.py")
    text = (repo / "pkg/renamed.py").read_text().replace("line_5 = 5", "line_5 = 55")
    write(repo, "pkg/renamed.py", text)
    commit_all(repo)
    changes, skipped = collect_changes(repo, "HEAD~1", "HEAD")
    assert skipped == []
    (change,) = changes
    assert change.status == "renamed"
    assert change.path == "pkg/renamed.py"
    assert change.old_path == "moved.py"
    assert change.added_lines == frozenset({6})
    assert change.removed_lines == frozenset({6})


def test_binary_file_is_skipped(repo: Path) -> None:
    write(repo, "logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    commit_all(repo)
    changes, skipped = collect_changes(repo, "HEAD~1", "HEAD")
    assert changes == []
    assert reasons(skipped) == {"logo.png": "binary file"}


def test_untracked_binary_file_is_skipped(repo: Path) -> None:
    write(repo, "blob.bin", b"abc\x00def")
    changes, skipped = collect_changes(repo, "HEAD")
    assert changes == []
    assert reasons(skipped) == {"blob.bin": "binary file"}


def test_non_utf8_file_is_skipped_with_reason(repo: Path) -> None:
    write(repo, "latin.py", "name = 'caf\xe9'\n".encode("latin-1"))
    write(repo, "latin.txt", "name = 'caf\xe9'\n".encode("latin-1"))
    commit_all(repo)
    changes, skipped = collect_changes(repo, "HEAD~1", "HEAD")
    assert changes == []
    assert reasons(skipped) == {
        # Python itself refuses this file: no coding declaration, not UTF-8.
        "latin.py": "cannot be read as Python source on the new side: "
        "invalid or missing encoding declaration",
        "latin.txt": "not UTF-8 on the new side (byte 11): cannot be read",
    }


def test_python_file_with_a_coding_declaration_is_decoded_as_python_does(repo: Path) -> None:
    source = "# -*- coding: latin-1 -*-\nname = 'caf\xe9'\n"
    write(repo, "latin.py", source.encode("latin-1"))
    write(repo, "bom.py", b"\xef\xbb\xbfx = 1\n")
    commit_all(repo)
    changes, skipped = collect_changes(repo, "HEAD~1", "HEAD")
    assert skipped == []
    texts = {c.path: c.new_text for c in changes}
    assert texts == {"latin.py": source, "bom.py": "x = 1\n"}


def test_very_large_file_is_skipped_with_sizes(repo: Path) -> None:
    write(repo, "big.py", "x = 1\n" * 2000)  # 12,000 bytes
    commit_all(repo)
    changes, skipped = collect_changes(repo, "HEAD~1", "HEAD", max_file_bytes=10_000)
    assert changes == []
    assert reasons(skipped) == {
        "big.py": "too large: 12000 bytes on the new side (limit 10000 bytes)"
    }


def test_very_large_untracked_file_is_skipped(repo: Path) -> None:
    write(repo, "big.py", "x = 1\n" * 2000)
    _, skipped = collect_changes(repo, "HEAD", max_file_bytes=10_000)
    assert reasons(skipped) == {
        "big.py": "too large: 12000 bytes on the new side (limit 10000 bytes)"
    }


def test_symlink_is_skipped(repo: Path) -> None:
    os.symlink("app.py", repo / "link.py")
    commit_all(repo)
    changes, skipped = collect_changes(repo, "HEAD~1", "HEAD")
    assert changes == []
    assert reasons(skipped) == {"link.py": "symlink: a link target is not source to check"}


def test_mode_change_only_is_a_change_with_no_lines(repo: Path) -> None:
    # contend: allow security -- the test needs a mode-only change, in a temp repository
    os.chmod(repo / "app.py", 0o755)
    commit_all(repo)
    changes, skipped = collect_changes(repo, "HEAD~1", "HEAD")
    assert skipped == []
    (change,) = changes
    assert change.path == "app.py"
    assert change.added_lines == frozenset()


def test_path_with_spaces_and_quotes(repo: Path) -> None:
    write(repo, 'odd "name" dir/file one.py', "v = 1\n")
    write(repo, "app.py", "changed = 1\n")
    commit_all(repo)
    changes, _ = collect_changes(repo, "HEAD~1", "HEAD")
    found = by_path(changes)
    assert set(found) == {"app.py", 'odd "name" dir/file one.py'}
    assert found['odd "name" dir/file one.py'].added_lines == frozenset({1})


def test_bad_base_raises_revision_not_found(repo: Path) -> None:
    with pytest.raises(RevisionNotFound, match="no-such-branch"):
        collect_changes(repo, "no-such-branch")
    with pytest.raises(RevisionNotFound, match="--all"):
        resolve_commit(repo, "--all")


def test_non_repository_raises_not_a_git_repository(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(NotAGitRepository, match="plain"):
        collect_changes(plain, "HEAD")
    with pytest.raises(NotAGitRepository, match="does not exist"):
        repo_root(tmp_path / "missing")


def test_repo_root_from_subdirectory(repo: Path) -> None:
    assert repo_root(repo / "lib") == repo.resolve()


def test_subdirectory_path_still_reports_repository_relative_paths(repo: Path) -> None:
    write(repo, "app.py", "changed = 1\n")
    changes, _ = collect_changes(repo / "lib", "HEAD")
    assert [c.path for c in changes] == ["app.py"]


def test_submodule_gitlink_is_skipped(repo: Path) -> None:
    commit = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{commit},vendor/lib")
    git(repo, "commit", "-q", "-m", "add gitlink")
    changes, skipped = collect_changes(repo, "HEAD~1", "HEAD")
    assert changes == []
    assert reasons(skipped) == {
        "vendor/lib": "submodule: its contents belong to another repository"
    }


def test_untracked_nested_repository_is_skipped(repo: Path) -> None:
    nested = repo / "nested"
    nested.mkdir()
    git(nested, "init", "-q")
    write(nested, "inner.py", "x = 1\n")
    changes, skipped = collect_changes(repo, "HEAD")
    assert changes == []
    assert reasons(skipped) == {
        "nested/": "nested git repository: its contents belong to another repository"
    }


def test_non_utf8_file_name_is_reviewed_under_a_printable_name(repo: Path) -> None:
    (repo / os.fsdecode(b"caf\xe9.py")).write_text("x = 1\n")
    (repo / os.fsdecode(b"new\xff.py")).write_text("y = 2\n")
    git(repo, "add", os.fsdecode(b"caf\xe9.py"))
    git(repo, "commit", "-q", "-m", "committed")
    for changes, skipped in (
        collect_changes(repo, "HEAD~1", "HEAD"),  # from blobs
        collect_changes(repo, "HEAD~1"),  # from disk, the untracked one too
    ):
        assert skipped == []
        texts = {c.path: c.new_text for c in changes}
        assert texts["caf\\xe9.py"] == "x = 1\n"
    assert texts["new\\xff.py"] == "y = 2\n"


def test_many_files_keep_their_texts_apart(repo: Path) -> None:
    for i in range(30):
        write(repo, f"gen/m{i}.py", f"value = {i}\n")
    commit_all(repo)
    changes, skipped = collect_changes(repo, "HEAD~1", "HEAD")
    assert skipped == []
    texts = {c.path: c.new_text for c in changes}
    assert texts == {f"gen/m{i}.py": f"value = {i}\n" for i in range(30)}
