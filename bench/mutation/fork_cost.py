"""What a forked child costs in CPU when the parent holds the project, with and without
`gc.freeze()` in the parent: why run.py and host.py freeze before forking.

    .venv/bin/python bench/mutation/fork_cost.py

Imports every module of contend (and pytest, hypothesis), then forks children that each
run one full garbage collection — what a child's collector does sooner or later — and a
little work, and prints their mean user+system seconds (os.wait4), unfrozen then frozen.
A collection walks every tracked object; in a child that touches, and so copies, every
page of the parent's heap. Frozen objects are never walked.
"""

from __future__ import annotations

import gc
import importlib
import os
import pkgutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def child_cpu(children: int = 8) -> float:
    total = 0.0
    for _ in range(children):
        pid = os.fork()
        if pid == 0:  # the child never returns into the parent's code
            gc.collect()
            _ = [{"a": i} for i in range(20000)]
            os._exit(0)
        _, _, usage = os.wait4(pid, 0)
        total += usage.ru_utime + usage.ru_stime
    return total / children


def main() -> int:
    sys.path.insert(0, str(ROOT / "src"))
    import hypothesis  # noqa: F401
    import pytest  # noqa: F401

    import contend

    failed = []
    for info in pkgutil.walk_packages(contend.__path__, "contend."):
        try:
            importlib.import_module(info.name)
        except Exception as exc:  # contend: allow silent-fallback -- listed below; a heap figure
            failed.append(f"{info.name} ({type(exc).__name__}: {exc})")
    print(f"objects tracked: {len(gc.get_objects())}; modules that failed to import: {failed}")
    print(f"a child, parent not frozen: {child_cpu():.3f} s CPU")
    gc.freeze()
    print(f"a child, parent frozen:     {child_cpu():.3f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
