"""The benchmark corpus builder (bench/static_corpus.py) produces well-formed items.

A small corpus — one item per operator — is built from this machine's standard library:
every item must be a git repository with a base commit holding the original stdlib file and
a change commit holding a mutated file that still parses; a defect mutation must really
change a function (or, for a module-level secret, add a top-level line); a control must
differ from its base.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import inject
import operators
import splice
import static_corpus
from benign import CORPUS_BENIGN as BENIGN  # the controls the corpus draws from


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[static_corpus.Item]:
    dest = tmp_path_factory.mktemp("corpus")
    # One item per defect operator, one per benign operator.
    return static_corpus.build_corpus(dest, seed=7, per_topic=1, benign=len(BENIGN))


def _git(repo: str, *args: str) -> str:
    done = subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=True)
    return done.stdout


def _segments(text: str) -> dict[str, str]:
    """Source lines of every function (decorators included) by qualified name."""
    tree = ast.parse(text)
    lines = text.splitlines()
    found: dict[str, str] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                first = min([d.lineno for d in child.decorator_list] + [child.lineno])
                found[prefix + child.name] = "\n".join(lines[first - 1 : child.end_lineno])
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def test_corpus_covers_every_label(corpus: list[static_corpus.Item]) -> None:
    labels = {item.label for item in corpus}
    assert labels == {*operators.OPERATORS, "benign"}
    # Every benign operator yields a control on the stdlib, and most defect operators do.
    assert {i.operator for i in corpus if i.label == "benign"} == set(BENIGN)
    defect_ops = {name for ops in operators.OPERATORS.values() for name in ops}
    assert len({i.operator for i in corpus if i.label != "benign"}) >= len(defect_ops) - 2


def test_items_are_two_commit_repositories_of_real_stdlib_files(
    corpus: list[static_corpus.Item],
) -> None:
    root = static_corpus.stdlib_pools().root
    for item in corpus:
        assert _git(item.repo, "rev-list", "--count", "HEAD").strip() == "2", item.id
        base = _git(item.repo, "show", f"HEAD~1:{item.path}")
        new = _git(item.repo, "show", f"HEAD:{item.path}")
        assert base == (root / item.path).read_text(encoding="utf-8"), item.id
        assert new != base, item.id
        ast.parse(new)  # the spliced file still parses
        changed = _git(item.repo, "diff", "--name-only", "HEAD~1", "HEAD").split()
        assert changed == [item.path], item.id


def test_mutations_change_a_function(corpus: list[static_corpus.Item]) -> None:
    for item in corpus:
        if item.label == "benign":
            continue
        base = _git(item.repo, "show", f"HEAD~1:{item.path}")
        new = _git(item.repo, "show", f"HEAD:{item.path}")
        if item.operator == "module_secret":
            top = {n.lineno for n in ast.parse(new).body}
            assert set(item.added_lines) <= top, item.id
            continue
        old_funcs, new_funcs = _segments(base), _segments(new)
        assert any(new_funcs.get(name) != seg for name, seg in old_funcs.items()), item.id


def test_changed_lines_match_git(corpus: list[static_corpus.Item]) -> None:
    for item in corpus[:10]:
        diff = _git(item.repo, "diff", "-U0", "HEAD~1", "HEAD")
        added: set[int] = set()
        for match in re.finditer(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", diff, re.M):
            start, count = int(match.group(1)), int(match.group(2) or "1")
            added.update(range(start, start + count))
        if item.operator == "swap_methods":
            # Two adjacent blocks swapped read as either one moved: git may pick the other.
            assert len(added) == len(item.added_lines), item.id
            continue
        assert added == set(item.added_lines), item.id


def test_splice_keeps_formatting_and_handles_multibyte_columns() -> None:
    text = 'def f(x):\n    s = "é"; raise ValueError(x)  # keep\n    return s\n'
    src = splice.Source("m.py", text)
    raise_node = next(n for n in ast.walk(src.tree) if isinstance(n, ast.Raise))
    start, end = src.node_range(raise_node)
    out = splice.apply_edits(text, [splice.Edit(start, end, "return None")])
    assert out == 'def f(x):\n    s = "é"; return None  # keep\n    return s\n'
    with pytest.raises(ValueError, match="overlapping"):
        splice.apply_edits(text, [splice.Edit(0, 5, "a"), splice.Edit(3, 7, "b")])


def test_generated_secrets_look_real_and_are_seeded() -> None:
    import random

    key_id, secret = inject.aws_key(random.Random(1))
    assert re.fullmatch(r"AKIA[A-Z2-7]{16}", key_id)
    assert len(secret) == 40
    assert inject.aws_key(random.Random(1)) == (key_id, secret)
    assert inject.aws_key(random.Random(2)) != (key_id, secret)


def test_baseline_counts_only_diagnostics_the_change_introduced() -> None:
    from baselines import Diagnostic, introduced

    old = "import os\ntry:\n    f()\nexcept:\n    pass\n"
    new = "import os\ntry:\n    f()\nexcept:\n    pass\ntry:\n    g()\nexcept:\n    pass\n"
    before = [Diagnostic("E722", 4, 4)]
    after = [Diagnostic("E722", 4, 4), Diagnostic("E722", 8, 8)]
    assert introduced(old, new, before, after) == [Diagnostic("E722", 8, 8)]
    assert introduced(old, old, before, before) == []


def test_a_finding_touches_the_mutated_lines_within_one_line() -> None:
    from static_quality import touches

    item = static_corpus.Item("i", "silent-fallback", "op", "/r", "m.py", (10, 11), (10,))
    assert touches(item, 9, 9)
    assert touches(item, 12, 20)
    assert not touches(item, 13, 20)
    assert not touches(item, 9, 9, tolerance=0)
    deletion = static_corpus.Item("d", "test-weakening", "op", "/r", "t.py", (), (5, 6))
    assert touches(deletion, 100, 100)
