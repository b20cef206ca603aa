"""The read-only repository tools of the API agents: what they return, and every way out of
the worktree being refused as a tool error (never an exception, never the file's content)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from contend.agents import repo_tools
from contend.agents.repo_tools import RepoTools, anthropic_tools, openai_tools

SECRET = "OUTSIDE-SECRET-4b1d"


@pytest.fixture
def tree(tmp_path: Path) -> RepoTools:
    root = tmp_path / "wt"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "app.py").write_text("def f():\n    return 0\n# TODO fix\n")
    (root / "README.md").write_text("hello\nTODO docs\n")
    (root / "blob.bin").write_bytes(b"\0\1\2TODO")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("url = https://token@example.invalid/x TODO\n")
    (tmp_path / "secret.txt").write_text(SECRET + "\n")
    os.symlink(tmp_path / "secret.txt", root / "link.txt")
    os.symlink(tmp_path, root / "linkdir")
    return RepoTools(root, max_file_bytes=1_000)


def test_read_file_numbers_lines_and_honours_the_range(tree: RepoTools) -> None:
    result = tree.call("read_file", {"path": "src/pkg/app.py", "start_line": 2, "end_line": 3})
    assert not result.is_error
    assert result.text == "     2\t    return 0\n     3\t# TODO fix"


def test_read_file_accepts_json_text_arguments(tree: RepoTools) -> None:
    result = tree.call("read_file", json.dumps({"path": "README.md"}))
    assert result.text == "     1\thello\n     2\tTODO docs"


@pytest.mark.parametrize(
    "path",
    [
        "../secret.txt",
        "/etc/passwd",
        str(Path("/") / "tmp"),
        "link.txt",
        "linkdir/secret.txt",
        "src/../../secret.txt",
        "~/x",
        ".git/config",
    ],
)
def test_paths_outside_the_worktree_are_refused(tree: RepoTools, path: str) -> None:
    result = tree.call("read_file", {"path": path})
    assert result.is_error
    assert result.text.startswith("error: ")
    assert SECRET not in result.text
    assert "token@" not in result.text


def test_list_dir_escape_is_refused_and_git_is_hidden(tree: RepoTools) -> None:
    assert tree.call("list_dir", {"path": ".."}).is_error
    assert tree.call("list_dir", {"path": "linkdir"}).is_error
    listing = tree.call("list_dir", {})
    assert listing.text.splitlines() == [
        "README.md",
        "blob.bin",
        "link.txt",
        "linkdir/",
        "src/",
    ]


def test_grep_searches_text_files_inside_only(tree: RepoTools) -> None:
    result = tree.call("grep", {"pattern": r"TODO|4b1d"})
    assert not result.is_error
    # Not .git, not the binary file, not through the symlinks out of the worktree.
    assert result.text.splitlines() == ["README.md:2: TODO docs", "src/pkg/app.py:3: # TODO fix"]


def test_grep_path_glob_and_bad_pattern(tree: RepoTools) -> None:
    assert tree.call("grep", {"pattern": "TODO", "path_glob": "src/**/*.py"}).text == (
        "src/pkg/app.py:3: # TODO fix"
    )
    assert tree.call("grep", {"pattern": "zzz"}).text == "no matches"
    bad = tree.call("grep", {"pattern": "(unclosed"})
    assert bad.is_error and "invalid regular expression" in bad.text


def test_grep_names_the_files_it_did_not_search(tree: RepoTools) -> None:
    (tree.root / "big.txt").write_text("TODO\n" * 1_000)  # over the 1000-byte limit
    result = tree.call("grep", {"pattern": "TODO", "path_glob": "big.txt"})
    assert result.text == "no matches\n[1 files not searched: big.txt (5000 bytes, over the limit)]"


def test_grep_output_is_bounded(tree: RepoTools, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(repo_tools, "MAX_GREP_MATCHES", 3)
    (tree.root / "many.txt").write_text("hit\n" * 50)
    lines = tree.call("grep", {"pattern": "hit"}).text.splitlines()
    assert lines == [
        "many.txt:1: hit",
        "many.txt:2: hit",
        "many.txt:3: hit",
        "[stopped at the match limit; narrow the search]",
    ]


def test_read_file_limits(tree: RepoTools, monkeypatch: pytest.MonkeyPatch) -> None:
    (tree.root / "big.txt").write_text("x" * 2_000)
    assert "over the 1000-byte limit" in tree.call("read_file", {"path": "big.txt"}).text
    assert "binary file" in tree.call("read_file", {"path": "blob.bin"}).text
    assert "no such file" in tree.call("read_file", {"path": "nope.py"}).text
    assert "has 3 lines" in tree.call("read_file", {"path": "src/pkg/app.py", "start_line": 9}).text
    monkeypatch.setattr(repo_tools, "MAX_READ_CHARS", 20)
    cut = tree.call("read_file", {"path": "src/pkg/app.py"}).text
    assert cut == "     1\tdef f():\n[output cut at 20 characters; ask for lines 2..]"


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("read_file", "{not json", "not valid JSON"),
        ("read_file", "[1]", "must be a JSON object"),
        ("read_file", {}, "'path' is required"),
        ("read_file", {"path": "README.md", "start_line": 0}, "positive integer"),
        ("read_file", {"path": "README.md", "start_line": True}, "positive integer"),
        ("grep", {"pattern": 3}, "'pattern' is required"),
        ("write_file", {"path": "x"}, "unknown tool 'write_file'"),
    ],
)
def test_bad_calls_become_tool_errors(
    tree: RepoTools, name: str, arguments: str | dict[str, object], message: str
) -> None:
    result = tree.call(name, arguments)
    assert result.is_error
    assert message in result.text


def test_tool_schemas_offer_exactly_the_three_read_only_tools() -> None:
    names = {"read_file", "grep", "list_dir"}
    assert {t["function"]["name"] for t in openai_tools()} == names
    assert {t["name"] for t in anthropic_tools()} == names
    for tool in anthropic_tools():
        assert tool["input_schema"]["type"] == "object"
        assert tool["input_schema"]["additionalProperties"] is False
