"""Choose the benchmark's commits from each project's history, reproducibly; write the manifest.

    .venv/bin/python bench/realcommits/selection.py [--set main|holdout] [--project P]... [--check]

(Named `selection.py`, not `select.py`: a `select.py` beside the runner would shadow the
standard library's `select` module, which `subprocess` imports, in every script of this
directory.)

Procedure, per project of the set (tables in rc_projects.py; history walked from the
pinned `head`); the holdout set is chosen by the very same procedure and seed:

1. Candidates: non-merge commits authored on or after 2018-01-01 that touch at least one
   code file of the project's language (Python: `.py`/`.pyi`; JS/TS: `.js .mjs .cjs .jsx
   .ts .tsx .mts .cts`) outside vendored or generated paths (a `vendor`, `_vendor`,
   `node_modules`, `dist` or `build` directory; `*.min.js`). Excluded: bot authors
   (`[bot]`, dependabot, renovate, pre-commit-ci), commits touching more than 60 files,
   commits changing more than 1,500 code lines (added + deleted) — absurdly large sweeps —,
   and commits with a touched file over 256 KB at the parent or the commit, or one the
   snapshot lacks (the `fetch` snapshots omit blobs of 4 MiB and more); lockfiles, which no
   critic reads and which the bundles leave out, do not count.
2. Size of a commit = code lines added + deleted; buckets XS 1–5, S 6–30, M 31–150,
   L 151–600, XL 601–1500.
3. Category, from the subject line and the shape of the `-U0` diff of code files (first
   matching rule is the primary category; every matching rule is kept as a tag):
   - `test-refactor`: touches tests, and renames a test file, or removes test functions
     while adding others or adding `parametrize`, or replaces `try/except` in tests by
     `pytest.raises`/`warns`, or removes asserts while adding `parametrize`, or the subject
     says refactor/parametrize/rename/move/merge/split/clean up with test functions or
     asserts removed. JS: touches tests and removes `it/test/describe(` calls or
     assertions (`expect(`, `assert`, `t.is` …) or adds `.skip`/`.only`/`this.skip()`.
   - `typing`: ≥ 4 changed code lines with typing constructs (Python: `# type:`, `Any`,
     `cast(`, `->`, `TYPE_CHECKING`, `typing` imports, builtin/`typing` annotations;
     TS: `any`, `@ts-ignore`/`@ts-expect-error`/`@ts-nocheck`, `as T`, non-null `!`,
     `unknown`), or ≥ 1 such line and a subject naming typing/mypy/annotations/types.
   - `exception-handling` (Python): ≥ 2 changed non-test lines with `try:`/`except`/
     `raise`/`suppress(`, or 1 and a subject naming errors/exceptions/warnings.
     `promise` (JS): ≥ 3 changed non-test lines with `.catch(`/`.then(`/`await`/`async`/
     `Promise`/`try {`/`catch`, or 1 and a subject naming promises/errors/async.
   - `bugfix`: subject says fix/bug/regression/crash/broken/wrong/incorrect.
   - `feature`: subject says add/support/implement/new/allow/introduce/enable.
   - `other`: everything else.
4. Sampling with a fixed seed (SEED): the project's quota is split over categories
   (test-refactor 25%, typing 20%, exception-handling/promise 20%, bugfix 20%,
   feature+other 15%; largest remainder); inside a category the candidates are shuffled
   with `Random(f"{SEED}:{project}:{category}")` and taken round-robin over the size
   buckets in the cycle S, M, XS, L, M, S, XL from a start drawn from the same generator,
   so every size appears across categories; a category short of
   candidates hands its remainder to the next.

Output: `manifest.jsonl` (set `holdout`: `manifest-holdout.jsonl`), one chosen commit per
line (project, lang, sha, parent, author date, files touched, code files, code lines
added/deleted, size bucket, category, tags), sorted by project then date. `--check`
recomputes and fails when it differs from the file.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from rc_git import GitFailed, blob_sizes, git_lines
from rc_projects import SETS, BenchSet, Project

SEED = 20260820
SINCE = "2018-01-01"
MAX_FILES = 60
MAX_CODE_LINES = 1500
MAX_BLOB_BYTES = 256 * 1024

PY_EXT = (".py", ".pyi")
JS_EXT = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts")
TS_EXT = (".ts", ".tsx", ".mts", ".cts")
VENDORED_DIRS = frozenset({"vendor", "_vendor", "vendored", "node_modules", "dist", "build"})
LOCKFILES = frozenset(
    {
        "package-lock.json",
        "npm-shrinkwrap.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "poetry.lock",
        "uv.lock",
        "Pipfile.lock",
    }
)
BOT_AUTHOR = re.compile(r"\[bot\]|dependabot|renovate|pre-commit-ci|greenkeeper", re.I)

BUCKETS = (("XS", 5), ("S", 30), ("M", 150), ("L", 600), ("XL", MAX_CODE_LINES))
BUCKET_CYCLE = ("S", "M", "XS", "L", "M", "S", "XL")
SHARES = {
    "python": (
        ("test-refactor", 0.25),
        ("typing", 0.20),
        ("exception-handling", 0.20),
        ("bugfix", 0.20),
        ("feature", 0.15),
    ),
    "js": (
        ("test-refactor", 0.25),
        ("typing", 0.20),
        ("promise", 0.20),
        ("bugfix", 0.20),
        ("feature", 0.15),
    ),
}
# Where a category runs out, its remainder goes on down this order (then wraps).
FILL_ORDER = (
    "feature",
    "other",
    "bugfix",
    "test-refactor",
    "exception-handling",
    "promise",
    "typing",
)

MSG_REFACTOR = re.compile(
    r"\b(refactor\w*|parametri[sz]\w*|renam\w*|mov(e|es|ed|ing)|merg\w*|split\w*|"
    r"consolidat\w*|reorgani[sz]\w*|clean\s?up|cleanup|simplif\w*)\b",
    re.I,
)
MSG_TYPING = re.compile(
    r"(typing|mypy|pyright|annotat|type hint|type check|typescript|\btypes?\b|\bts\b)", re.I
)
MSG_EXC = re.compile(r"(except|error|raise|warn)", re.I)
MSG_PROMISE = re.compile(r"(promise|async|await|reject|error|catch)", re.I)
MSG_BUG = re.compile(r"\b(fix\w*|bug\w*|regression|crash\w*|broken|wrong|incorrect)\b", re.I)
MSG_FEATURE = re.compile(
    r"\b(add\w*|support\w*|implement\w*|new|allow\w*|introduc\w*|enabl\w*)\b", re.I
)

PY_TYPING = re.compile(
    r"#\s*type:|\bAny\b|\bcast\(|->|TYPE_CHECKING|from typing|import typing|"
    r":\s*(int|str|bool|float|bytes|list|dict|tuple|set|Optional|Union|Callable|Iterable|"
    r"Iterator|Sequence|Mapping|None)\b"
)
PY_EXC = re.compile(r"^\s*(try:|except\b|raise\b)|suppress\(")
PY_TEST_DEF = re.compile(r"^\s*(async\s+)?def\s+test\w*\(")
PY_ASSERT = re.compile(r"^\s*assert\b|self\.assert\w+\(")
PY_RAISES = re.compile(r"pytest\.(raises|warns)|assertRaises|assertWarns")
PY_TRY = re.compile(r"^\s*(try:|except\b)")
JS_TYPING = re.compile(
    r"\bany\b|@ts-(ignore|expect-error|nocheck)|\bas\s+[A-Za-z_{(\[]|[\w)\]]!(\.|\)|;|,|\[)|"
    r"\bunknown\b"
)
JS_PROMISE = re.compile(r"\.catch\(|\.then\(|\bawait\b|\basync\b|\bPromise\b|\btry\s*\{|\bcatch\b")
JS_TEST_CALL = re.compile(r"\b(it|test|describe|suite|specify)(\.\w+)?\s*\(")
JS_ASSERT = re.compile(
    r"\bexpect\(|\bassert\b|\bt\.(is|deepEqual|true|false|throws\w*)\(|"
    r"\.should\b|\bt\.(like|regex|snapshot)\("
)
JS_SKIP = re.compile(r"\.(skip|only|todo)\s*\(|this\.skip\(\)|\.skipIf\(|\.runIf\(")


@dataclass(slots=True)
class Candidate:
    sha: str
    parent: str
    author: str
    date: str
    subject: str
    files: list[str] = field(default_factory=list)
    big_numstat: bool = False
    oversized: bool = False
    added: int = 0
    deleted: int = 0
    code_files: int = 0
    tests_touched: bool = False
    renamed_test: bool = False
    counts: Counter[str] = field(default_factory=Counter)


def code_ext(lang: str) -> tuple[str, ...]:
    return PY_EXT if lang == "python" else JS_EXT


def is_vendored(path: str) -> bool:
    parts = PurePosixPath(path).parts
    return any(p in VENDORED_DIRS for p in parts[:-1]) or path.endswith(".min.js")


def is_lockfile(path: str) -> bool:
    return PurePosixPath(path).name in LOCKFILES


def is_test_path(path: str, lang: str) -> bool:
    pp = PurePosixPath(path)
    dirs = set(pp.parts[:-1])
    name = pp.name
    if lang == "python":
        return (
            bool(dirs & {"test", "tests", "testing"})
            or name.startswith("test_")
            or name.endswith("_test.py")
            or name == "conftest.py"
        )
    return bool(dirs & {"test", "tests", "__tests__", "spec"}) or bool(
        re.search(r"\.(test|spec)\.[cm]?[jt]sx?$", name)
    )


def is_code(path: str, lang: str) -> bool:
    return path.endswith(code_ext(lang)) and not is_vendored(path)


def read_history(p: Project) -> dict[str, Candidate]:
    """Pass 1: every non-merge commit since SINCE with its files, blob sizes and code lines.

    Files come from `--raw` (no blob content needed: snapshots lack blobs of 4 MiB and
    more), code-line counts from `--numstat` restricted to code files."""
    args = [
        "log",
        "--no-merges",
        "--no-renames",
        f"--since={SINCE}",
        "--raw",
        "--no-abbrev",
        "--format=%x00%H%x01%P%x01%an%x01%aI%x01%s",
        p.head,
    ]
    found: dict[str, Candidate] = {}
    blobs: dict[str, set[str]] = defaultdict(set)
    cur: Candidate | None = None
    for line in git_lines(p.mirror, args):
        if line.startswith("\x00"):
            sha, parents, author, date, subject = line[1:].split("\x01", 4)
            parent = parents.split()[0] if parents else ""
            cur = Candidate(sha, parent, author, date, subject)
            if parent and date[:10] >= SINCE:
                found[sha] = cur
            continue
        if not line.startswith(":") or cur is None:
            continue
        meta, path = line.split("\t", 1)
        _old_mode, _new_mode, old_blob, new_blob, _status = meta[1:].split(" ")
        cur.files.append(path)
        if not is_lockfile(path):
            blobs[cur.sha].update(b for b in (old_blob, new_blob) if b.strip("0"))
    sizes = blob_sizes(p.mirror, sorted({b for bs in blobs.values() for b in bs}))
    for sha, bs in blobs.items():
        if sha in found:
            # A blob the snapshot lacks (None) is a file of 4 MiB or more: too large too.
            found[sha].oversized = any(
                (sizes[b] or MAX_BLOB_BYTES + 1) > MAX_BLOB_BYTES for b in bs
            )
    numstat = [
        "log",
        "--no-merges",
        "--no-renames",
        f"--since={SINCE}",
        "--numstat",
        "--format=%x00%H",
        p.head,
        "--",
        *[f"*{e}" for e in code_ext(p.lang)],
    ]
    cur = None
    for line in git_lines(p.mirror, numstat):
        if line.startswith("\x00"):
            cur = found.get(line[1:].strip())
            continue
        if not line.strip() or cur is None:
            continue
        added, deleted, path = line.split("\t", 2)
        if not is_code(path, p.lang):
            continue
        cur.code_files += 1
        if added == "-":
            cur.big_numstat = True  # a binary "code" file: not a commit to review
        else:
            cur.added += int(added)
            cur.deleted += int(deleted)
        if is_test_path(path, p.lang):
            cur.tests_touched = True
    return found


def read_shapes(p: Project, found: dict[str, Candidate]) -> None:
    """Pass 2: diff-shape counts from the -U0 patch of code files (what `category` reads)."""
    exts = code_ext(p.lang)
    args = [
        "log",
        "--no-merges",
        "--no-renames",
        f"--since={SINCE}",
        "-p",
        "-U0",
        "--format=%x00%H",
        p.head,
        "--",
        *[f"*{e}" for e in exts],
    ]
    cur: Candidate | None = None
    path = ""
    for line in git_lines(p.mirror, args):
        if line.startswith("\x00"):
            cur = found.get(line[1:].strip())
            continue
        if cur is None:
            continue
        if line.startswith("diff --git "):
            path = line.rsplit(" b/", 1)[-1]
            continue
        if line.startswith(("+++", "---")) or line[:1] not in ("+", "-"):
            continue
        if is_vendored(path):
            continue
        _count_line(cur, p.lang, path, line[0], line[1:])
    renames = [
        "log",
        "--no-merges",
        "-M",
        "--diff-filter=R",
        "--name-status",
        f"--since={SINCE}",
        "--format=%x00%H",
        p.head,
        # Only code files can make a renamed test (below), and rename detection reads the
        # blobs it compares: limited to code files, it never needs an image or archive the
        # snapshot lacks (files of 4 MiB and more).
        "--",
        *[f"*{e}" for e in exts],
    ]
    cur = None
    for line in git_lines(p.mirror, renames):
        if line.startswith("\x00"):
            cur = found.get(line[1:].strip())
        elif cur is not None and line.startswith("R"):
            paths = line.split("\t")[1:]
            if any(is_test_path(x, p.lang) and is_code(x, p.lang) for x in paths):
                cur.renamed_test = True


def _count_line(c: Candidate, lang: str, path: str, sign: str, text: str) -> None:
    test = is_test_path(path, lang)
    k = c.counts
    if lang == "python":
        if PY_TYPING.search(text):
            k["typing"] += 1
        if not test and PY_EXC.search(text):
            k["exc"] += 1
        if test:
            if PY_TEST_DEF.search(text):
                k[f"testdef{sign}"] += 1
            if PY_ASSERT.search(text):
                k[f"assert{sign}"] += 1
            if sign == "+" and "parametrize" in text:
                k["param+"] += 1
            if sign == "+" and PY_RAISES.search(text):
                k["raises+"] += 1
            if sign == "-" and PY_TRY.search(text):
                k["try-"] += 1
        return
    if path.endswith(TS_EXT) and JS_TYPING.search(text):
        k["typing"] += 1
    if not test and JS_PROMISE.search(text):
        k["exc"] += 1
    if test:
        if JS_TEST_CALL.search(text):
            k[f"testdef{sign}"] += 1
        if JS_ASSERT.search(text):
            k[f"assert{sign}"] += 1
        if sign == "+" and JS_SKIP.search(text):
            k["skip+"] += 1


def categories(c: Candidate, lang: str) -> list[str]:
    """Every category rule the commit matches, the primary one first ('other' if none)."""
    k = c.counts
    tags: list[str] = []
    removed_tests = k["testdef-"] + k["assert-"]
    if lang == "python":
        refactor = c.tests_touched and (
            c.renamed_test
            or (k["testdef-"] > 0 and (k["testdef+"] > 0 or k["param+"] > 0))
            or (k["raises+"] > 0 and k["try-"] > 0)
            or (k["assert-"] >= 2 and k["param+"] > 0)
            or (bool(MSG_REFACTOR.search(c.subject)) and removed_tests > 0)
        )
    else:
        refactor = c.tests_touched and (
            c.renamed_test or k["testdef-"] > 0 or k["assert-"] > 0 or k["skip+"] > 0
        )
    if refactor:
        tags.append("test-refactor")
    if k["typing"] >= 4 or (k["typing"] >= 1 and MSG_TYPING.search(c.subject)):
        tags.append("typing")
    if lang == "python":
        if k["exc"] >= 2 or (k["exc"] >= 1 and MSG_EXC.search(c.subject)):
            tags.append("exception-handling")
    elif k["exc"] >= 3 or (k["exc"] >= 1 and MSG_PROMISE.search(c.subject)):
        tags.append("promise")
    if MSG_BUG.search(c.subject):
        tags.append("bugfix")
    if MSG_FEATURE.search(c.subject):
        tags.append("feature")
    return tags or ["other"]


def bucket(lines: int) -> str:
    for name, top in BUCKETS:
        if lines <= top:
            return name
    raise ValueError(f"{lines} code lines is over the cap {MAX_CODE_LINES}")


def eligible(c: Candidate) -> bool:
    size = c.added + c.deleted
    return (
        c.code_files > 0
        and not c.big_numstat
        and not c.oversized
        and 0 < size <= MAX_CODE_LINES
        and len(c.files) <= MAX_FILES
        and not BOT_AUTHOR.search(c.author)
    )


def quotas(p: Project) -> list[tuple[str, int]]:
    shares = SHARES[p.lang]
    raw = [(cat, p.quota * share) for cat, share in shares]
    counts = {cat: int(x) for cat, x in raw}
    rest = p.quota - sum(counts.values())
    for cat, _x in sorted(raw, key=lambda cx: (-(cx[1] - int(cx[1])), cx[0]))[:rest]:
        counts[cat] += 1
    return [(cat, counts[cat]) for cat, _ in shares]


def choose(p: Project) -> list[dict[str, object]]:
    found = read_history(p)
    read_shapes(p, found)
    pools: dict[str, list[Candidate]] = defaultdict(list)
    tags_of: dict[str, list[str]] = {}
    for c in sorted(found.values(), key=lambda c: c.sha):
        if not eligible(c):
            continue
        tags = categories(c, p.lang)
        tags_of[c.sha] = tags
        primary = "feature" if tags[0] == "other" else tags[0]
        pools[primary].append(c)
    chosen: list[tuple[Candidate, str]] = []
    taken: set[str] = set()
    carry = 0
    plan = quotas(p)
    order = [cat for cat, _ in plan] + [c for c in FILL_ORDER if c not in dict(plan)]
    want = dict(plan)
    for cat in order:
        n = want.get(cat, 0) + carry
        got = _draw(p, cat, pools.get(cat, []), n, taken)
        chosen.extend((c, cat) for c in got)
        carry = n - len(got)
    if carry:
        # Categories exhausted in order: take the rest from any pool, same procedure.
        rest = [c for pool in pools.values() for c in pool]
        chosen.extend((c, tags_of[c.sha][0]) for c in _draw(p, "any", rest, carry, taken))
    rows = []
    for c, cat in chosen:
        size = c.added + c.deleted
        rows.append(
            {
                "project": p.name,
                "lang": p.lang,
                "sha": c.sha,
                "parent": c.parent,
                "date": c.date,
                "files": len(c.files),
                "code_files": c.code_files,
                "added": c.added,
                "deleted": c.deleted,
                "size": bucket(size),
                "category": cat if cat != "feature" else tags_of[c.sha][0],
                "tags": tags_of[c.sha],
            }
        )
    rows.sort(key=lambda r: (str(r["date"]), str(r["sha"])))
    return rows


def _draw(p: Project, cat: str, pool: list[Candidate], n: int, taken: set[str]) -> list[Candidate]:
    rng = random.Random(f"{SEED}:{p.name}:{cat}")
    by_bucket: dict[str, list[Candidate]] = defaultdict(list)
    shuffled = [c for c in pool if c.sha not in taken]
    rng.shuffle(shuffled)
    for c in shuffled:
        by_bucket[bucket(c.added + c.deleted)].append(c)
    got: list[Candidate] = []
    step = rng.randrange(len(BUCKET_CYCLE))  # a random start, so short quotas differ in size
    while len(got) < n and any(by_bucket.values()):
        b = BUCKET_CYCLE[step % len(BUCKET_CYCLE)]
        step += 1
        if by_bucket[b]:
            c = by_bucket[b].pop(0)
            got.append(c)
            taken.add(c.sha)
    return got


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", choices=list(SETS), default="main", help="which set (default main)")
    ap.add_argument("--project", action="append", help="only these projects (repeatable)")
    ap.add_argument("--check", action="store_true", help="fail if the manifest differs")
    args = ap.parse_args(argv)
    bench = SETS[args.set]
    manifest = bench.manifest
    known = {p.name for p in bench.projects}
    for name in args.project or []:
        if name not in known:
            print(
                f"error: unknown project {name!r} of set {bench.name} "
                f"(known: {', '.join(sorted(known))})",
                file=sys.stderr,
            )
            return 2
    chosen = [p for p in bench.projects if not args.project or p.name in args.project]
    existing = _read_manifest(bench)
    rows: list[dict[str, object]] = []
    for p in bench.projects:
        if p in chosen:
            if not p.mirror.is_dir():
                print(f"error: no mirror at {p.mirror}; fetch {p.source} first", file=sys.stderr)
                return 2
            try:
                mine = choose(p)
            except GitFailed as exc:
                print(f"error: {exc}", file=sys.stderr)
                return 2
            summary = Counter(str(r["category"]) for r in mine)
            sizes = Counter(str(r["size"]) for r in mine)
            print(
                f"{p.name:15} {len(mine):3} commits  {dict(summary)}  {dict(sizes)}",
                file=sys.stderr,
            )
            rows.extend(mine)
        else:
            rows.extend(r for r in existing if r["project"] == p.name)
    text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows)
    if args.check:
        old = manifest.read_text() if manifest.exists() else ""
        if old != text:
            print(f"{manifest.name} differs from a fresh selection:", file=sys.stderr)
            for line in differences(existing, rows):
                print(f"  {line}", file=sys.stderr)
            return 1
        print(f"{manifest.name} matches a fresh selection", file=sys.stderr)
        return 0
    manifest.write_text(text)
    print(f"wrote {len(rows)} commits to {manifest}", file=sys.stderr)
    return 0


def differences(manifest: list[dict[str, object]], fresh: list[dict[str, object]]) -> list[str]:
    """Per project, how a fresh selection differs from the manifest: the commits only one
    of them holds, and the commits both hold with other fields (which, and how many)."""
    lines: list[str] = []
    projects = list(dict.fromkeys(str(r["project"]) for r in [*manifest, *fresh]))
    for name in projects:
        old = {str(r["sha"]): r for r in manifest if r["project"] == name}
        new = {str(r["sha"]): r for r in fresh if r["project"] == name}
        only_new, only_old = sorted(set(new) - set(old)), sorted(set(old) - set(new))
        changed = Counter(
            key
            for sha in set(old) & set(new)
            for key in set(old[sha]) | set(new[sha])
            if old[sha].get(key) != new[sha].get(key)
        )
        if not (only_new or only_old or changed):
            continue
        parts = []
        if only_new or only_old:
            parts.append(
                f"{len(only_new)} commit(s) only in a fresh selection ({_first(only_new)}), "
                f"{len(only_old)} only in the manifest ({_first(only_old)})"
            )
        if changed:
            fields = ", ".join(f"{key} ({n})" for key, n in sorted(changed.items()))
            parts.append(f"commits in both with other {fields}")
        lines.append(f"{name}: " + "; ".join(parts))
    return lines or ["the same commits and fields, in another order or layout"]


def _first(shas: list[str]) -> str:
    """The first three commits, abbreviated, and an ellipsis for any more."""
    return ", ".join(s[:10] for s in shas[:3]) + (", …" if len(shas) > 3 else "")


def _read_manifest(bench: BenchSet) -> list[dict[str, object]]:
    if not bench.manifest.exists():
        return []
    return [json.loads(line) for line in bench.manifest.read_text().splitlines() if line.strip()]


if __name__ == "__main__":
    sys.exit(main())
