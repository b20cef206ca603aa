"""The Report as plain text for a terminal (`--format text`), readable at 100 columns.

No colour and no rich markup, so it is the same on a pipe and a TTY. It reads like
report.md (contend.report.layout): unresolved disputes most contended first, by file
and line within a rank, several rules on one place as one item, minor untouched ones on one
line. Untrusted text is shown with visible escapes (contend.report.escape): an agent's claim
or a file name must not be able to move the cursor, set the title or recolour the terminal,
and a newline in a name shows as `\\n`.
"""

from __future__ import annotations

import json
import textwrap

from pydantic import JsonValue

from contend.report.escape import visible
from contend.report.layout import (
    Item,
    by_file,
    by_rule,
    in_full,
    lines_of,
    same_places,
    shown_places,
    symbol_of,
    tiers,
    where,
)
from contend.report.model import Dispute, Exchange, Report, how_resolved

WIDTH = 100
EVIDENCE_LINES = 8


def clean(text: str) -> str:
    """Control characters (other than newline) shown as visible escapes; tabs → spaces."""
    return visible(text.replace("\t", "    "))


def one(text: str) -> str:
    """A single-line field (a path, a name, a command): a newline shows as `\\n`."""
    return visible(text, single_line=True)


def _wrap(text: str, indent: str, then: str | None = None) -> list[str]:
    """Wrap each line of `text` to WIDTH; `then` indents continuation lines (default: same)."""
    out: list[str] = []
    rest = indent if then is None else then
    for para in clean(text).strip().splitlines() or [""]:
        first = indent if not out else rest
        out += textwrap.wrap(
            para,
            width=WIDTH,
            initial_indent=first,
            subsequent_indent=rest,
            break_on_hyphens=False,
        ) or [first.rstrip()]
    return out


def _block(text: str, indent: str, limit: int, *, tail: bool = False) -> list[str]:
    """Text as-is (code keeps its layout), cut to `limit` lines (the last ones when `tail`,
    as a failing command prints its summary last) and to the width."""
    lines = clean(text).rstrip("\n").split("\n")
    room = WIDTH - len(indent)
    hidden = max(len(lines) - limit, 0)
    kept = lines[hidden:] if tail else lines[:limit]
    shown = [indent + (ln if len(ln) <= room else ln[: room - 1] + "…") for ln in kept]
    if hidden:
        note = f"{indent}… {hidden} {'earlier' if tail else 'more'} line(s) in report.md"
        shown = [note, *shown] if tail else [*shown, note]
    return shown


def _at(d: Dispute) -> str:
    symbol = symbol_of(d)
    return one(where(d)) + (f" in {one(symbol)}" if symbol else "")


def _rule(d: Dispute) -> str:
    return one(f"{d.topic}/{d.rule}" if d.rule else d.topic)


def render_text(report: Report) -> str:
    out = [f"contend review: {report.verdict.upper()} (exit {report.exit_code})"]
    out += _wrap("reasons: " + "; ".join(report.reasons), "", "  ")
    if report.caveats:
        out.append(f"caveats: the {len(report.caveats)} minor dispute(s) below stay open")
    spec = report.spec
    if spec.source is None:
        out.append("spec: none")
    else:
        out += _wrap(
            f"spec: {one(spec.source)}" + (f" ({one(spec.path)})" if spec.path else ""), ""
        )
    if report.headline is not None:
        d = report.dispute(report.headline)
        out += ["", f"headline: [{d.severity}] {_at(d)} (contention {d.contention})"]
        out += _wrap(d.claim, "  ")
    out += ["", f"Unresolved disputes ({len(report.disputes)}), most contended first:"]
    if not report.disputes:
        out.append("  none")
    for tier in tiers(report):
        out.append(f"  contention {tier.contention} · {tier.severity}:")
        brief: list[Dispute] = []
        for item in tier.items:
            if in_full(item, report):
                out += _full(item, report)
            else:
                brief += item.disputes
        out += _brief(brief)
    out += _resolved(report)
    out += _records("Deadlock reports", report.deadlocks)
    out += _failures(report)
    out += _gates(report)
    out += _records("Merges", report.merges)
    if report.skipped:
        out += ["", f"Skipped files ({len(report.skipped)}):"]
        for s in report.skipped:
            topic = f" [{one(s.topic)}]" if s.topic else ""
            out += _wrap(f"{one(s.path)}{topic}: {s.reason}", "  ")
    out += ["", *_stats(report)]
    return clean("\n".join(out) + "\n")


def _places(d: Dispute) -> str:
    shown, more = shown_places(d)
    listed = ", ".join(
        f"{lines_of(s)} ({one(s.symbol)})" if s.symbol else lines_of(s) for s in shown
    )
    return f"{len(d.locations)} places: lines {listed}" + (f", and {more} more" if more else "")


def _full(item: Item, report: Report) -> list[str]:
    d = item.main
    pressed = ", re-attacked" if d.re_attacked else ""
    out = [f"  - [{d.severity}] {d.id} {_at(d)}"]
    out += _wrap(
        f"{_rule(d)} by {one(d.critic)} ({one(d.family)}); status {d.status}; "
        f"contention {d.contention}{pressed}",
        "     ",
    )
    out += _wrap(d.claim, "     ")
    if len(d.locations) > 1:
        out += _wrap(_places(d), "     ")
    for other in item.also:
        out += _wrap(f"same place: {other.id} {_rule(other)}: {other.claim}", "     ")
    old = report.old_evidence.get(d.id)
    if old is not None and old.strip() == d.evidence.strip():
        out += ["     deleted by the change:", *_block(old, "     | ", EVIDENCE_LINES)]
    elif old is not None:
        out += ["     before the change:", *_block(old, "     | ", EVIDENCE_LINES)]
        out += ["     after the change:", *_block(d.evidence, "     | ", EVIDENCE_LINES)]
    else:
        out += _block(d.evidence, "     | ", EVIDENCE_LINES)
    for x in (d, *item.also):
        for answer in report.history.get(x.id, []):
            out += _wrap(f"{_who(answer)} {answer.action}: {answer.text or '(no text)'}", "     > ")
    return out


def _who(x: Exchange) -> str:
    if x.person is None:
        return one(x.by)
    return one(f"{x.by} ({x.person.name}, {x.person.source})")


def _brief(disputes: list[Dispute]) -> list[str]:
    """Minor, unanswered disputes: one line per file, then what each rule claims."""
    if not disputes:
        return []
    out = [f"  minor and unanswered, by file ({len(disputes)}):"]
    for path, found in by_file(disputes):
        listed = ", ".join(
            " + ".join(f"{d.id} {one(d.rule or d.topic)}" for d in same)
            + f" {lines_of(same[0].locations[0])}"
            + (f" (+{len(same[0].locations) - 1})" if len(same[0].locations) > 1 else "")
            for same in same_places(found)
        )
        out += _wrap(f"{one(path)}: {listed}", "  - ", "      ")
    for rule, found in by_rule(disputes):
        example = f"e.g. {found[0].id}: " if len(found) > 1 else ""
        out += _wrap(
            f"{one(rule)}, {len(found)} dispute(s): {example}{found[0].claim}", "  * ", "      "
        )
    return out


def _resolved(report: Report) -> list[str]:
    out = ["", f"Resolved ({len(report.resolved)}):"]
    if not report.resolved:
        return [*out, "  none"]
    for d in sorted(report.resolved, key=lambda d: (d.location.path, d.location.start_line)):
        res = how_resolved(d, report.history.get(d.id, []))
        out.append(f"  - {d.id} {d.status} [{d.severity}] {_at(d)}")
        out += _wrap(d.claim, "      ")
        who = f" ({one(res.person.name)}, {one(res.person.source)})" if res.person else ""
        out += _wrap(f"{res.how}{who}: {res.reason or '(no reason given)'}", "      ")
    return out


def _failures(report: Report) -> list[str]:
    if not report.failures:
        return []
    out = ["", f"Critic failures ({len(report.failures)}):"]
    for f in report.failures:
        rnd = f" round {f.round}" if f.round is not None else ""
        out += _wrap(
            f"{one(f.thread)} {f.role} {one(f.critic)} ({one(f.backend)}){rnd}: {f.kind}: "
            f"{f.error}",
            "  ",
            "    ",
        )
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
        when = f" ({one(g.when)})" if g.when else ""
        # The whole command, on one line of its own: wrapping would split it.
        out += [f"  {state}{when}{exit_txt}:", f"    $ {one(g.cmd)}"]
        if not g.ok:
            out += _block(g.output, "      | ", 20, tail=True)
    return out


def _stats(report: Report) -> list[str]:
    s = report.stats
    rate = "" if s.critic_found_bug_rate is None else f" ({s.critic_found_bug_rate:.1%})"
    families = ", ".join(s.families) if s.families else "none"
    failed = [t.name for t in report.threads if t.failed]
    out = [
        f"fixed or conceded by the author: {s.fixed + s.conceded} of {s.attacks}{rate}; "
        f"{s.unresolved} still open, {s.resolved} resolved, {s.dropped_attacks} dropped",
        f"rounds {s.rounds} · tokens {s.tokens_in} in / {s.tokens_out} out · cost ${s.cost:.4f} · "
        f"wall {s.wall_time_s:.1f} s · families: {one(families)}",
    ]
    if failed:
        out.append("failed critics: " + ", ".join(one(n) for n in failed))
    return out
