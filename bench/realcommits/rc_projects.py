"""The projects of the real-commit benchmark: where each comes from and how many commits it gives.

Owns the project table and the paths every script shares (manifest, labels, data dir,
mirrors). Pure data; no git, no I/O beyond computing paths.

`head` pins the history a project's commits are chosen from: selection only walks commits
reachable from it, so re-running `selection.py` on a mirror that has moved on picks the
same commits. `source` is what the `fetch` tool takes to bring the mirror onto a machine.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "manifest.jsonl"
LABELS_DIR = HERE / "labels"
# The bundles hold third-party code, so they are built on the machine, never committed
# (see docs/real-commit-benchmark.md, "Why the data is not committed").
DEFAULT_DATA_DIR = HERE / "data"
MIRROR_ROOT = Path(os.environ.get("REALCOMMITS_MIRRORS", "/work/.mirror"))

LANGS = ("python", "js")


@dataclass(frozen=True, slots=True)
class Project:
    name: str
    lang: str
    source: str  # github:owner/name, for the fetch tool
    head: str  # newest commit selection may consider
    quota: int

    @property
    def mirror(self) -> Path:
        owner_name = self.source.removeprefix("github:").replace("/", "+")
        return MIRROR_ROOT / owner_name / "repo"


PROJECTS: tuple[Project, ...] = (
    # Python — not requests, click or httpx (kept for an independent check).
    Project(
        "attrs",
        "python",
        "github:python-attrs/attrs",
        "c1dc5dcba16ed827aa6dcad896b41a3afedb4e32",
        22,
    ),
    Project(
        "marshmallow",
        "python",
        "github:marshmallow-code/marshmallow",
        "341b927f219205704728c05cd61f04d7e9727523",
        22,
    ),
    Project(
        "werkzeug",
        "python",
        "github:pallets/werkzeug",
        "1b00618e787f40dfb21eba29caf8f8be7c8e1d93",
        22,
    ),
    Project(
        "rich", "python", "github:Textualize/rich", "42899d8a0a96b121a514516f4be9db44ff7aeaf3", 22
    ),
    Project(
        "urllib3",
        "python",
        "github:urllib3/urllib3",
        "6a8536b6e1b0cbe69ae801337c599951e527ae29",
        22,
    ),
    Project("tox", "python", "github:tox-dev/tox", "ccb12fc2e1bb9df0da860be4af175e9b97949fbc", 22),
    Project(
        "more-itertools",
        "python",
        "github:more-itertools/more-itertools",
        "2fe1b2eeb9d75f994113fe3ac76d14b6bcd6fb10",
        22,
    ),
    Project(
        "pytest",
        "python",
        "github:pytest-dev/pytest",
        "df87db7b0462fb764ef73fa00561adf8ad047572",
        22,
    ),
    # JavaScript / TypeScript — not express, axios or vitest.
    Project("mocha", "js", "github:mochajs/mocha", "e6b9ee773481fd739ae24caeb42f32ac0b010f95", 20),
    Project("koa", "js", "github:koajs/koa", "e0ba8ef39d27fe5dae5492f9fe753d155124f994", 16),
    Project("got", "js", "github:sindresorhus/got", "d00d845a0b435365ec73ea5a1fca6e17ee677184", 20),
    Project("ky", "js", "github:sindresorhus/ky", "3419113b48e034fdcf8fa6bd3be3da7b3d0d758f", 14),
    Project("zod", "js", "github:colinhacks/zod", "e516c3baf22615e20934116abebfed6c000222c2", 22),
    Project("pino", "js", "github:pinojs/pino", "b394c2c16ac6a8919cd33d7f5684a01baca1096f", 18),
    Project(
        "commander", "js", "github:tj/commander.js", "ba6d13ddb4243e5913367734f8c159089ffe7834", 16
    ),
)


def project(name: str) -> Project:
    for p in PROJECTS:
        if p.name == name:
            return p
    known = ", ".join(p.name for p in PROJECTS)
    raise KeyError(f"unknown project {name!r} (known: {known})")


def data_dir(override: str | None = None) -> Path:
    """Where the bundles live: --data, else $REALCOMMITS_DATA, else bench/realcommits/data."""
    chosen = override or os.environ.get("REALCOMMITS_DATA")
    return Path(chosen) if chosen else DEFAULT_DATA_DIR


def bundle_path(data: Path, lang: str, name: str) -> Path:
    return data / lang / f"{name}.bundle"


def labels_path(lang: str, name: str, root: Path = LABELS_DIR) -> Path:
    return root / lang / f"{name}.jsonl"
