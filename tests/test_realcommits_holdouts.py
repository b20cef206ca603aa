"""The holdout sets of the real-commit benchmark stay apart: each one's projects are in no
other set and not the independent check's, it has its own manifest, bundle and label
directories, it shares no commit with the sets built before it, and its labels are valid
and of its own commits only.

Nothing here reviews a commit: the figures come from
`bench/realcommits/run.py --set holdout2|holdout3|holdout4|holdout5|holdout6|holdout7`.
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

from rc_labels import load_labels  # noqa: E402
from rc_projects import (  # noqa: E402
    HOLDOUT2_PROJECTS,
    HOLDOUT3_PROJECTS,
    HOLDOUT4_PROJECTS,
    HOLDOUT5_PROJECTS,
    HOLDOUT6_PROJECTS,
    HOLDOUT7_PROJECTS,
    LANGS,
    SETS,
    Project,
    bench_set,
    project,
)

# Kept for the independent check (issues 8 and 17): in no set of ours.
OUTSIDE_CHECK = {"requests", "click", "httpx", "express", "axios", "vitest"}

# (set, its project table, its first project, the sets built before it)
HOLDOUTS = [
    ("holdout2", HOLDOUT2_PROJECTS, "aiohttp", ("main", "holdout")),
    ("holdout3", HOLDOUT3_PROJECTS, "uvicorn", ("main", "holdout", "holdout2")),
    ("holdout4", HOLDOUT4_PROJECTS, "flake8", ("main", "holdout", "holdout2", "holdout3")),
    (
        "holdout5",
        HOLDOUT5_PROJECTS,
        "webargs",
        ("main", "holdout", "holdout2", "holdout3", "holdout4"),
    ),
    (
        "holdout6",
        HOLDOUT6_PROJECTS,
        "arrow",
        ("main", "holdout", "holdout2", "holdout3", "holdout4", "holdout5"),
    ),
    (
        "holdout7",
        HOLDOUT7_PROJECTS,
        "kombu",
        ("main", "holdout", "holdout2", "holdout3", "holdout4", "holdout5", "holdout6"),
    ),
]
by_set = pytest.mark.parametrize(
    ("name", "projects", "first", "earlier"), HOLDOUTS, ids=[h[0] for h in HOLDOUTS]
)


def _repo(source: str) -> str:
    return source.removeprefix("github:").lower()


def _rows(name: str) -> list[dict[str, object]]:
    text = SETS[name].manifest.read_text()
    return [json.loads(x) for x in text.splitlines() if x.strip()]


@by_set
def test_a_holdout_has_its_own_paths(
    name: str, projects: tuple[Project, ...], first: str, earlier: tuple[str, ...]
) -> None:
    bench = bench_set(name)
    assert bench.projects == projects
    assert bench.manifest == RC / f"manifest-{name}.jsonl"
    assert bench.labels_dir == RC / f"labels-{name}"
    assert bench.default_data_dir == RC / f"data-{name}"
    assert project(first) is projects[0]


@by_set
def test_a_holdouts_projects_are_in_no_other_set_nor_the_outside_check(
    name: str, projects: tuple[Project, ...], first: str, earlier: tuple[str, ...]
) -> None:
    others = [p for other, s in SETS.items() if other != name for p in s.projects]
    other_names = {p.name for p in others}
    other_repos = {_repo(p.source) for p in others}
    for p in projects:
        assert p.name not in other_names, p.name
        assert _repo(p.source) not in other_repos, p.source
        repo_name = _repo(p.source).split("/")[1].removesuffix(".js")
        assert p.name not in OUTSIDE_CHECK and repo_name not in OUTSIDE_CHECK, p.source


@by_set
def test_a_holdouts_manifest_matches_its_project_table_and_shares_no_commit(
    name: str, projects: tuple[Project, ...], first: str, earlier: tuple[str, ...]
) -> None:
    rows = _rows(name)
    assert Counter(r["project"] for r in rows) == {p.name: p.quota for p in projects}
    lang_of = {p.name: p.lang for p in projects}
    assert all(r["lang"] == lang_of[str(r["project"])] for r in rows)
    # The floor of a holdout: 5 Python projects and >= 70 commits, 4 JS/TS and >= 50.
    for lang, n_projects, floor in (("python", 5, 70), ("js", 4, 50)):
        assert len({r["project"] for r in rows if r["lang"] == lang}) >= n_projects, lang
        assert sum(1 for r in rows if r["lang"] == lang) >= floor, lang
    shas = {r["sha"] for r in rows}
    for other in earlier:
        assert not shas & {r["sha"] for r in _rows(other)}, other


@by_set
def test_a_holdouts_labels_are_valid_and_only_of_its_commits(
    name: str, projects: tuple[Project, ...], first: str, earlier: tuple[str, ...]
) -> None:
    labels = load_labels(bench_set(name).labels_dir, LANGS)
    assert labels, f"the {name} labels are committed"
    assert {lab.project for lab in labels} <= {p.name for p in projects}
    commits = {(str(r["project"]), str(r["sha"])) for r in _rows(name)}
    assert {(lab.project, lab.commit) for lab in labels} <= commits
    proc = subprocess.run(
        [sys.executable, str(RC / "label.py"), "--set", name, "check"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr


@by_set
def test_a_holdouts_bundles_are_git_ignored(
    name: str, projects: tuple[Project, ...], first: str, earlier: tuple[str, ...]
) -> None:
    # They hold third-party code, which the fetch tool's terms forbid committing.
    bundle = RC / f"data-{name}" / projects[0].lang / f"{first}.bundle"
    proc = subprocess.run(["git", "check-ignore", "-q", str(bundle)], cwd=ROOT, check=False)
    assert proc.returncode == 0
