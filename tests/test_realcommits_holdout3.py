"""The third holdout set (`holdout3`) of the real-commit benchmark stays apart: its projects
are in no other set and not the independent check's, it has its own manifest, bundle and
label directories, and its labels are valid and of its own projects only.

Nothing here reviews a commit: the figures come from
`bench/realcommits/run.py --set holdout3`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RC = ROOT / "bench" / "realcommits"
sys.path.insert(0, str(RC))

from rc_labels import load_labels  # noqa: E402
from rc_projects import (  # noqa: E402
    HOLDOUT3_PROJECTS,
    LANGS,
    SETS,
    bench_set,
    project,
)

# Kept for the independent check (issues 8 and 17): in no set of ours.
OUTSIDE_CHECK = {"requests", "click", "httpx", "express", "axios", "vitest"}


def _repo(source: str) -> str:
    return source.removeprefix("github:").lower()


def _rows(name: str) -> list[dict[str, object]]:
    text = SETS[name].manifest.read_text()
    return [json.loads(x) for x in text.splitlines() if x.strip()]


def test_holdout3_has_its_own_paths() -> None:
    h2 = bench_set("holdout3")
    assert h2.projects == HOLDOUT3_PROJECTS
    assert h2.manifest == RC / "manifest-holdout3.jsonl"
    assert h2.labels_dir == RC / "labels-holdout3"
    assert h2.default_data_dir == RC / "data-holdout3"
    assert project("uvicorn") is HOLDOUT3_PROJECTS[0]


def test_holdout3_projects_are_in_no_other_set_nor_the_outside_check() -> None:
    others = [p for name, s in SETS.items() if name != "holdout3" for p in s.projects]
    other_names = {p.name for p in others}
    other_repos = {_repo(p.source) for p in others}
    for p in HOLDOUT3_PROJECTS:
        assert p.name not in other_names, p.name
        assert _repo(p.source) not in other_repos, p.source
        repo_name = _repo(p.source).split("/")[1].removesuffix(".js")
        assert p.name not in OUTSIDE_CHECK and repo_name not in OUTSIDE_CHECK, p.source


def test_holdout3_manifest_matches_its_project_table_and_shares_no_commit() -> None:
    rows = _rows("holdout3")
    assert Counter(r["project"] for r in rows) == {p.name: p.quota for p in HOLDOUT3_PROJECTS}
    lang_of = {p.name: p.lang for p in HOLDOUT3_PROJECTS}
    assert all(r["lang"] == lang_of[str(r["project"])] for r in rows)
    # The brief's floor: 5 Python projects and >= 70 commits, 4 JS/TS and >= 50.
    for lang, projects, floor in (("python", 5, 70), ("js", 4, 50)):
        assert len({r["project"] for r in rows if r["lang"] == lang}) >= projects, lang
        assert sum(1 for r in rows if r["lang"] == lang) >= floor, lang
    shas = {r["sha"] for r in rows}
    for other in ("main", "holdout", "holdout2"):
        assert not shas & {r["sha"] for r in _rows(other)}, other


def test_holdout3_labels_are_valid_and_only_of_its_projects() -> None:
    h2 = bench_set("holdout3")
    labels = load_labels(h2.labels_dir, LANGS)
    assert labels, "the holdout3 labels are committed"
    assert {lab.project for lab in labels} <= {p.name for p in HOLDOUT3_PROJECTS}
    # Every label judges a commit of this set's manifest.
    commits = {(str(r["project"]), str(r["sha"])) for r in _rows("holdout3")}
    assert {(lab.project, lab.commit) for lab in labels} <= commits
    proc = subprocess.run(
        [sys.executable, str(RC / "label.py"), "--set", "holdout3", "check"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr


def test_holdout3_bundles_are_git_ignored() -> None:
    # They hold third-party code, which the fetch tool's terms forbid committing.
    proc = subprocess.run(
        ["git", "check-ignore", "-q", str(RC / "data-holdout3" / "python" / "uvicorn.bundle")],
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 0
