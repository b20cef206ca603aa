"""Time and peak memory of the static critics against the size of one changed file.

    nice -n 10 .venv/bin/python bench/static_scaling.py [--max-kb 1024] [--runs 3]

For each shape — Python (functions with a swallowing handler each), JavaScript in readable
form, and minified JavaScript (one line of repeated `try{…}catch(e){return 0}`, the input that
once cost 3.7 GB at 184 KB) — and each size from 1 KB to `--max-kb` (x4 steps), a fresh
interpreter runs every static topic over the file as an added file and reports its wall time
(median of `--runs`) and its peak memory above the interpreter's baseline after imports
(ru_maxrss, so tree-sitter's C allocations count). Each file is built so its number of
findings grows with its size; every finding's evidence is capped by the runner.

Linear growth shows as a flat "µs/KB" column and a flat "KB mem/KB"; the last lines print, for
each shape, the ratio of the per-KB cost at the largest size to that at 16 KB (1.0 = linear;
a quadratic critic gives ~64 at 1 MB).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import textwrap

_CHILD = textwrap.dedent(
    """
    import json, resource, sys, time
    from contend.critics.static.runner import run_static
    from contend.critics.static.testing import change_from_texts
    from contend.critics.static.base import FileChange
    path, text = sys.argv[1], sys.stdin.read()
    # Warm the imports and grammars on a tiny file first, so the baseline holds them.
    run_static([change_from_texts(path, None, "x = 1\\n" if path.endswith(".py") else "1;\\n")])
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    change = FileChange(path, None, "added", None, text,
                        frozenset(range(1, text.count("\\n") + 2)), frozenset(),
                        "python" if path.endswith(".py") else "javascript")
    t0 = time.perf_counter()
    result = run_static([change])
    wall = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"wall": wall, "mem_kb": peak - base, "findings": len(result.findings),
                      "skipped": len(result.skipped),
                      "evidence": sum(len(f.evidence) for f in result.findings)}))
    """
)


def python_file(size: int) -> str:
    unit = (
        "def load_{i}(path):\n"
        "    try:\n"
        "        return parse(open(path).read())\n"
        "    except Exception:\n"
        "        return None\n\n\n"
    )
    return _fill(unit, size)


def js_file(size: int) -> str:
    unit = (
        "export function load{i}(path) {{\n"
        "  try {{\n"
        "    return parse(fs.readFileSync(path, 'utf8'));\n"
        "  }} catch (e) {{\n"
        "    return null;\n"
        "  }}\n"
        "}}\n\n"
    )
    return _fill(unit, size)


def minified_js(size: int) -> str:
    unit = "function f{i}(a){{try{{return g(a)}}catch(e){{return 0}}}};"
    return _fill(unit, size).replace("\n", "") + "\n"


def _fill(unit: str, size: int) -> str:
    parts: list[str] = []
    total = i = 0
    while total < size:
        piece = unit.format(i=i)
        parts.append(piece)
        total += len(piece)
        i += 1
    return "".join(parts)


SHAPES = {
    "python": ("big.py", python_file),
    "javascript": ("big.js", js_file),
    "minified-js": ("big.min.js", minified_js),
}


def measure(path: str, text: str, runs: int) -> dict[str, float]:
    samples = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", _CHILD, path],
            input=text,
            capture_output=True,
            text=True,
            check=True,
        )
        samples.append(json.loads(out.stdout))
    best = dict(samples[0])
    best["wall"] = statistics.median(s["wall"] for s in samples)
    best["mem_kb"] = max(s["mem_kb"] for s in samples)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max-kb", type=int, default=1024)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    sizes = []
    kb = 1
    while kb <= args.max_kb:
        sizes.append(kb)
        kb *= 4
    print(
        f"{'shape':<12} {'size':>8} {'findings':>8} {'wall s':>8} {'µs/KB':>8} "
        f"{'peak MB':>8} {'KB mem/KB':>9} {'evidence KB':>11}"
    )
    per_kb: dict[str, dict[int, float]] = {}
    for shape, (path, build) in SHAPES.items():
        for kb in sizes:
            text = build(kb * 1024)
            got = measure(path, text, args.runs)
            size_kb = len(text.encode()) / 1024
            micro = got["wall"] * 1e6 / size_kb
            per_kb.setdefault(shape, {})[kb] = micro
            print(
                f"{shape:<12} {size_kb:>7.0f}K {got['findings']:>8.0f} {got['wall']:>8.3f} "
                f"{micro:>8.0f} {got['mem_kb'] / 1024:>8.1f} {got['mem_kb'] / size_kb:>9.2f} "
                f"{got['evidence'] / 1024:>11.1f}"
            )
    print()
    for shape, costs in per_kb.items():
        reference = 16 if 16 in costs else min(costs)
        largest = max(costs)
        print(
            f"{shape}: per-KB time at {largest} KB / at {reference} KB = "
            f"{costs[largest] / costs[reference]:.2f} (1.0 = linear)"
        )


if __name__ == "__main__":
    main()
