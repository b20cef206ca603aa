"""The projects of the real-commit benchmark: where each comes from and how many commits it gives.

Owns the project tables and the paths every script shares (manifest, labels, data dir,
mirrors), per *set*. Pure data; no git, no I/O beyond computing paths.

Eight sets, chosen, built, run and labelled by the same scripts (`--set`, default `main`):

- `main` — the set the critics are tuned against (`manifest.jsonl`, `labels/`, `data/`);
- `holdout` — other projects, kept away from that tuning, so the figures of the main set
  can be checked on commits nobody tuned for (`manifest-holdout.jsonl`,
  `labels-holdout/`, `data-holdout/`). Its projects are in neither the main set nor the
  independent check's (requests, click, httpx; express, axios, vitest);
- `holdout2` — a fresh holdout of yet other projects, built after `holdout` had been seen
  while the critics were tuned, so it can again show overfitting
  (`manifest-holdout2.jsonl`, `labels-holdout2/`, `data-holdout2/`). Its projects are in
  none of the sets above nor the independent check;
- `holdout3` — a third fresh holdout, built and labelled while the critics were being
  changed in general (not tuned to it), as the honest test of that change
  (`manifest-holdout3.jsonl`, `labels-holdout3/`, `data-holdout3/`). Its projects are in
  none of the sets above nor the independent check;
- `holdout4` — a fourth fresh holdout, built and labelled at a fixed main before a change
  of which findings block landed, by someone who did not see that change, as the check
  that it generalises (`manifest-holdout4.jsonl`, `labels-holdout4/`, `data-holdout4/`).
  Its projects are in none of the sets above nor the independent check;
- `holdout5` — a fifth fresh holdout, built and labelled at a fixed main while the static
  critics were being changed for precision (tuned on the five sets above), by someone who
  did not see that change, as the check that it generalises (`manifest-holdout5.jsonl`,
  `labels-holdout5/`, `data-holdout5/`). Its projects are in none of the sets above nor
  the independent check;
- `holdout6` — a sixth fresh holdout, built and labelled at a fixed main (`78ac189`)
  before a second round of precision changes to the static critics landed, by someone who
  did not see those changes, as the check that they generalise (`manifest-holdout6.jsonl`,
  `labels-holdout6/`, `data-holdout6/`). Its projects are in none of the sets above nor
  the independent check;
- `holdout7` — a seventh fresh holdout, built and labelled at a fixed main (`b7cedc4`)
  before a third round of precision changes to the static critics landed, by someone who
  did not see those changes, as the check that they generalise (`manifest-holdout7.jsonl`,
  `labels-holdout7/`, `data-holdout7/`). Its projects are in none of the sets above nor
  the independent check.

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


HOLDOUT_PROJECTS: tuple[Project, ...] = (
    # Python — in neither the main set nor the independent check.
    Project(
        "flask", "python", "github:pallets/flask", "2ac89889f4cc330eabd50f295dcef02828522c69", 14
    ),
    Project("black", "python", "github:psf/black", "8947c48ef2077c3a301b03c1e814dc2e3f78436e", 14),
    Project(
        "jinja", "python", "github:pallets/jinja", "5ef70112a1ff19c05324ff889dd30405b1002044", 14
    ),
    Project(
        "trio", "python", "github:python-trio/trio", "60d0c2f84854ec6ef74995663dcdce3296840485", 14
    ),
    Project(
        "structlog",
        "python",
        "github:hynek/structlog",
        "025edaf799c6d6d511ab672d14c2ba8e885c4c36",
        14,
    ),
    # JavaScript / TypeScript — likewise.
    Project(
        "superagent",
        "js",
        "github:ladjs/superagent",
        "1c8338b2e0a3b8f604d08acc7f3cbe305be1e571",
        12,
    ),
    Project(
        "fastify", "js", "github:fastify/fastify", "83e69762aff047940b376fc2a266d143499ef727", 12
    ),
    Project(
        "typeorm", "js", "github:typeorm/typeorm", "281bfba42a5813b106bcf5ba79bc7f7251bd1e73", 12
    ),
    Project(
        "react-hook-form",
        "js",
        "github:react-hook-form/react-hook-form",
        "d29f3ee09cc24aa29da6127e7657106fb06c76f5",
        12,
    ),
    Project(
        "tanstack-query",
        "js",
        "github:TanStack/query",
        "40321a0b1b3bdd0afa11f0e439642ab84cdf6afe",
        12,
    ),
)


HOLDOUT2_PROJECTS: tuple[Project, ...] = (
    # Python — in no other set and not the independent check.
    Project(
        "aiohttp",
        "python",
        "github:aio-libs/aiohttp",
        "495e778360d1924da63e16dba0f0d76baf56a56a",
        14,
    ),
    Project(
        "starlette",
        "python",
        "github:encode/starlette",
        "cb8f84f5284dc301ca7a31eb732b9e140769dd48",
        14,
    ),
    Project(
        "loguru", "python", "github:Delgan/loguru", "2a17be730e111cf874d0bf967c4c5da15b7e4670", 14
    ),
    Project(
        "jsonschema",
        "python",
        "github:python-jsonschema/jsonschema",
        "b37f7be6dc7966a1f1a67557976041ffe0826cb3",
        14,
    ),
    Project(
        "packaging",
        "python",
        "github:pypa/packaging",
        "053c884615f2e83d80705251b447769ec2599653",
        14,
    ),
    # JavaScript / TypeScript — likewise.
    Project(
        "execa", "js", "github:sindresorhus/execa", "8017b279e19347efaf2587711c2d57dbd4330740", 13
    ),
    Project("undici", "js", "github:nodejs/undici", "7eb7c8ec8f23acd9c3da93a286162f8c1dc68326", 13),
    Project("yargs", "js", "github:yargs/yargs", "2a4378bdc2eac9cf7d0cdfe0a52b1b25f779806a", 13),
    Project("msw", "js", "github:mswjs/msw", "8a19d5485adad2b8a816e04a937f4c76169cd5b9", 13),
)


HOLDOUT3_PROJECTS: tuple[Project, ...] = (
    # Python — in no other set and not the independent check.
    Project(
        "uvicorn", "python", "github:encode/uvicorn", "e6c7ce791fc634b6eedee40e0d0207faa8a9aefd", 14
    ),
    Project(
        "alembic",
        "python",
        "github:sqlalchemy/alembic",
        "20e58db01cad3432c24734e11b893303cdb687a4",
        14,
    ),
    Project(
        "pre-commit",
        "python",
        "github:pre-commit/pre-commit",
        "a9bba55a3f74068b53f4bd4d831d7e05e34eae6c",
        14,
    ),
    Project(
        "gunicorn",
        "python",
        "github:benoitc/gunicorn",
        "65ac1a3a4c0aa00960968c720d6e6bd2ac32f1b9",
        14,
    ),
    Project(
        "pip-tools",
        "python",
        "github:jazzband/pip-tools",
        "c58d5d945c0f20e9713e10f5fea2491a5c984f39",
        14,
    ),
    # JavaScript / TypeScript — likewise.
    Project("hono", "js", "github:honojs/hono", "28a9c128912de19f3fb28b00ae289c9b93f6f392", 13),
    Project(
        "redux-toolkit",
        "js",
        "github:reduxjs/redux-toolkit",
        "74200d87c27ca2b1c0915b2fbb4c44dd7494c2aa",
        13,
    ),
    Project("trpc", "js", "github:trpc/trpc", "340811ba5320637fbaf48fccf3dbfdd258bd34db", 13),
    Project(
        "drizzle-orm",
        "js",
        "github:drizzle-team/drizzle-orm",
        "b7862528fd8fc39bc2653a6c18dad7c1f4e68d10",
        13,
    ),
)


HOLDOUT4_PROJECTS: tuple[Project, ...] = (
    # Python — in no other set and not the independent check.
    Project(
        "flake8", "python", "github:PyCQA/flake8", "48f2ca8bf7c15a2b8ff8be9463182e1e7c5e0c48", 15
    ),
    Project(
        "typer", "python", "github:tiangolo/typer", "233009a37d35249c1e430ee1db11ed9c06a9dcc3", 15
    ),
    Project(
        "anyio", "python", "github:agronholm/anyio", "660a06d548ca72759e9d89ed722dd1ad5227afe4", 15
    ),
    Project(
        "pluggy",
        "python",
        "github:pytest-dev/pluggy",
        "e382e72789f8d791991c489d4322aa04e660b952",
        15,
    ),
    Project(
        "isort", "python", "github:PyCQA/isort", "0cba6f6111a07cc05b167008dda0727ecca907c5", 15
    ),
    # JavaScript / TypeScript — likewise.
    Project(
        "apollo-client",
        "js",
        "github:apollographql/apollo-client",
        "54084bc22e92651cf153d03d0370b8dff3d1163f",
        13,
    ),
    Project("vite", "js", "github:vitejs/vite", "a98c8d95d552c6fa98ab66fb810f5b39ad5abf49", 13),
    Project("vue-core", "js", "github:vuejs/core", "e2bede96134f757aad5c5b33ac9be055022dbfc8", 13),
    Project(
        "node-fetch",
        "js",
        "github:node-fetch/node-fetch",
        "8b3320d2a7c07bce4afc6b2bf6c3bbddda85b01f",
        13,
    ),
)


HOLDOUT5_PROJECTS: tuple[Project, ...] = (
    # Python — in no other set and not the independent check.
    Project(
        "webargs",
        "python",
        "github:marshmallow-code/webargs",
        "16a002d3f5cc8177660c5881defdf492e0ceee8d",
        13,
    ),
    Project(
        "falcon", "python", "github:falconry/falcon", "ce0a35b8fd02747cc72710202886874906b0d47a", 13
    ),
    Project(
        "tenacity", "python", "github:jd/tenacity", "c650fb45204635f07910948d5fc59a8c551ffdda", 13
    ),
    Project(
        "invoke", "python", "github:pyinvoke/invoke", "6a71e680c535ba6520e935c497099fbca011d03c", 13
    ),
    Project(
        "cattrs",
        "python",
        "github:python-attrs/cattrs",
        "82b02c07ca535a1ba656b935767d819eac9d383b",
        13,
    ),
    Project(
        "quart", "python", "github:pgjones/quart", "2e5684cfdf61f03d1b309537fa9e58117fb490d4", 13
    ),
    # JavaScript / TypeScript — likewise.
    Project("ws", "js", "github:websockets/ws", "a2f4e7c046c2112bbce6fef39a083dac77d6f0d2", 13),
    Project(
        "ioredis", "js", "github:redis/ioredis", "dfd542824dfb7168420f19fdfabe9fe1156efe10", 13
    ),
    Project("yup", "js", "github:jquense/yup", "ff31eee8a2b10c938bb3a22544d9e33957a8cf01", 13),
    Project("immer", "js", "github:immerjs/immer", "061c2425e1c9dff89e4e4189d42af1b7839dfe0a", 13),
)


HOLDOUT6_PROJECTS: tuple[Project, ...] = (
    # Python — in no other set and not the independent check.
    Project(
        "arrow", "python", "github:arrow-py/arrow", "b247ad073d4c350270528edb5afff8e7f4f7d9e4", 13
    ),
    Project(
        "dateutil",
        "python",
        "github:dateutil/dateutil",
        "c981f9c7aa91b83cc9bd33a09ecee9e751b06e8d",
        13,
    ),
    Project(
        "yarl", "python", "github:aio-libs/yarl", "7009e844cec7959e73741102ceadff49ed914291", 13
    ),
    Project(
        "responses",
        "python",
        "github:getsentry/responses",
        "a19add7777d7d0c64eeb364f6cc9de624c33f4f8",
        13,
    ),
    Project(
        "pytest-mock",
        "python",
        "github:pytest-dev/pytest-mock",
        "9b666cdeff8bd396510e8f52633915a6d57a5f3c",
        13,
    ),
    Project(
        "tornado",
        "python",
        "github:tornadoweb/tornado",
        "e530031405e2154654dedc4c84d5656b557ea310",
        13,
    ),
    # JavaScript / TypeScript — likewise.
    Project("joi", "js", "github:hapijs/joi", "c86ddc0b6143a0e8cec0f1c6047c4b62db8cb0c2", 13),
    Project(
        "ajv", "js", "github:ajv-validator/ajv", "82735a15826a30cc51e97a1bbfb59b3d388e4b98", 13
    ),
    Project(
        "zustand", "js", "github:pmndrs/zustand", "f094eebe9bd3b4b0d77b997f69ab1d273f69a877", 13
    ),
    Project("ofetch", "js", "github:unjs/ofetch", "dfbe3ca4ef8a22fc023fca5a5ef530e525f5e523", 13),
)


HOLDOUT7_PROJECTS: tuple[Project, ...] = (
    # Python — in no other set and not the independent check.
    Project(
        "kombu", "python", "github:celery/kombu", "9ee8595b835c77b4f04cfb54b40b5d446f985a35", 13
    ),
    Project(
        "mkdocs", "python", "github:mkdocs/mkdocs", "2862536793b3c67d9d83c33e0dd6d50a791928f8", 13
    ),
    Project(
        "waitress",
        "python",
        "github:Pylons/waitress",
        "4a378915f6fef264c6aaf03f059bd992287ba8ba",
        13,
    ),
    Project(
        "pytest-xdist",
        "python",
        "github:pytest-dev/pytest-xdist",
        "f63b6a25b4eb932385c6ee4651eac5c08fbd3a20",
        13,
    ),
    Project(
        "boltons",
        "python",
        "github:mahmoud/boltons",
        "967864f89791509f9eb36b22b4579d36b72a6df2",
        13,
    ),
    Project(
        "pyjwt", "python", "github:jpadilla/pyjwt", "dcc27a9d3182a2349c30b160758785c6ce7a6508", 13
    ),
    # JavaScript / TypeScript — likewise.
    Project("sinon", "js", "github:sinonjs/sinon", "cf5d9e8de1a5307ed7b329b6306ee86982453db7", 13),
    Project("knex", "js", "github:knex/knex", "e25d54bcb707714a17f5a5744eba5c4246bb4d1d", 13),
    Project(
        "superstruct",
        "js",
        "github:ianstormtaylor/superstruct",
        "e414c8afd3b69f6bc0173b8ee25f71d8e5694f01",
        13,
    ),
    Project(
        "winston", "js", "github:winstonjs/winston", "4b963a9f5b1ef24efb6250354a108b80c0c6e7d9", 13
    ),
)


@dataclass(frozen=True, slots=True)
class BenchSet:
    """One set of commits: its projects and where its manifest, labels and bundles live."""

    name: str
    projects: tuple[Project, ...]
    manifest: Path
    labels_dir: Path
    default_data_dir: Path


SETS: dict[str, BenchSet] = {
    "main": BenchSet("main", PROJECTS, MANIFEST, LABELS_DIR, DEFAULT_DATA_DIR),
    "holdout": BenchSet(
        "holdout",
        HOLDOUT_PROJECTS,
        HERE / "manifest-holdout.jsonl",
        HERE / "labels-holdout",
        HERE / "data-holdout",
    ),
    "holdout2": BenchSet(
        "holdout2",
        HOLDOUT2_PROJECTS,
        HERE / "manifest-holdout2.jsonl",
        HERE / "labels-holdout2",
        HERE / "data-holdout2",
    ),
    "holdout3": BenchSet(
        "holdout3",
        HOLDOUT3_PROJECTS,
        HERE / "manifest-holdout3.jsonl",
        HERE / "labels-holdout3",
        HERE / "data-holdout3",
    ),
    "holdout4": BenchSet(
        "holdout4",
        HOLDOUT4_PROJECTS,
        HERE / "manifest-holdout4.jsonl",
        HERE / "labels-holdout4",
        HERE / "data-holdout4",
    ),
    "holdout5": BenchSet(
        "holdout5",
        HOLDOUT5_PROJECTS,
        HERE / "manifest-holdout5.jsonl",
        HERE / "labels-holdout5",
        HERE / "data-holdout5",
    ),
    "holdout6": BenchSet(
        "holdout6",
        HOLDOUT6_PROJECTS,
        HERE / "manifest-holdout6.jsonl",
        HERE / "labels-holdout6",
        HERE / "data-holdout6",
    ),
    "holdout7": BenchSet(
        "holdout7",
        HOLDOUT7_PROJECTS,
        HERE / "manifest-holdout7.jsonl",
        HERE / "labels-holdout7",
        HERE / "data-holdout7",
    ),
}


def bench_set(name: str) -> BenchSet:
    try:
        return SETS[name]
    except KeyError:
        raise KeyError(f"unknown set {name!r} (known: {', '.join(SETS)})") from None


def project(name: str) -> Project:
    every = tuple(p for s in SETS.values() for p in s.projects)
    for p in every:
        if p.name == name:
            return p
    known = ", ".join(p.name for p in every)
    raise KeyError(f"unknown project {name!r} (known: {known})")


def data_dir(override: str | None = None, default: Path = DEFAULT_DATA_DIR) -> Path:
    """Where the bundles live: --data, else $REALCOMMITS_DATA, else the set's default
    (bench/realcommits/data, data-holdout, data-holdout2, data-holdout3, data-holdout4,
    data-holdout5, data-holdout6 or data-holdout7).
    Project names differ between the sets, so one directory given by --data or the variable
    can hold the bundles of all."""
    chosen = override or os.environ.get("REALCOMMITS_DATA")
    return Path(chosen) if chosen else default


def bundle_path(data: Path, lang: str, name: str) -> Path:
    return data / lang / f"{name}.bundle"


def labels_path(lang: str, name: str, root: Path = LABELS_DIR) -> Path:
    return root / lang / f"{name}.jsonl"
