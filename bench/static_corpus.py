"""Build the labelled benchmark corpus of the static critics from this machine's stdlib.

Nothing from the standard library is stored in this repository: every run reads the
CPython standard library (and its own test suite, `Lib/test`, when installed), applies the
defect operators (`operators.py`: `mutations.py`, `inject.py`) and the benign controls
(`benign.py`) to real functions and tests, and writes each result as a small git
repository — the base commit holds the original file, the change commit the mutated one —
labelled with its topic or "benign". Sampling is deterministic for a given seed and
Python installation.

    .venv/bin/python bench/static_corpus.py DEST   # build and print the item counts
"""

from __future__ import annotations

import ast
import difflib
import json
import math
import os
import random
import subprocess
import sys
import sysconfig
import warnings
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from benign import CORPUS_BENIGN as BENIGN
from operators import OPERATORS, TEST_TOPICS
from splice import Mutation, Operator, Source, apply_edits

SEED = 20261130
MAX_FILE_BYTES = 150_000
MAX_ITEMS_PER_FILE = 3
TEST_DIR_NAMES = frozenset({"test", "tests", "idle_test"})


@dataclass(frozen=True, slots=True)
class Item:
    id: str
    label: str  # a topic, or "benign"
    operator: str
    repo: str
    path: str  # the changed file, relative to the repo root (the stdlib-relative path)
    added_lines: tuple[int, ...]  # new-side lines the change added or modified
    removed_lines: tuple[int, ...]  # old-side lines it removed or modified

    @property
    def deletion(self) -> bool:
        """A pure removal (an assertion, a guard, a test): no new line to point at."""
        return not self.added_lines


@dataclass(frozen=True, slots=True)
class Pools:
    root: Path
    library: list[Path]
    tests: list[Path]
    has_lib_test: bool


def stdlib_pools() -> Pools:
    """Library modules and unittest test modules of the running interpreter's stdlib."""
    root = Path(sysconfig.get_paths()["stdlib"])
    library: list[Path] = []
    tests: list[Path] = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).parts
        if "site-packages" in rel or "dist-packages" in rel:
            continue
        if path.stat().st_size > MAX_FILE_BYTES:
            continue
        in_test_dir = any(part in TEST_DIR_NAMES for part in rel[:-1])
        if rel[-1].startswith("test_") and in_test_dir:
            tests.append(path)
        elif not in_test_dir and not rel[-1].startswith("test_"):
            library.append(path)
    return Pools(root, library, tests, (root / "test" / "__init__.py").exists())


@dataclass(frozen=True, slots=True)
class NotUsed:
    """Why a file or a mutation was left out of the corpus; counted in the manifest."""

    reason: str


def load_source(root: Path, path: Path) -> Source | NotUsed:
    """The parsed file, or why the corpus does not use it: non-UTF-8 text, tab or CR line
    layouts (the splice helpers assume spaces and LF), a file this Python cannot parse."""
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return NotUsed("file is not UTF-8")
    if "\r" in text or "\t" in text:
        return NotUsed("file has tabs or CR line endings")
    # Some stdlib tests hold deliberately odd literals; their parse-time warnings are noise.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return Source(path.relative_to(root).as_posix(), text)
        except (SyntaxError, ValueError) as exc:
            return NotUsed(f"file does not parse ({type(exc).__name__})")


def changed_lines(old: str, new: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(added new-side lines, removed old-side lines), 1-based, as `git diff` reports them."""
    matcher = difflib.SequenceMatcher(a=old.splitlines(), b=new.splitlines(), autojunk=False)
    added: list[int] = []
    removed: list[int] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            removed.extend(range(i1 + 1, i2 + 1))
            added.extend(range(j1 + 1, j2 + 1))
    return tuple(added), tuple(removed)


def mutate(src: Source, mutation: Mutation) -> str | NotUsed:
    """The mutated text, or why it is rejected: it changes nothing, or it does not parse."""
    new = apply_edits(src.text, list(mutation.edits))
    if new == src.text:
        return NotUsed(f"{mutation.operator}: changes nothing")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(new)
        except SyntaxError:
            return NotUsed(f"{mutation.operator}: result does not parse")
    return new


@dataclass(frozen=True, slots=True)
class Chosen:
    label: str
    operator: str
    src: Source
    new_text: str


def _slots(per_topic: int, benign: int) -> dict[tuple[str, str], int]:
    quotas: dict[tuple[str, str], int] = {}
    for topic, ops in OPERATORS.items():
        for name in ops:
            quotas[(topic, name)] = math.ceil(per_topic / len(ops))
    for name in BENIGN:
        quotas[("benign", name)] = math.ceil(benign / len(BENIGN))
    return quotas


def _operator(label: str, name: str) -> Operator:
    return BENIGN[name] if label == "benign" else OPERATORS[label][name]


def _interleave(rng: random.Random, pools: Pools) -> Iterator[tuple[Path, bool]]:
    library, tests = list(pools.library), list(pools.tests)
    rng.shuffle(library)
    rng.shuffle(tests)
    for i in range(max(len(library), len(tests))):
        if i < len(tests):
            yield tests[i], True
        if i < len(library):
            yield library[i], False


def choose(
    pools: Pools, *, seed: int, per_topic: int, benign: int
) -> tuple[list[Chosen], Counter[str]]:
    """Walk the stdlib in seeded random order and fill each operator's quota, at most
    MAX_ITEMS_PER_FILE items per file, the emptiest quotas first."""
    rng = random.Random(seed)
    quotas = _slots(per_topic, benign)
    filled: Counter[tuple[str, str]] = Counter()
    chosen: list[Chosen] = []
    not_used: Counter[str] = Counter()
    for path, is_test in _interleave(rng, pools):
        if all(filled[k] >= q for k, q in quotas.items()):
            break
        src = load_source(pools.root, path)
        if isinstance(src, NotUsed):
            not_used[src.reason] += 1
            continue
        wanted = [
            key
            for key, quota in quotas.items()
            if filled[key] < quota and (key[0] == "benign" or (key[0] in TEST_TOPICS) == is_test)
        ]
        wanted.sort(key=lambda k: (filled[k] / quotas[k], rng.random()))
        taken = 0
        for label, name in wanted:
            if taken >= MAX_ITEMS_PER_FILE:
                break
            site_rng = random.Random(f"{seed}:{src.path}:{name}")
            candidates = _operator(label, name)(src, site_rng)
            site_rng.shuffle(candidates)
            for mutation in candidates[:5]:
                new_text = mutate(src, mutation)
                if isinstance(new_text, NotUsed):
                    not_used[new_text.reason] += 1
                else:
                    chosen.append(Chosen(label, name, src, new_text))
                    filled[(label, name)] += 1
                    taken += 1
                    break
    return chosen, not_used


def run_git(repo: Path, *args: str) -> None:
    env = dict(os.environ)
    env.update(
        GIT_AUTHOR_NAME="bench",
        GIT_AUTHOR_EMAIL="bench@example.invalid",
        GIT_COMMITTER_NAME="bench",
        GIT_COMMITTER_EMAIL="bench@example.invalid",
        GIT_AUTHOR_DATE="2026-01-01T00:00:00Z",
        GIT_COMMITTER_DATE="2026-01-01T00:00:00Z",
    )
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        env.pop(name, None)
    subprocess.run(
        [
            "git",
            "-C",
            str(repo),
            "-c",
            "commit.gpgsign=false",
            "-c",
            "core.hooksPath=/dev/null",
            *args,
        ],
        check=True,
        capture_output=True,
        env=env,
    )


def write_item_repo(repo: Path, rel_path: str, old_text: str, new_text: str) -> None:
    """A git repository holding one file: base commit = old text, change commit = new."""
    target = repo / rel_path
    target.parent.mkdir(parents=True, exist_ok=True)
    run_git(repo.parent, "init", "-q", repo.name)
    target.write_text(old_text, encoding="utf-8")
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", "base")
    target.write_text(new_text, encoding="utf-8")
    run_git(repo, "commit", "-q", "-a", "-m", "change")


def build_corpus(
    dest: Path, *, seed: int = SEED, per_topic: int = 72, benign: int = 312
) -> list[Item]:
    """Build every item under dest/items/ and write dest/manifest.json."""
    pools = stdlib_pools()
    items: list[Item] = []
    counters: Counter[tuple[str, str]] = Counter()
    picked, not_used = choose(pools, seed=seed, per_topic=per_topic, benign=benign)
    for chosen in picked:
        counters[(chosen.label, chosen.operator)] += 1
        item_id = (
            f"{chosen.label}--{chosen.operator}--{counters[(chosen.label, chosen.operator)]:02d}"
        )
        repo = dest / "items" / item_id
        write_item_repo(repo, chosen.src.path, chosen.src.text, chosen.new_text)
        added, removed = changed_lines(chosen.src.text, chosen.new_text)
        items.append(
            Item(item_id, chosen.label, chosen.operator, str(repo), chosen.src.path, added, removed)
        )
    manifest = {
        "seed": seed,
        "python": sys.version.split()[0],
        "stdlib": str(pools.root),
        "library_files": len(pools.library),
        "test_files": len(pools.tests),
        "has_lib_test": pools.has_lib_test,
        "not_used": dict(sorted(not_used.items())),
        "items": [asdict(item) for item in items],
    }
    (dest / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return items


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    dest = Path(argv[1])
    dest.mkdir(parents=True, exist_ok=True)
    items = build_corpus(dest)
    by_label = Counter(item.label for item in items)
    for label, count in sorted(by_label.items()):
        print(f"{label:20} {count}")
    print(f"{'total':20} {len(items)}  -> {dest}")
    manifest = json.loads((dest / "manifest.json").read_text(encoding="utf-8"))
    for reason, count in manifest["not_used"].items():
        print(f"not used: {count:5}  {reason}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
