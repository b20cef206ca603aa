"""Code moved ACROSS files in one change (issue 8): a module split into a package, a function
moved to another module. The deleted module is never reviewed (nothing on its new side), but
its old text is where the moved code came from, so a construct the new files hold no more
often than the deleted and changed files held is moved, not new. Real git repositories, the
real engine, the real CLI: the old text of a deleted file has to reach the test."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from contend.cli.main import main
from contend.gitio.diff import collect_changes, deleted_sources
from review_helpers import git, make_repo

# Three parts of one module, each long-standing: a blanket `type: ignore`, a broad handler
# returning a default. None of the new modules is similar enough to the old one for git to
# call it a rename: the old module is deleted, as when quart's `wrappers.py` became a package.
REQUEST = """\
import json


class Request:
    def __init__(self, body, charset):
        self.body = body
        self.charset = charset

    async def get_json(self):
        raw = await self.body  # type: ignore
        try:
            return json.loads(raw)
        except Exception:
            return {}

    async def get_text(self):
        raw = await self.body
        return raw.decode(self.charset)
"""
RESPONSE = """\
class Response:
    def __init__(self, charset):
        self.charset = charset
        self.data = b""

    def set_data(self, data):
        if isinstance(data, str):
            data = data.encode(self.charset)  # type: ignore
        self.data = data

    def get_data(self, as_text=False):
        return self.data.decode(self.charset) if as_text else self.data
"""
HEADERS = """\
class Headers:
    def __init__(self, items):
        self.items = list(items)

    def get(self, name, default=None):
        for key, value in self.items:
            if key.lower() == name.lower():
                return value
        return default

    def add(self, name, value):
        self.items.append((name, value))  # type: ignore
"""
WRAPPERS = REQUEST + "\n\n" + RESPONSE + "\n\n" + HEADERS
INIT = "from .request import Request\nfrom .response import Response\n"
SPLIT: dict[str, str | None] = {
    "pkg/wrappers.py": None,
    "pkg/wrappers/__init__.py": INIT,
    "pkg/wrappers/request.py": REQUEST,
    "pkg/wrappers/response.py": RESPONSE,
    "pkg/wrappers/headers.py": HEADERS,
}


def _review(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    change: dict[str, str | None],
) -> list[dict[str, Any]]:
    repo = make_repo(tmp_path, base={"pkg/wrappers.py": WRAPPERS}, change=change)
    monkeypatch.chdir(repo)
    main(["review", "--critic", "static", "--format", "json", "-q"])
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return [*data["disputes"], *data["resolved"]]


def test_a_module_split_into_a_package_adds_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    found = _review(tmp_path, monkeypatch, capsys, SPLIT)
    # git sees the old module deleted, not renamed: its text reaches no critic as a change.
    status = git(tmp_path / "repo", "diff", "-M", "--name-status", "main", "feature")
    assert "D\tpkg/wrappers.py" in status.split("\n")
    assert [(d["rule"], d["location"]["path"]) for d in found] == []


def test_what_the_split_really_adds_is_still_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    grown = RESPONSE + (
        "\n    def read_config(self, path):\n"
        "        try:\n            return json.loads(open(path).read())  # type: ignore\n"
        "        except Exception:\n            return []\n"
    )
    found = _review(tmp_path, monkeypatch, capsys, {**SPLIT, "pkg/wrappers/response.py": grown})
    rules = sorted({d["rule"] for d in found})
    assert rules == ["swallowing-handler", "type-ignore-added"]
    assert {d["location"]["path"] for d in found} == {"pkg/wrappers/response.py"}


def test_a_copy_kept_in_both_places_is_new(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The old module stays as it was and a second copy appears: one more of each construct.
    copied = {"pkg/wrappers_copy.py": REQUEST}
    found = _review(tmp_path, monkeypatch, capsys, copied)
    assert {d["rule"] for d in found} >= {"swallowing-handler", "type-ignore-added"}


def test_deleted_sources_reads_deleted_code_files_within_the_size_limit(tmp_path: Path) -> None:
    big = "x = 1\n" * 400  # 2,400 bytes
    repo = make_repo(
        tmp_path,
        base={"pkg/wrappers.py": WRAPPERS, "pkg/big.py": big, "notes.txt": "text\n"},
        change={"pkg/wrappers.py": None, "pkg/big.py": None, "notes.txt": None},
    )
    changes, skipped = collect_changes(repo, "main", "feature")
    assert changes == []
    found = deleted_sources(repo, "main", skipped, max_file_bytes=2_000)
    # The deleted module's old text, as a deleted change; the file over the limit and the
    # non-code file are left out (what moved from them stays reported).
    assert [(c.path, c.status, c.new_text) for c in found] == [("pkg/wrappers.py", "deleted", None)]
    assert found[0].old_text == WRAPPERS
