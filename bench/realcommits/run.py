"""Run contend's static critics on the real-commit benchmark and print its figures.

    .venv/bin/python bench/realcommits/run.py [--set main|holdout] [--lang python|js|all]
        [--project P]... [--commit SHA]... [--jobs N] [--json FILE|-] [--show-unlabelled]
        [--dump DIR] [--data DIR] [--labels DIR] [--keep DIR] [--blocking earned|rule]

Unpacks the project bundles (built by build.py; see docs/real-commit-benchmark.md) into a
temporary directory and reviews every chosen commit exactly as a user would, with the real
CLI in a subprocess:

    contend review --critic static --range <parent>..<commit> --new --format json --out DIR

then reads DIR/report.json. Each worker (--jobs) has its own unpacked copy of a project,
its own state directory, and an empty user configuration (holding only `static.blocking`
when --blocking is given); CONTEND_* variables of the calling shell are not passed on.
Time per commit is the subprocess's wall time — what a user waits — so take timing figures
from --jobs 1 (2 cores are shared).

`--set holdout` runs the holdout set instead (manifest-holdout.jsonl, bundles in
data-holdout/, labels in labels-holdout/; see rc_projects.py), printing the same figures.

Findings are matched against labels/<lang>/<project>.jsonl (rules in rc_labels.py,
figures defined in rc_metrics.py). Exit 0 when every commit was measured, 1 when some
review errored (listed), 2 on bad usage or missing data.
"""

from __future__ import annotations

import argparse
import compileall
import datetime as dt
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from rc_git import GitFailed, git, git_text
from rc_labels import (
    UNLABELLED,
    LabelError,
    LabelIndex,
    evidence_key,
    finding_key,
    load_labels,
)
from rc_metrics import CommitResult, apply_labels, render, summarize
from rc_projects import LANGS, MANIFEST, SETS, bundle_path, data_dir
from rc_report import ReportShapeError, findings_of

REPO_ROOT = Path(__file__).resolve().parents[2]


class UsageError(Exception):
    """Bad arguments or missing data: one line, exit 2."""


def read_manifest(path: Path = MANIFEST) -> list[dict[str, Any]]:
    if not path.exists():
        raise UsageError(f"{path} is missing")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def choose_rows(
    rows: Sequence[dict[str, Any]],
    lang: str,
    projects: Sequence[str] | None,
    commits: Sequence[str] | None,
) -> list[dict[str, Any]]:
    known = {str(r["project"]) for r in rows}
    for name in projects or []:
        if name not in known:
            raise UsageError(f"unknown project {name!r} (known: {', '.join(sorted(known))})")
    chosen = [
        r
        for r in rows
        if (lang == "all" or r["lang"] == lang)
        and (not projects or r["project"] in projects)
        and (not commits or any(str(r["sha"]).startswith(c) for c in commits))
    ]
    if not chosen:
        raise UsageError("no commit of the manifest matches the selection")
    return chosen


def contend_version() -> str:
    """Package version + the last commit that changed src/ (what decides the findings),
    `-dirty` when src/ has uncommitted changes."""
    try:
        ver = version("contend")
    except PackageNotFoundError:
        ver = "unknown"
    try:
        rev = git_text(REPO_ROOT, "log", "-1", "--format=%h", "--abbrev=10", "--", "src").strip()
        dirty = git_text(REPO_ROOT, "status", "--porcelain", "--", "src").strip()
    except GitFailed:
        return ver
    return f"{ver}+{rev}{'-dirty' if dirty else ''}"


class Workspace:
    """Per worker, one unpacked repository per project, created on first use."""

    def __init__(self, root: Path, data: Path, jobs: int) -> None:
        self.root = root
        self.data = data
        self.config_home = root / "config-home"
        self.config_home.mkdir(parents=True, exist_ok=True)
        self.slots: queue.Queue[int] = queue.Queue()
        for k in range(jobs):
            self.slots.put(k)

    def repo(self, worker: int, lang: str, project: str) -> Path:
        path = self.root / f"w{worker}" / project
        if not (path / ".git").is_dir():
            path.mkdir(parents=True, exist_ok=True)
            git(path, "init", "-q")
            git(
                path,
                "fetch",
                "-q",
                "--no-tags",
                str(bundle_path(self.data, lang, project)),
                "refs/bench/*:refs/bench/*",
            )
        return path

    def env(self, worker: int) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("CONTEND_")}
        env["CONTEND_CONFIG_HOME"] = str(self.config_home)
        env["CONTEND_STATE_DIR"] = str(self.root / f"state-w{worker}")
        return env


@contextmanager
def workspace_dir(keep: str | None) -> Iterator[Path]:
    if keep:
        path = Path(keep)
        path.mkdir(parents=True, exist_ok=True)
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="contend-realcommits-") as tmp:
        yield Path(tmp)


def review_one(ws: Workspace, row: dict[str, Any], contend: Path) -> CommitResult:
    result = CommitResult(
        project=row["project"],
        lang=row["lang"],
        sha=row["sha"],
        category=row["category"],
        size=row["size"],
    )
    worker = ws.slots.get()
    try:
        repo = ws.repo(worker, row["lang"], row["project"])
        head = git_text(repo, "rev-parse", f"refs/bench/{row['sha']}").strip()
        git(repo, "checkout", "-q", "-f", "--detach", head)
        out = ws.root / "out" / row["project"] / row["sha"]
        shutil.rmtree(out, ignore_errors=True)  # a kept workspace may hold an older run
        cmd = [
            str(contend),
            "review",
            "--critic",
            "static",
            "--range",
            f"{head}~1..{head}",
            "--new",
            "--format",
            "json",
            "--out",
            str(out),
            "-q",
        ]
        code, result.seconds, result.cpu_seconds, stderr = run_timed(cmd, repo, ws.env(worker), out)
        result.exit_code = code
        report_path = out / "report.json"
        if code not in (0, 1, 3) or not report_path.exists():
            tail = (stderr.strip().splitlines() or ["(no stderr)"])[-1]
            result.error = f"exit {code}: {tail}"
            return result
        report = json.loads(report_path.read_text())
        result.verdict = str(report.get("verdict", ""))
        result.findings = findings_of(report)
        resolved = report.get("resolved")
        result.resolved = len(resolved) if isinstance(resolved, list) else 0
        result.reasons = [str(x) for x in report.get("reasons") or []]
        result.skipped = [
            f"{s.get('path')}: {s.get('reason')}"
            for s in report.get("skipped") or []
            if isinstance(s, dict)
        ]
    except (GitFailed, ReportShapeError, json.JSONDecodeError, OSError) as exc:
        result.error = f"{type(exc).__name__}: {exc}"
    finally:
        ws.slots.put(worker)
    return result


def compile_contend() -> None:
    """Write the bytecode of contend's own modules before any review is timed.

    A pip install compiles it at install time and Python caches it on first import, so a
    user's `contend review` loads .pyc files; an editable install run under
    PYTHONDONTWRITEBYTECODE (common on CI and in containers) recompiles every module in
    every review, which added ~0.3 s of CPU per commit to the figure — a cost no user pays."""
    import contend  # the installed package the reviews run

    package = Path(contend.__file__).resolve().parent
    if not compileall.compile_dir(str(package), quiet=1, workers=1):
        raise UsageError(f"could not byte-compile {package} (see the errors above)")


def run_timed(
    cmd: list[str], cwd: Path, env: dict[str, str], out: Path
) -> tuple[int, float, float, str]:
    """Run one review; (exit code, wall seconds, CPU seconds of the child, stderr).

    CPU time (user + system, from wait4) is reported beside wall time because the machine
    may be shared: it does not grow with other processes' load, wall time does."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile() as so, tempfile.TemporaryFile() as se:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=so, stderr=se)
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        se.seek(0)
        stderr = se.read().decode("utf-8", "replace")
    return proc.returncode, wall, usage.ru_utime + usage.ru_stime, stderr


def run_all(
    ws: Workspace, rows: Sequence[dict[str, Any]], contend: Path, jobs: int, quiet: bool
) -> list[CommitResult]:
    results: list[CommitResult] = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(review_one, ws, row, contend) for row in rows]
        for n, fut in enumerate(futures, 1):
            r = fut.result()
            results.append(r)
            if not quiet:
                what = r.error or f"{r.verdict:16} {len(r.findings):3} findings"
                print(
                    f"[{n:3}/{len(rows)}] {r.project:15} {r.sha[:10]}  {what}  {r.seconds:.2f}s",
                    file=sys.stderr,
                )
    return results


def unlabelled_lines(results: Sequence[CommitResult]) -> list[str]:
    lines = []
    for r in results:
        for f in r.findings:
            for m in f.matches:
                if m["label"] == UNLABELLED:
                    lines.append(
                        f"{r.project} {r.sha[:10]} {m['path']}:{m['start_line']}-{m['end_line']}"
                        f" {f.rule} [{f.severity}] {f.claim[:120]}"
                    )
    return lines


def dump(ws: Workspace, results: Sequence[CommitResult], out: Path, contend: str) -> int:
    """Per unlabelled location, a Markdown page with what a labeller needs, and per project
    a `.todo.jsonl` of label stubs to fill in and merge with label.py."""
    written = 0
    for r in results:
        todo: list[str] = []
        folder = out / r.lang / r.project
        pending = [(f, m) for f in r.findings for m in f.matches if m["label"] == UNLABELLED]
        if not pending:
            continue
        folder.mkdir(parents=True, exist_ok=True)
        repo = ws.repo(0, r.lang, r.project)
        head = git_text(repo, "rev-parse", f"refs/bench/{r.sha}").strip()
        message = git_text(repo, "log", "-1", "--format=%B", head).strip()
        stat = git_text(repo, "diff", "--stat=100", "-M", f"{head}~1", head).rstrip()
        for f, m in pending:
            written += 1
            path, start, end = m["path"], m["start_line"], m["end_line"]
            name = f"{written:04d}-{r.sha[:8]}-{f.rule}-{path.replace('/', '_')}-{start}.md"
            diff = git_text(repo, "diff", "-U12", f"{head}~1", head, "--", path)
            page = [
                f"# {r.project} {r.sha[:10]} — {f.rule} [{f.severity}] — {path}:{start}-{end}",
                "",
                f"- commit: {r.sha} (category {r.category}, size {r.size}; verdict {r.verdict})",
                f"- topic: {f.topic}; dispute {f.id}; locations of the dispute: "
                + ", ".join(f"{x['path']}:{x['start_line']}-{x['end_line']}" for x in f.matches),
                "",
                "## Claim",
                "",
                f.claim,
                "",
                "## Evidence",
                "",
                "```",
                f.evidence,
                "```",
                "",
                "## Commit message",
                "",
                "```",
                message,
                "```",
                "",
                "## Files of the commit",
                "",
                "```",
                stat,
                "```",
                "",
                f"## At the commit, {path} around {start}-{end}",
                "",
                "```",
                _excerpt(repo, head, path, start, end),
                "```",
                "",
                f"## At the parent, {path} around {start}-{end}",
                "",
                "```",
                _excerpt(repo, f"{head}~1", path, start, end),
                "```",
                "",
                f"## Diff of {path}",
                "",
                "```diff",
                diff.rstrip() or "(no change to this path)",
                "```",
                "",
            ]
            (folder / name).write_text("\n".join(page), encoding="utf-8")
            stub = {
                "project": r.project,
                "commit": r.sha,
                "path": path,
                "rule": f.rule,
                "start_line": start,
                "end_line": end,
                "key": finding_key(r.sha, path, f.rule, start, end, evidence_key(f.evidence)),
                "evidence_key": evidence_key(f.evidence),
                "severity": f.severity,
                "label": "",
                "reason": "",
                "contend": contend,
                "claim": f.claim[:300],
                "page": f"{r.project}/{name}",
            }
            todo.append(json.dumps(stub, ensure_ascii=False, sort_keys=True))
        with (out / r.lang / f"{r.project}.todo.jsonl").open("a", encoding="utf-8") as fh:
            fh.write("".join(t + "\n" for t in todo))
    return written


def _excerpt(repo: Path, rev: str, path: str, start: int, end: int, margin: int = 25) -> str:
    try:
        text = git(repo, "show", f"{rev}:{path}").decode("utf-8", "replace")
    except GitFailed:
        return "(the file does not exist here)"
    lines = text.splitlines()
    lo, hi = max(1, start - margin), min(len(lines), max(end, start) + margin)
    return "\n".join(
        f"{'>' if start <= n <= end else ' '}{n:5} {lines[n - 1]}" for n in range(lo, hi + 1)
    )


def commit_record(r: CommitResult) -> dict[str, Any]:
    return {
        "project": r.project,
        "lang": r.lang,
        "sha": r.sha,
        "category": r.category,
        "size": r.size,
        "verdict": r.verdict,
        "exit_code": r.exit_code,
        "seconds": round(r.seconds, 3),
        "cpu_seconds": round(r.cpu_seconds, 3),
        "error": r.error,
        "resolved": r.resolved,
        "reasons": r.reasons,
        "skipped": r.skipped,
        "findings": [
            {
                "id": f.id,
                "rule": f.rule,
                "topic": f.topic,
                "severity": f.severity,
                "label": f.label,
                "locations": f.matches,
                "claim": f.claim,
            }
            for f in r.findings
        ],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", choices=list(SETS), default="main", help="which set (default main)")
    ap.add_argument("--lang", choices=[*LANGS, "all"], default="all")
    ap.add_argument("--project", action="append", help="only this project (repeatable)")
    ap.add_argument("--commit", action="append", help="only this commit (sha prefix; repeatable)")
    ap.add_argument("--jobs", type=int, default=1, help="reviews at once (timings: use 1)")
    ap.add_argument("--json", metavar="FILE", help="write the figures as JSON ('-': stdout)")
    ap.add_argument("--show-unlabelled", action="store_true", help="list unlabelled findings")
    ap.add_argument("--dump", metavar="DIR", help="write labelling pages for unlabelled findings")
    ap.add_argument("--data", help="bundle directory (default: bench/realcommits/data)")
    ap.add_argument("--labels", help="label directory (default: bench/realcommits/labels)")
    ap.add_argument("--manifest", help=argparse.SUPPRESS)
    ap.add_argument("--keep", metavar="DIR", help="unpack and review here, and keep it")
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    ap.add_argument(
        "--blocking",
        choices=["earned", "rule"],
        help="static.blocking of the reviews, set in their user config (default: none set, "
        "so contend's default applies)",
    )
    args = ap.parse_args(argv)
    try:
        return _main(args)
    except (UsageError, LabelError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _main(args: argparse.Namespace) -> int:
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    bench = SETS[args.set]
    rows = choose_rows(
        read_manifest(Path(args.manifest) if args.manifest else bench.manifest),
        args.lang,
        args.project,
        args.commit,
    )
    data = data_dir(args.data, bench.default_data_dir)
    for lang, name in sorted({(r["lang"], r["project"]) for r in rows}):
        if not bundle_path(data, lang, name).exists():
            raise UsageError(
                f"no bundle at {bundle_path(data, lang, name)}; build the data with "
                ".venv/bin/python bench/realcommits/build.py"
                + ("" if bench.name == "main" else f" --set {bench.name}")
                + " (see docs/real-commit-benchmark.md)"
            )
    langs = sorted({r["lang"] for r in rows})
    projects = sorted({r["project"] for r in rows})
    labels_root = Path(args.labels) if args.labels else bench.labels_dir
    labels = load_labels(labels_root, langs, projects)
    contend = Path(sys.executable).parent / "contend"
    if not contend.exists():
        raise UsageError(
            f"no contend executable beside {sys.executable}; run with .venv/bin/python"
        )
    ver = contend_version()
    compile_contend()
    with workspace_dir(args.keep) as root:
        ws = Workspace(root, data, args.jobs)
        if args.blocking:
            # Set as a user would: the reviews' (otherwise empty) user configuration.
            (ws.config_home / "config.toml").write_text(f'[static]\nblocking = "{args.blocking}"\n')
        results = run_all(ws, rows, contend, args.jobs, args.quiet)
        how = apply_labels(results, LabelIndex(labels))
        summary = summarize(results, labels)
        when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        header = (
            f"contend real-commit benchmark — contend {ver} — {when}\n"
            f"{len(rows)} commits of {len(projects)} projects ({', '.join(langs)}); "
            f"--jobs {args.jobs}"
            + ("  (timings under parallel load: take them from --jobs 1)" if args.jobs > 1 else "")
        )
        text = render(summary, header, how)
        if args.json != "-":
            print(text)
        if args.show_unlabelled:
            lines = unlabelled_lines(results)
            print(f"\nUNLABELLED locations: {len(lines)}")
            print("\n".join(f"  {x}" for x in lines))
        if args.dump:
            n = dump(ws, results, Path(args.dump), ver)
            print(f"\nwrote {n} labelling pages to {args.dump}", file=sys.stderr)
        if args.json:
            doc = {
                "schema": "contend.realcommits-run/v1",
                "contend": ver,
                "date": when,
                "jobs": args.jobs,
                "summary": summary,
                "label_matches": dict(how),
                "commits": [commit_record(r) for r in results],
            }
            blob = json.dumps(doc, indent=1, ensure_ascii=False)
            if args.json == "-":
                print(blob)
            else:
                Path(args.json).write_text(blob + "\n", encoding="utf-8")
    return 1 if summary["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
