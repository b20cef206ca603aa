"""Check label files, and merge filled-in label stubs (from `run.py --dump`) into them.

    .venv/bin/python bench/realcommits/label.py [--set main|holdout] check
    .venv/bin/python bench/realcommits/label.py [--set main|holdout] merge TODO.jsonl... [--replace]

`check` validates every labels/<lang>/<project>.jsonl of the set (`holdout`: labels-holdout/)
(fields, TRUE/DEBATABLE/FALSE, a one-line reason, keys matching their fields, no key
labelled twice). `merge` appends the stubs whose `label` is filled in to their project's
label file; stubs left empty are counted and left out; a key already labelled the same way
is skipped; a key labelled differently is an error unless --replace (a re-judgement) is
given; a stub of a project of the other set is an error. Exit 2 on any invalid line,
naming file and line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rc_labels import Label, LabelError, load_labels, parse_label, read_label_file
from rc_projects import LANGS, SETS, Project, labels_path

STUB_ONLY = ("page",)


def check(root: Path, projects: tuple[Project, ...] = SETS["main"].projects) -> int:
    labels = load_labels(root, LANGS)
    known = {p.name for p in projects}
    strays = [lab for lab in labels if lab.project not in known]
    if strays:
        raise LabelError(f"labels of unknown projects: {sorted({x.project for x in strays})}")
    by = {}
    for lab in labels:
        by[lab.label] = by.get(lab.label, 0) + 1
    print(f"{len(labels)} labels OK: {by}")
    return 0


def merge(
    root: Path,
    todo_files: list[Path],
    replace: bool,
    projects: tuple[Project, ...] = SETS["main"].projects,
) -> int:
    lang_of = {p.name: p.lang for p in projects}
    # A label filed into the wrong set would mix the holdout into the tuned set (or back).
    set_of = {p.name: name for name, s in SETS.items() for p in s.projects if p not in projects}
    added = skipped_empty = same = replaced = 0
    incoming: dict[Path, list[Label]] = {}
    for todo in todo_files:
        for n, line in enumerate(todo.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            obj = json.loads(line)
            if not obj.get("label"):
                skipped_empty += 1
                continue
            for k in STUB_ONLY:
                obj.pop(k, None)
            label = parse_label(obj, f"{todo}:{n}")
            if label.project in set_of:
                raise LabelError(
                    f"{todo}:{n}: project {label.project!r} belongs to set "
                    f"{set_of[label.project]!r}; pass --set {set_of[label.project]}"
                )
            # A dump's stubs sit in <dump>/<lang>/<project>.todo.jsonl.
            lang = lang_of.get(label.project) or todo.parent.name
            if lang not in LANGS:
                raise LabelError(f"{todo}:{n}: unknown project {label.project!r}")
            dest = labels_path(lang, label.project, root)
            incoming.setdefault(dest, []).append(label)
    for dest, new in incoming.items():
        current = read_label_file(dest) if dest.exists() else []
        by_key = {lab.key: lab for lab in current}
        order = [lab.key for lab in current]
        for lab in new:
            old = by_key.get(lab.key)
            if old is None:
                order.append(lab.key)
                added += 1
            elif old.label == lab.label and old.reason == lab.reason:
                same += 1
                continue
            elif not replace:
                raise LabelError(
                    f"{lab.key} is labelled {old.label} in {dest}; pass --replace to re-judge it"
                )
            else:
                replaced += 1
            by_key[lab.key] = lab
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text("".join(by_key[k].to_json() + "\n" for k in order), encoding="utf-8")
    print(
        f"merged: {added} new, {replaced} replaced, {same} already there, "
        f"{skipped_empty} stubs left unlabelled"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", choices=list(SETS), default="main", help="which set (default main)")
    ap.add_argument("--labels", help="label directory (default: bench/realcommits/labels)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("check", help="validate every label file")
    m = sub.add_parser("merge", help="merge filled-in stubs into the label files")
    m.add_argument("todo", nargs="+", type=Path)
    m.add_argument("--replace", action="store_true", help="allow changing an existing label")
    args = ap.parse_args(argv)
    bench = SETS[args.set]
    root = Path(args.labels) if args.labels else bench.labels_dir
    try:
        if args.cmd == "check":
            return check(root, bench.projects)
        return merge(root, args.todo, args.replace, bench.projects)
    except (LabelError, json.JSONDecodeError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
