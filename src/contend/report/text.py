"""The Report as plain text for a terminal (`--format text`), readable at 100 columns.

No colour and no rich markup, so it is the same on a pipe and a TTY. Untrusted text is
stripped of control characters first: an agent's claim must not be able to move the cursor
or recolour the user's terminal (ANSI escapes are shown as visible `\\x1b`).
"""

from __future__ import annotations

import json
import re
import textwrap

from pydantic import JsonValue

from contend.report.model import Dispute, Report, how_resolved

WIDTH = 100
EVIDENCE_LINES = 8
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean(text: str) -> str:
    """Replace control characters (other than newline) with visible escapes; tabs → spaces."""
    text = text.replace("\t", "    ").replace("\r\n", "\n")
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _wrap(text: str, indent: str, then: str | None = None) -> list[str]:
    """Wrap each line of `text` to WIDTH; `then` indents continuation lines (default: same)."""
    out: list[str] = []
    rest = indent if then is None else then
    for para in clean(text).strip().splitlines() or [""]:
        first = indent if not out else rest
        out += textwrap.wrap(para, width=WIDTH, initial_indent=first, subsequent_indent=rest) or [
            first.rstrip()
        ]
    return out


def _block(text: str, indent: str, limit: int, *, tail: bool = False) -> list[str]:
    """Text as-is (code keeps its layout), cut to `limit` lines (the last ones when `tail`,
    as a failing command prints its summary last) and to the width."""
    lines = clean(text).rstrip("\n").splitlines()
    room = WIDTH - len(indent)
    hidden = max(len(lines) - limit, 0)
    kept = lines[hidden:] if tail else lines[:limit]
    shown = [indent + (ln if len(ln) <= room else ln[: room - 1] + "…") for ln in kept]
    if hidden:
        note = f"{indent}… {hidden} {'earlier' if tail else 'more'} line(s) in report.md"
        shown = [note, *shown] if tail else [*shown, note]
    return shown


def _where(d: Dispute) -> str:
    loc = d.location
    if loc.start_line <= 0:
        return loc.path
    span = f"-{loc.end_line}" if loc.end_line > loc.start_line else ""
    return f"{loc.path}:{loc.start_line}{span}"


def render_text(report: Report) -> str:
    out = [f"contend review: {report.verdict.upper()} (exit {report.exit_code})"]
    out += _wrap("reasons: " + "; ".join(report.reasons), "", "  ")
    spec = report.spec
    if spec.source is None:
        out.append("spec: none")
    else:
        out += _wrap(f"spec: {spec.source}" + (f" ({spec.path})" if spec.path else ""), "")
    if report.headline is not None:
        d = report.dispute(report.headline)
        out += ["", f"headline: [{d.severity}] {clean(_where(d))} (contention {d.contention})"]
        out += _wrap(d.claim, "  ")
    out += ["", f"Unresolved disputes ({len(report.disputes)}), by contention:"]
    if not report.disputes:
        out.append("  none")
    for rank, d in enumerate(report.disputes, start=1):
        out += _dispute(rank, d, report)
    out += ["", f"Resolved ({len(report.resolved)}):"]
    if not report.resolved:
        out.append("  none")
    for d in report.resolved:
        res = how_resolved(d, report.history.get(d.id, []))
        out.append(f"  - {d.id} {d.status} [{d.severity}] {clean(_where(d))}")
        out += _wrap(d.claim, "      ")
        out += _wrap(f"{res.how}: {res.reason or '(no reason given)'}", "      ")
    out += _records("Deadlock reports", report.deadlocks)
    out += _gates(report)
    out += _records("Merges", report.merges)
    if report.skipped:
        out += ["", f"Skipped files ({len(report.skipped)}):"]
        for s in report.skipped:
            topic = f" [{s.topic}]" if s.topic else ""
            out += _wrap(f"{s.path}{topic}: {s.reason}", "  ")
    out += ["", *_stats(report)]
    return "\n".join(out) + "\n"


def _dispute(rank: int, d: Dispute, report: Report) -> list[str]:
    pressed = ", re-attacked" if d.re_attacked else ""
    rule = f"/{d.rule}" if d.rule else ""
    out = [
        f"  {rank}. [{d.severity}] {d.id} {clean(_where(d))}",
        f"     {d.topic}{rule} by {clean(d.critic)} ({clean(d.family)}); status {d.status}; "
        f"contention {d.contention}{pressed}",
    ]
    out += _wrap(d.claim, "     ")
    out += _block(d.evidence, "     | ", EVIDENCE_LINES)
    for x in report.history.get(d.id, []):
        said = x.text or "(no text)"
        out += _wrap(f"{x.by} {x.action}: {said}", "     > ")
    return out


def _records(title: str, records: list[dict[str, JsonValue]]) -> list[str]:
    """Free-form engine records (oracle reports, merges): their scalar fields, one a line."""
    if not records:
        return []
    out = ["", f"{title} ({len(records)}):"]
    for record in records:
        first = True
        for key, value in record.items():
            if isinstance(value, dict | list):
                value = json.dumps(value, ensure_ascii=False)
            out += _wrap(f"{key}: {value}", "  - " if first else "    ", "    ")
            first = False
    return out


def _gates(report: Report) -> list[str]:
    if not report.gates:
        return []
    out = ["", "Gates:"]
    for g in report.gates:
        state = "ok " if g.ok else "RED"
        exit_txt = f" exit {g.exit_code}" if g.exit_code is not None else ""
        when = f" ({g.when})" if g.when else ""
        out += _wrap(f"{state} {g.name}{when}{exit_txt}: {g.cmd}", "  ")
        if not g.ok:
            out += _block(g.output, "      | ", 20, tail=True)
    return out


def _stats(report: Report) -> list[str]:
    s = report.stats
    rate = "n/a" if s.critic_found_bug_rate is None else f"{s.critic_found_bug_rate:.1%}"
    families = ", ".join(s.families) if s.families else "none"
    return [
        f"attacks {s.attacks} ({s.unresolved} open, {s.resolved} resolved, "
        f"{s.dropped_attacks} dropped) · critic-found-bug rate {rate} · rounds {s.rounds}",
        f"tokens {s.tokens_in} in / {s.tokens_out} out · cost ${s.cost:.4f} · "
        f"wall {s.wall_time_s:.1f} s · families: {clean(families)}",
    ]
