"""Label files of the real-commit benchmark: format, validation, and matching findings to labels.

A label judges one *location* of one finding: (project, commit, path, rule, start/end line).
Labels are kept per location, not per dispute, so they survive a report that groups repeated
findings of one rule in one file into one dispute with several locations.

Matching a finding (one rule, one commit, one or more locations) to labels of the same
commit, path and rule, per location, first tier that finds any label wins:

1. `exact`    — same start and end line and the same normalised evidence;
2. `span`     — same start and end line;
3. `evidence` — the same normalised evidence (the lines moved, the quoted code did not);
4. `line`     — same start line (the span's end moved);
5. `overlap`  — spans overlap (a critic that narrowed or widened its span).

Evidence only pins a single-location finding (a grouped dispute's evidence covers all its
locations). Where a tier finds several labels that disagree, a single finding stays
UNLABELLED (its stub then carries its evidence hash and matches `exact`).

A dispute's label, from the labels of its locations: TRUE if any is TRUE (the maintainer
acts on the dispute once); otherwise UNLABELLED if any location has no label (it might be
TRUE); otherwise DEBATABLE if any is DEBATABLE; otherwise FALSE. It is counted once.

Label line (JSON, one per line, in labels/<lang>/<project>.jsonl):
  project, commit (full sha), path, rule, start_line, end_line, key, evidence_key,
  severity (as seen), label (TRUE|DEBATABLE|FALSE), reason (one line), contend (the
  version that raised it), claim (the finding's claim, for the human reader).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

VERDICTS = ("TRUE", "DEBATABLE", "FALSE")
UNLABELLED = "UNLABELLED"
REQUIRED = ("project", "commit", "path", "rule", "start_line", "end_line", "label", "reason")


class LabelError(ValueError):
    """A label file line that is not a valid label; the message names file and line."""


@dataclass(frozen=True, slots=True)
class Loc:
    path: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Label:
    project: str
    commit: str
    path: str
    rule: str
    start_line: int
    end_line: int
    label: str
    reason: str
    key: str = ""
    evidence_key: str = ""
    severity: str = ""
    contend: str = ""
    claim: str = ""

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, sort_keys=True)


def finding_key(commit: str, path: str, rule: str, start: int, end: int, ev: str = "") -> str:
    """The primary key of one labelled location; the evidence hash tells apart findings of
    one rule at one spot (three tests deleted, all anchored at the same line)."""
    return f"{commit[:12]}:{path}:{rule}:{start}-{end}" + (f":{ev[:8]}" if ev else "")


_LINE_REF = re.compile(r"\b(line|lines|l\.)\s*\d+(\s*[-–]\s*\d+)?", re.I)
_NUM = re.compile(r"\b\d+\b")


def evidence_key(evidence: str) -> str:
    """Hash of the evidence with line numbers and whitespace normalised away, so a finding
    whose lines shifted still matches its label. A hash, not the text: the evidence quotes
    third-party code, which is not committed."""
    text = _LINE_REF.sub("line N", evidence)
    text = _NUM.sub("N", text)
    text = " ".join(text.split()).lower()
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def parse_label(obj: object, where: str) -> Label:
    if not isinstance(obj, dict):
        raise LabelError(f"{where}: a label must be a JSON object")
    missing = [k for k in REQUIRED if k not in obj]
    if missing:
        raise LabelError(f"{where}: missing {', '.join(missing)}")
    if obj["label"] not in VERDICTS:
        raise LabelError(
            f"{where}: label must be one of {'/'.join(VERDICTS)}, got {obj['label']!r}"
        )
    reason = obj["reason"]
    if not isinstance(reason, str) or not reason.strip() or "\n" in reason:
        raise LabelError(f"{where}: reason must be one non-empty line")
    for k in ("start_line", "end_line"):
        if not isinstance(obj[k], int) or isinstance(obj[k], bool):
            raise LabelError(f"{where}: {k} must be an integer")
    for k in ("project", "commit", "path", "rule"):
        if not isinstance(obj[k], str) or not obj[k]:
            raise LabelError(f"{where}: {k} must be a non-empty string")
    known = set(Label.__dataclass_fields__)
    extra = set(obj) - known
    if extra:
        raise LabelError(f"{where}: unknown keys {', '.join(sorted(extra))}")
    fields = {k: obj[k] for k in known if k in obj}
    label = Label(**fields)
    want = finding_key(
        label.commit, label.path, label.rule, label.start_line, label.end_line, label.evidence_key
    )
    if label.key and label.key != want:
        raise LabelError(f"{where}: key {label.key!r} does not match its fields ({want!r})")
    return label if label.key else Label(**{**fields, "key": want})


def read_label_file(path: Path) -> list[Label]:
    labels = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise LabelError(f"{path}:{n}: not JSON: {exc.msg}") from exc
        labels.append(parse_label(obj, f"{path}:{n}"))
    return labels


def load_labels(
    root: Path, langs: Iterable[str], projects: Iterable[str] | None = None
) -> list[Label]:
    """Every label of the given languages (and projects); conflicting duplicates are errors."""
    wanted = None if projects is None else set(projects)
    labels: list[Label] = []
    seen: dict[str, tuple[Label, str]] = {}
    for lang in langs:
        folder = root / lang
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.jsonl")):
            if wanted is not None and path.stem not in wanted:
                continue
            for label in read_label_file(path):
                if label.project != path.stem:
                    raise LabelError(
                        f"{path}: label of project {label.project!r} in the wrong file"
                    )
                before = seen.get(label.key)
                if before is not None:
                    raise LabelError(
                        f"{path}: key {label.key} labelled twice "
                        f"({before[0].label} in {before[1]}, {label.label} here)"
                    )
                seen[label.key] = (label, str(path))
                labels.append(label)
    return labels


@dataclass(frozen=True, slots=True)
class Match:
    loc: Loc
    labels: tuple[Label, ...]
    how: str  # exact | span | evidence | line | overlap | none

    @property
    def value(self) -> str:
        """The location's label; UNLABELLED when none matched or the matched ones disagree."""
        values = {lab.label for lab in self.labels}
        return values.pop() if len(values) == 1 else UNLABELLED


class LabelIndex:
    """Labels indexed for matching findings of one run."""

    def __init__(self, labels: Sequence[Label]) -> None:
        self.labels = list(labels)
        self._by_file: dict[tuple[str, str, str], list[Label]] = defaultdict(list)
        for lab in self.labels:
            self._by_file[(lab.commit, lab.path, lab.rule)].append(lab)

    def match(self, commit: str, rule: str, locs: Sequence[Loc], evidence: str) -> list[Match]:
        # Evidence describes the whole dispute, so it can only pin a single location.
        ev = evidence_key(evidence) if len(locs) == 1 else ""
        return [self._match_one(commit, rule, loc, ev) for loc in locs]

    def _match_one(self, commit: str, rule: str, loc: Loc, ev: str) -> Match:
        cands = self._by_file.get((commit, loc.path, rule), [])
        span = [lab for lab in cands if (lab.start_line, lab.end_line) == (loc.start, loc.end)]
        if ev:
            exact = [lab for lab in span if lab.evidence_key == ev]
            if exact:
                return Match(loc, tuple(exact), "exact")
        if span:
            return Match(loc, tuple(span), "span")
        if ev:
            same_ev = [lab for lab in cands if lab.evidence_key == ev]
            if same_ev:
                return Match(loc, tuple(same_ev), "evidence")
        line = [lab for lab in cands if lab.start_line == loc.start]
        if line:
            return Match(loc, tuple(line), "line")
        overlapping = [
            lab for lab in cands if lab.start_line <= loc.end and loc.start <= lab.end_line
        ]
        if overlapping:
            return Match(loc, tuple(overlapping), "overlap")
        return Match(loc, (), "none")


def place_label(matches: Sequence[Match], index: int) -> str:
    """The label of one place of a dispute: in a group, a place's labels pool (two members
    of the group at one spot may be judged differently); alone, they must agree."""
    m = matches[index]
    if len(matches) == 1 or not m.labels:
        return m.value
    return _pool([lab.label for lab in m.labels])


def dispute_label(matches: Sequence[Match]) -> str:
    """The label of one dispute from its locations' labels (rule in the module docstring).

    A single location takes its labels' common value (disagreeing labels at one spot leave
    it UNLABELLED, to be labelled by its evidence); a group pools every matched label."""
    if len(matches) == 1:
        return _pool([matches[0].value])
    values = [lab.label for m in matches for lab in m.labels]
    values += [UNLABELLED for m in matches if not m.labels]
    return _pool(values)


def _pool(values: Sequence[str]) -> str:
    if "TRUE" in values:
        return "TRUE"
    if UNLABELLED in values or not values:
        return UNLABELLED
    if "DEBATABLE" in values:
        return "DEBATABLE"
    return "FALSE"
