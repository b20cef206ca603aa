"""The holdout set of the real-commit benchmark stays apart: its projects are in neither the
main set nor the independent check's, every script reaches it only through `--set holdout`
(its own manifest, bundle directory and label directory), and the main set's paths are the
ones they always were.

Nothing here reviews a holdout commit: the holdout's figures come from
`bench/realcommits/run.py --set holdout`, run by whoever does not tune the critics.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RC = ROOT / "bench" / "realcommits"
sys.path.insert(0, str(RC))

import selection  # noqa: E402
from rc_labels import load_labels  # noqa: E402
from rc_projects import (  # noqa: E402
    HOLDOUT_PROJECTS,
    LANGS,
    PROJECTS,
    SETS,
    bench_set,
    data_dir,
)

# Kept for the independent check (issues 8 and 17): in no set of ours.
OUTSIDE_CHECK = {"requests", "click", "httpx", "express", "axios", "vitest"}


def _script(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(RC / name), *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )


def _repo(source: str) -> str:
    return source.removeprefix("github:").lower()


def test_main_set_keeps_its_paths() -> None:
    main = bench_set("main")
    assert main.projects == PROJECTS
    assert main.manifest == RC / "manifest.jsonl"
    assert main.labels_dir == RC / "labels"
    assert main.default_data_dir == RC / "data"


def test_holdout_has_its_own_paths_and_projects(monkeypatch: pytest.MonkeyPatch) -> None:
    hold = bench_set("holdout")
    assert hold.projects == HOLDOUT_PROJECTS
    assert hold.manifest == RC / "manifest-holdout.jsonl"
    assert hold.labels_dir == RC / "labels-holdout"
    assert hold.default_data_dir == RC / "data-holdout"
    monkeypatch.delenv("REALCOMMITS_DATA", raising=False)
    assert data_dir(None, hold.default_data_dir) == RC / "data-holdout"
    assert data_dir(None) == RC / "data"
    monkeypatch.setenv("REALCOMMITS_DATA", "/elsewhere")
    assert data_dir(None, hold.default_data_dir) == Path("/elsewhere")
    assert data_dir("/given", hold.default_data_dir) == Path("/given")


def test_holdout_projects_are_in_neither_the_main_set_nor_the_outside_check() -> None:
    main_names = {p.name for p in PROJECTS}
    main_repos = {_repo(p.source) for p in PROJECTS}
    for p in HOLDOUT_PROJECTS:
        assert p.name not in main_names, p.name
        assert _repo(p.source) not in main_repos, p.source
        repo_name = _repo(p.source).split("/")[1].removesuffix(".js")
        assert p.name not in OUTSIDE_CHECK and repo_name not in OUTSIDE_CHECK, p.source


def test_holdout_manifest_matches_its_project_table() -> None:
    hold = bench_set("holdout")
    rows = [json.loads(x) for x in hold.manifest.read_text().splitlines() if x.strip()]
    per_project = Counter(r["project"] for r in rows)
    assert per_project == {p.name: p.quota for p in HOLDOUT_PROJECTS}
    lang_of = {p.name: p.lang for p in HOLDOUT_PROJECTS}
    assert all(r["lang"] == lang_of[r["project"]] for r in rows)
    # The brief's floor: ≥ 3 projects and ≥ 60 (Python) / ≥ 45 (JS/TS) commits.
    for lang, floor in (("python", 60), ("js", 45)):
        names = {r["project"] for r in rows if r["lang"] == lang}
        assert len(names) >= 3, lang
        assert sum(1 for r in rows if r["lang"] == lang) >= floor, lang
    main_shas = {
        json.loads(x)["sha"] for x in SETS["main"].manifest.read_text().splitlines() if x.strip()
    }
    assert not main_shas & {r["sha"] for r in rows}


def test_holdout_labels_are_valid_and_only_of_holdout_projects() -> None:
    hold = bench_set("holdout")
    labels = load_labels(hold.labels_dir, LANGS)
    names = {p.name for p in HOLDOUT_PROJECTS}
    assert labels, "the holdout's baseline labels are committed"
    assert {lab.project for lab in labels} <= names
    proc = _script("label.py", "--set", "holdout", "check")
    assert proc.returncode == 0, proc.stderr


def test_a_holdout_stub_cannot_be_filed_into_the_main_set(tmp_path: Path) -> None:
    stub = tmp_path / "js" / "fastify.todo.jsonl"
    stub.parent.mkdir(parents=True)
    stub.write_text(
        json.dumps(
            {
                "project": "fastify",
                "commit": "a" * 40,
                "path": "test/x.test.js",
                "rule": "js-test-deleted",
                "start_line": 1,
                "end_line": 1,
                "label": "FALSE",
                "reason": "moved to another file of the same commit",
            }
        )
        + "\n"
    )
    labels = tmp_path / "labels"
    proc = _script("label.py", "--labels", str(labels), "merge", str(stub))
    assert proc.returncode == 2
    assert "belongs to set 'holdout'; pass --set holdout" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not labels.exists()


def test_selection_rejects_a_project_of_another_set() -> None:
    proc = _script("selection.py", "--set", "holdout", "--project", "attrs", "--check")
    assert proc.returncode == 2
    assert "unknown project 'attrs' of set holdout" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_run_without_holdout_bundles_says_how_to_build_them(tmp_path: Path) -> None:
    proc = _script("run.py", "--set", "holdout", "--data", str(tmp_path / "none"), "-q")
    assert proc.returncode == 2
    assert "build.py --set holdout" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_holdout_bundles_are_git_ignored() -> None:
    # They hold third-party code, which the fetch tool's terms forbid committing.
    proc = subprocess.run(
        ["git", "check-ignore", "-q", str(RC / "data-holdout" / "python" / "flask.bundle")],
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 0


def test_a_failed_check_says_which_project_differs_and_how() -> None:
    def row(project: str, sha: str, **fields: object) -> dict[str, object]:
        return {"project": project, "sha": sha, "category": "bugfix", "size": "S", **fields}

    manifest = [row("quart", "a" * 40), row("quart", "b" * 40), row("immer", "c" * 40)]
    fresh = [row("quart", "a" * 40, category="typing"), row("quart", "d" * 40), manifest[2]]
    assert selection.differences(manifest, fresh) == [
        "quart: 1 commit(s) only in a fresh selection (dddddddddd), 1 only in the manifest "
        "(bbbbbbbbbb); commits in both with other category (1)"
    ]
    # The same rows in another order: said so, not left blank.
    assert selection.differences(manifest, manifest[::-1]) == [
        "the same commits and fields, in another order or layout"
    ]
