"""report.md: the Report as Markdown for a human (a PR comment body reads the same way).

Order is the contract of issue 4: headline, verdict and reasons, unresolved disputes ranked
by contention with the whole exchange, resolved ones and how, gates, skipped files, stats.
Every piece of text that came from an agent, a gate or the repository is untrusted: it goes
into a fence longer than any backtick run inside it, or is escaped inline, so it can neither
close its block nor inject Markdown/HTML into the page.
"""

from __future__ import annotations

import json
import re

from contend.report.model import Dispute, Exchange, Report, Stats, how_resolved

_BACKTICK_RUN = re.compile(r"`+")
# Characters that can start or change Markdown/HTML structure inline (CommonMark allows a
# backslash before any ASCII punctuation, so escaping them is always safe).
_INLINE_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&#!])")
# Line starts that would open a list, quote, heading, rule or setext heading.
_LINE_START = re.compile(r"^(\s*)(\d*)([-+=>.)])")


def fence(text: str, info: str = "") -> str:
    """A fenced code block that `text` cannot close: the fence is longer than any run of
    backticks inside it (and at least three)."""
    longest = max((len(m.group()) for m in _BACKTICK_RUN.finditer(text)), default=0)
    ticks = "`" * max(3, longest + 1)
    body = text if text.endswith("\n") else text + "\n"
    return f"{ticks}{info}\n{body}{ticks}"


def inline(text: str) -> str:
    """Escape untrusted text for a paragraph or list item; newlines become hard breaks."""
    lines = []
    # Blank lines would end the paragraph (or the list item) the text sits in.
    for line in filter(str.strip, text.strip().splitlines()):
        escaped = _INLINE_SPECIAL.sub(r"\\\1", line)
        # A digit cannot be backslash-escaped, so escape the list delimiter after it.
        lines.append(_LINE_START.sub(r"\1\2\\\3", escaped))
    return "  \n".join(lines)


def one_line(text: str) -> str:
    """Escaped text flattened to one line, for headings and emphasis."""
    return inline(" ".join(text.split()))


def code(text: str) -> str:
    """An inline code span that `text` cannot break out of (single line only)."""
    flat = " ".join(text.split())
    longest = max((len(m.group()) for m in _BACKTICK_RUN.finditer(flat)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{ticks}{pad}{flat}{pad}{ticks}"


def where(d: Dispute) -> str:
    loc = d.location
    if loc.start_line <= 0:
        return loc.path
    if loc.end_line > loc.start_line:
        return f"{loc.path}:{loc.start_line}-{loc.end_line}"
    return f"{loc.path}:{loc.start_line}"


def render_markdown(report: Report) -> str:
    parts = [f"# contend review: {report.verdict.replace('_', ' ')}", ""]
    parts += _headline(report)
    parts += _verdict(report)
    parts += _unresolved(report)
    parts += _deadlocks(report)
    parts += _resolved(report)
    parts += _gates(report)
    parts += _merges(report)
    parts += _skipped(report)
    parts += _stats(report.stats, report)
    return "\n".join(parts).rstrip("\n") + "\n"


def _headline(report: Report) -> list[str]:
    out = ["## Headline", ""]
    if report.headline is None:
        return [*out, "No unresolved dispute.", ""]
    d = report.dispute(report.headline)
    return [
        *out,
        f"**[{d.severity}] {one_line(d.claim)}**",
        "",
        f"At {code(where(d))}, {d.topic} (rule {code(d.rule or '-')}), raised by "
        f"{code(d.critic)} ({inline(d.family)}); contention {d.contention}.",
        "",
        fence(d.evidence),
        "",
    ]


def _verdict(report: Report) -> list[str]:
    out = ["## Verdict", "", f"**{report.verdict}** (exit code {report.exit_code})", ""]
    out += [f"- {inline(r)}" for r in report.reasons]
    if report.caveats:
        out += ["", "Caveats:", ""]
        out += [f"- {inline(c)}" for c in report.caveats]
    spec = report.spec
    if spec.source is None:
        out += ["", "Spec: none was given; critics reviewed the change without one."]
    else:
        origin = f" ({code(spec.path)})" if spec.path else ""
        out += ["", f"Spec: from {inline(spec.source)}{origin}."]
    return [*out, ""]


def _facts(d: Dispute) -> str:
    pressed = ", re-attacked" if d.re_attacked else ""
    return (
        f"- {code(d.id)} at {code(where(d))} · {d.topic} / {code(d.rule or '-')} · "
        f"critic {code(d.critic)} ({inline(d.family)}), thread {code(d.thread)} · "
        f"status **{d.status}** · contention {d.contention} "
        f"(survived {d.rounds_survived} round(s){pressed})"
    )


def _exchanges(exchanges: list[Exchange]) -> list[str]:
    if not exchanges:
        return ["No answer was given.", ""]
    out = ["Exchange:", ""]
    for n, x in enumerate(exchanges, start=1):
        rnd = f"round {x.round}, " if x.round is not None else ""
        waiver = " (in-code waiver)" if x.in_source else ""
        said = inline(x.text) if x.text.strip() else "*(no text)*"
        out.append(f"{n}. {rnd}{code(x.by)} — **{x.action}**{waiver}: {said}")
        if x.evidence.strip():
            out += ["", _indent(fence(x.evidence), 3), ""]
    return [*out, ""]


def _indent(text: str, width: int) -> str:
    pad = " " * width
    return "\n".join(pad + line if line else line for line in text.splitlines())


def _unresolved(report: Report) -> list[str]:
    out = [f"## Unresolved disputes ({len(report.disputes)}), ranked by contention", ""]
    if not report.disputes:
        return [*out, "None.", ""]
    for rank, d in enumerate(report.disputes, start=1):
        out += [f"### {rank}. [{d.severity}] {one_line(d.claim)}", "", _facts(d), ""]
        out += ["Evidence:", "", fence(d.evidence), ""]
        ways = report.ways_out.get(d.id, [])
        if ways:
            out += ["Ways out:", "", *(f"- {inline(w)}" for w in ways), ""]
        out += _exchanges(report.history.get(d.id, []))
    return out


def _deadlocks(report: Report) -> list[str]:
    if not report.deadlocks:
        return []
    out = ["## Deadlock reports", ""]
    for dl in report.deadlocks:
        out += [fence(_json_text(dl), "json"), ""]
    return out


def _resolved(report: Report) -> list[str]:
    out = [f"## Resolved ({len(report.resolved)})", ""]
    if not report.resolved:
        return [*out, "None.", ""]
    for d in report.resolved:
        exchanges = report.history.get(d.id, [])
        res = how_resolved(d, exchanges)
        reason = inline(res.reason) if res.reason.strip() else "*(no reason given)*"
        out += [f"### {code(d.id)} {d.status}: {one_line(d.claim)}", "", _facts(d)]
        out += [f"- how: {res.how}", f"- reason: {reason}", ""]
        out += _exchanges(exchanges)
    return out


def _gates(report: Report) -> list[str]:
    out = ["## Gates", ""]
    if not report.gates:
        return [*out, "No gate was configured.", ""]
    for g in report.gates:
        mark = "green" if g.ok else "**RED**"
        when = f" ({inline(g.when)})" if g.when else ""
        code_txt = f", exit {g.exit_code}" if g.exit_code is not None else ""
        out.append(f"- {inline(g.name)}{when}: {mark}{code_txt} — {code(g.cmd)}")
    for g in report.gates:
        if not g.ok:
            out += ["", f"Output of red gate {inline(g.name)}:", "", fence(g.output)]
    return [*out, ""]


def _merges(report: Report) -> list[str]:
    if not report.merges:
        return []
    out = ["## Merges", ""]
    for m in report.merges:
        out += [fence(_json_text(m), "json"), ""]
    return out


def _skipped(report: Report) -> list[str]:
    out = [f"## Skipped files ({len(report.skipped)})", ""]
    if not report.skipped:
        return [*out, "None.", ""]
    for s in report.skipped:
        topic = f" [{s.topic}]" if s.topic else ""
        out.append(f"- {code(s.path)}{topic}: {inline(s.reason)}")
    return [*out, ""]


def _stats(stats: Stats, report: Report) -> list[str]:
    rate = (
        "n/a (no attacks)"
        if stats.critic_found_bug_rate is None
        else f"{stats.critic_found_bug_rate:.1%} ({stats.fixed} fixed + {stats.conceded} "
        f"conceded of {stats.attacks} attacks)"
    )
    families = ", ".join(stats.families) if stats.families else "none"
    out = [
        "## Stats",
        "",
        f"- critic-found-bug rate: {rate}",
        f"- attacks: {stats.attacks} ({stats.unresolved} unresolved, {stats.resolved} resolved,"
        f" {stats.dropped_attacks} dropped for lacking location or evidence)",
        f"- rounds: {stats.rounds}",
        f"- tokens: {stats.tokens_in} in, {stats.tokens_out} out",
        f"- cost: ${stats.cost:.4f}",
        f"- wall time: {stats.wall_time_s:.1f} s",
        f"- model families ({len(stats.families)}): {inline(families)}",
        f"- threads: {stats.threads}, agent calls: {stats.calls}, failures: {stats.failures}",
    ]
    for t in report.threads:
        ended = f", ended: {t.ended}" if t.ended else ""
        topic = f", topic {inline(t.topic)}" if t.topic else ""
        out.append(
            f"  - {code(t.name)}: critic {code(t.critic)} ({inline(t.family)}"
            f"{', ' + inline(t.model) if t.model else ''}){topic}, {t.rounds} round(s){ended}"
        )
        if t.same_family_as_proposer:
            out.append(
                "    - **same model family as the proposer**: its blind spots may be the author's"
            )
        for violation in t.violations:
            out.append(f"    - protocol violation: {inline(violation)}")
    if report.run_id:
        out += ["", f"Run {code(report.run_id)}, report schema {code('contend.report/v1')}."]
    return [*out, ""]


def _json_text(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)
