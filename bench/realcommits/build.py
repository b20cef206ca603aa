"""Build the self-contained git bundles of the real-commit benchmark from fetched mirrors.

    .venv/bin/python bench/realcommits/build.py [--set main|holdout] [--project P]... [--data DIR]
        [--check]

Needs each project's mirror on this machine: bring it with the `fetch` tool (source in
rc_projects.PROJECTS, e.g. `github:python-attrs/attrs`; it lands in
/work/.mirror/<owner>+<name>/repo, or under $REALCOMMITS_MIRRORS). Writes
`<data>/<lang>/<project>.bundle` (data: --data, $REALCOMMITS_DATA, else
bench/realcommits/data — set `holdout`: data-holdout —, git-ignored).

Per chosen commit C with first parent P (manifest.jsonl, or manifest-holdout.jsonl), the
bundle holds two commits:

- the parent state: a root commit whose tree is the files C touched, as they were at P;
- the commit state: a child of it, whose tree is the same files as they are at C, with C's
  original message, author and author date, and the trailers `Bench-Original-Commit`,
  `Bench-Original-Parent` and `Bench-Project`; ref `refs/bench/<C>` points at it.

Both trees also carry a few root-level project configuration files as they were at P
(pyproject.toml, setup.cfg, tox.ini, package.json, tsconfig.json, test-runner configs),
unchanged between the two states — so a critic that reads the project's config sees it,
while the diff is exactly the commit's. Lockfiles and submodule links are left out (no
critic reads them). Committer name and dates are fixed from the original, so a rebuild
gives the same commit ids; `--check` compares a fresh build's refs and trees with the
bundles on disk.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from rc_git import GitFailed, git, git_text
from rc_projects import MANIFEST, SETS, Project, bundle_path, data_dir
from selection import is_lockfile

CONTEXT_FILES = (
    "pyproject.toml",
    "setup.cfg",
    "tox.ini",
    "pytest.ini",
    "package.json",
    "tsconfig.json",
    ".mocharc.js",
    ".mocharc.cjs",
    ".mocharc.json",
    ".mocharc.yml",
    ".mocharc.yaml",
    "vitest.config.ts",
    "vitest.config.mts",
    "vitest.config.js",
    "jest.config.js",
    "jest.config.ts",
    "jest.config.cjs",
    "jest.config.mjs",
    "ava.config.js",
    ".taprc",
)
COMMITTER = {"GIT_COMMITTER_NAME": "contend realcommits", "GIT_COMMITTER_EMAIL": "bench@invalid"}


def read_manifest(manifest: Path = MANIFEST) -> list[dict[str, object]]:
    if not manifest.exists():
        raise FileNotFoundError(f"{manifest} is missing: run selection.py first")
    return [json.loads(line) for line in manifest.read_text().splitlines() if line.strip()]


def touched(mirror: Path, parent: str, sha: str) -> list[str]:
    out = git(mirror, "diff-tree", "-r", "-z", "--no-renames", "--name-only", parent, sha)
    return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]


def entries(mirror: Path, rev: str, paths: list[str]) -> list[tuple[str, str, str]]:
    """(mode, blob id, path) of `paths` at `rev`; absent paths are simply not listed."""
    if not paths:
        return []
    out = git(mirror, "--literal-pathspecs", "ls-tree", "-r", "-z", rev, "--", *paths)
    found = []
    for rec in out.decode("utf-8", "surrogateescape").split("\0"):
        if not rec:
            continue
        meta, path = rec.split("\t", 1)
        mode, kind, oid = meta.split(" ")
        if kind == "blob":  # submodule links (kind "commit") are left out
            found.append((mode, oid, path))
    return found


def write_tree(scratch: Path, items: list[tuple[str, str, str]]) -> str:
    index = scratch / "bench.index"
    index.unlink(missing_ok=True)
    env = {**os.environ, "GIT_INDEX_FILE": str(index)}
    info = "".join(f"{mode} {oid}\t{path}\0" for mode, oid, path in items)
    git(
        scratch,
        "update-index",
        "-z",
        "--add",
        "--index-info",
        input_bytes=info.encode("utf-8", "surrogateescape"),
        env=env,
    )
    tree = git(scratch, "write-tree", env=env).decode().strip()
    index.unlink(missing_ok=True)
    return tree


def commit(
    scratch: Path, tree: str, parent: str | None, message: str, author: tuple[str, str, str]
) -> str:
    name, email, date = author
    env = {
        **os.environ,
        **COMMITTER,
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_DATE": date,
    }
    args = ["commit-tree", tree, *(["-p", parent] if parent else [])]
    return git(scratch, *args, input_bytes=message.encode(), env=env).decode().strip()


def author_of(mirror: Path, sha: str) -> tuple[str, str, str]:
    out = git_text(mirror, "log", "-1", "--date=raw", "--format=%an%x00%ae%x00%ad", sha)
    name, email, date = out.strip("\n").split("\0")
    return name, email, date


def build_project(
    p: Project, rows: list[dict[str, object]], out: Path, mirror: Path | None = None
) -> dict[str, str]:
    """Write the project's bundle; return {original sha: commit-state id}. `mirror`
    replaces the project's fetched mirror (tests build from a repository of their own)."""
    mirror = mirror or p.mirror
    if not mirror.is_dir():
        raise FileNotFoundError(f"no mirror at {mirror}; fetch {p.source} first")
    refs: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix=f"rc-build-{p.name}-") as tmp:
        scratch = Path(tmp) / "scratch.git"
        git(Path(tmp), "init", "-q", "--bare", str(scratch))
        objects = git_text(mirror, "rev-parse", "--git-path", "objects").strip()
        (scratch / "objects" / "info" / "alternates").write_text(
            str((mirror / objects).resolve() if not Path(objects).is_absolute() else objects) + "\n"
        )
        for row in rows:
            sha, parent = str(row["sha"]), str(row["parent"])
            files = [f for f in touched(mirror, parent, sha) if not is_lockfile(f)]
            context = [f for f in CONTEXT_FILES if f not in files]
            base = entries(mirror, parent, context)
            old = entries(mirror, parent, files)
            new = entries(mirror, sha, files)
            message = git_text(mirror, "log", "-1", "--format=%B", sha).rstrip("\n")
            p_commit = commit(
                scratch,
                write_tree(scratch, base + old),
                None,
                f"Parent state of {sha} ({p.name})\n\n"
                f"Bench-Original-Commit: {parent}\nBench-Role: parent\n",
                author_of(mirror, parent),
            )
            c_commit = commit(
                scratch,
                write_tree(scratch, base + new),
                p_commit,
                f"{message}\n\nBench-Original-Commit: {sha}\n"
                f"Bench-Original-Parent: {parent}\nBench-Project: {p.name}\n",
                author_of(mirror, sha),
            )
            _same_diff(mirror, parent, sha, scratch, p_commit, c_commit)
            git(scratch, "update-ref", f"refs/bench/{sha}", c_commit)
            refs[sha] = c_commit
        target = bundle_path(out, p.lang, p.name)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp_bundle = Path(tmp) / "out.bundle"
        git(scratch, "bundle", "create", "-q", str(tmp_bundle), "--all")
        shutil.move(str(tmp_bundle), target)
    return refs


def _same_diff(
    mirror: Path, parent: str, sha: str, scratch: Path, p_commit: str, c_commit: str
) -> None:
    """The rebuilt pair must change exactly what the original commit changed (same paths,
    modes and blob ids), lockfiles and submodule links aside."""

    def raw(repo: Path, a: str, b: str) -> list[str]:
        out = git(repo, "diff-tree", "-r", "-z", "--no-renames", a, b).decode(
            "utf-8", "surrogateescape"
        )
        recs = out.split("\0")
        pairs = zip(recs[0::2], recs[1::2], strict=False)
        return sorted(
            f"{meta}\t{path}"
            for meta, path in pairs
            if meta and not is_lockfile(path) and "160000" not in meta[1:].split()[:2]
        )

    want, got = raw(mirror, parent, sha), raw(scratch, p_commit, c_commit)
    if want != got:
        raise GitFailed(f"rebuilt {sha} differs from the original diff: {set(want) ^ set(got)}")


def bundle_refs(path: Path) -> dict[str, str]:
    out = git_text(path.parent, "bundle", "list-heads", str(path))
    refs = {}
    for line in out.splitlines():
        oid, ref = line.split(" ", 1)
        if ref.startswith("refs/bench/"):
            refs[ref.removeprefix("refs/bench/")] = oid
    return refs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", choices=list(SETS), default="main", help="which set (default main)")
    ap.add_argument("--project", action="append", help="only these projects (repeatable)")
    ap.add_argument("--data", help="output directory (default: bench/realcommits/data)")
    ap.add_argument(
        "--check",
        action="store_true",
        help="rebuild into a temporary directory and compare with the bundles",
    )
    args = ap.parse_args(argv)
    bench = SETS[args.set]
    try:
        rows = read_manifest(bench.manifest)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    by_project: dict[str, list[dict[str, object]]] = defaultdict(list)
    for row in rows:
        by_project[str(row["project"])].append(row)
    known = {p.name for p in bench.projects}
    for name in args.project or []:
        if name not in known:
            print(
                f"error: unknown project {name!r} (known: {', '.join(sorted(known))})",
                file=sys.stderr,
            )
            return 2
    chosen = [
        p
        for p in bench.projects
        if (not args.project or p.name in args.project) and by_project.get(p.name)
    ]
    out = data_dir(args.data, bench.default_data_dir)
    failures = 0
    with tempfile.TemporaryDirectory(prefix="rc-check-") as check_dir:
        dest = Path(check_dir) if args.check else out
        for p in chosen:
            try:
                refs = build_project(p, by_project[p.name], dest)
            except (GitFailed, FileNotFoundError) as exc:
                print(f"error: {p.name}: {exc}", file=sys.stderr)
                return 2
            size = bundle_path(dest, p.lang, p.name).stat().st_size
            if args.check:
                existing = bundle_path(out, p.lang, p.name)
                same = existing.exists() and bundle_refs(existing) == refs
                failures += not same
                print(f"{p.name:15} {'same' if same else 'DIFFERS'}", file=sys.stderr)
            else:
                print(f"{p.name:15} {len(refs):3} commits  {size / 1024:8.1f} KiB", file=sys.stderr)
    if not args.check:
        total = sum(f.stat().st_size for f in out.rglob("*.bundle"))
        print(f"data: {out} ({total / 1024 / 1024:.2f} MiB)", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
