"""TypeScript / JavaScript parse-failure rate of the bundled grammars on real repositories.

    nice -n 10 .venv/bin/python bench/js_parse_rate.py [REPO ...] [--show 15] [--raw]

Each REPO is a git repository (a bare mirror is fine); with none, every repository under
/work/.mirror/*/repo is read. The files at HEAD with a .ts/.tsx/.mts/.cts (and .js/.jsx/.mjs/
.cjs) extension under the 1 MB review limit are read from git and parsed exactly as the critics
parse them (`treesitter.parse_checked`). A file "fails" when the critics would skip it as a
syntax error. Printed: per repository and in total, files and failures per language, the
failure rate, and the most common failing lines (first error line of each file, whitespace
squeezed) so a grammar gap shows as a repeated construct. `--raw` parses without the
compatibility rewrite of `treesitter` (the grammar as shipped), to show what the rewrite buys.

Target (issue 17): TypeScript parse failures <= 0.5% of files.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections import Counter
from pathlib import Path

from contend.critics.static import treesitter
from contend.critics.static.base import Skipped, Topic, language_of

_LIMIT = 1_000_000
_KINDS = {"typescript": "ts", "tsx": "ts", "javascript": "js"}


def _files(repo: Path) -> list[tuple[str, str]]:
    """(path, blob sha) of the JS/TS files at HEAD."""
    out = subprocess.run(
        ["git", "-C", str(repo), "ls-tree", "-r", "-l", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found = []
    for line in out.splitlines():
        meta, _, path = line.partition("\t")
        mode, kind, sha, size = meta.split()
        # Symlinks are skipped by the review before any grammar sees them.
        if mode == "120000" or kind != "blob" or not size.isdigit() or int(size) > _LIMIT:
            continue
        if language_of(path) in _KINDS:
            found.append((path, sha))
    return found


def _blobs(repo: Path, shas: list[str]) -> list[bytes]:
    batch = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "--batch"],
        input=("\n".join(shas) + "\n").encode(),
        capture_output=True,
        check=True,
    ).stdout
    blobs: list[bytes] = []
    pos = 0
    for _ in shas:
        header_end = batch.index(b"\n", pos)
        size = int(batch[pos:header_end].split()[2])
        blobs.append(batch[header_end + 1 : header_end + 1 + size])
        pos = header_end + 1 + size + 1
    return blobs


def measure(repo: Path, raw: bool) -> tuple[Counter[str], Counter[str], Counter[str]]:
    """(files per kind, failures per kind, failing lines)."""
    files, failures, lines = Counter[str](), Counter[str](), Counter[str]()
    listed = _files(repo)
    blobs = _blobs(repo, [sha for _path, sha in listed])
    for (path, _sha), blob in zip(listed, blobs, strict=True):
        try:
            text = blob.decode("utf-8")
        except UnicodeDecodeError:
            continue  # the review skips it as non-UTF-8 before any grammar sees it
        language = treesitter.js_language(language_of(path))
        assert language is not None
        kind = _KINDS[language]
        files[kind] += 1
        if raw:
            root = treesitter.parse_raw(text, language)
            line = treesitter.syntax_error_line(root)
            failed = line is not None
        else:
            result = treesitter.parse_checked(text, language, path=path, topic=Topic.SECURITY)
            failed = isinstance(result, Skipped)
            line = int(result.reason.split()[4]) if isinstance(result, Skipped) else None
        if failed and line is not None:
            failures[kind] += 1
            source = text.split("\n")[line - 1] if line - 1 < text.count("\n") + 1 else ""
            lines[" ".join(source.split())[:90]] += 1
            print(f"  fail {repo.parent.name}:{path}:{line}", file=sys.stderr)
    return files, failures, lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("repos", nargs="*", type=Path)
    parser.add_argument("--show", type=int, default=15)
    parser.add_argument("--raw", action="store_true")
    args = parser.parse_args()
    repos = args.repos or sorted(Path("/work/.mirror").glob("*/repo"))
    if not repos:
        raise SystemExit("no repositories given and none under /work/.mirror")
    total_files, total_failures, total_lines = Counter[str](), Counter[str](), Counter[str]()
    print(
        f"{'repository':<28} {'ts files':>8} {'ts fail':>7} {'ts rate':>8} "
        f"{'js files':>8} {'js fail':>7} {'js rate':>8}"
    )
    for repo in repos:
        files, failures, lines = measure(repo, args.raw)
        total_files.update(files)
        total_failures.update(failures)
        total_lines.update(lines)
        print(_row(repo.parent.name if repo.name == "repo" else repo.name, files, failures))
    print(_row("TOTAL", total_files, total_failures))
    print(f"\nmost common failing lines ({'raw grammar' if args.raw else 'as the critics parse'}):")
    for line, count in total_lines.most_common(args.show):
        print(f"  {count:>4}  {line}")


def _row(name: str, files: Counter[str], failures: Counter[str]) -> str:
    def rate(kind: str) -> str:
        return f"{100 * failures[kind] / files[kind]:.2f}%" if files[kind] else "-"

    return (
        f"{name:<28} {files['ts']:>8} {failures['ts']:>7} {rate('ts'):>8} "
        f"{files['js']:>8} {failures['js']:>7} {rate('js'):>8}"
    )


if __name__ == "__main__":
    main()
