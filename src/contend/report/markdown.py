"""report.md: the Report as Markdown for a human (a PR comment body reads the same way).

Order: headline, verdict and reasons, unresolved disputes (most contended first; within a
rank, by file and line; several rules on the same place read as one item; a big group
lists its places compactly), deadlock reports, resolved ones and how, critic failures,
gates, skipped files, stats. A dispute that can block, was contested or was answered is
shown in full; minor, untouched ones read as one line each, so the report of a sweeping
change stays short (every place is still in report.json).

Untrusted text goes through contend.report.mdtext (fences, code spans, escaped prose), and
the finished page through contend.report.escape.visible once more: no control character
reaches the file raw.
"""

from __future__ import annotations

import json

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
from contend.report.mdtext import code, fence, inline, label, one_line
from contend.report.model import Dispute, Exchange, Person, Report, Thread, how_resolved

__all__ = ["code", "fence", "inline", "one_line", "render_markdown"]

# More caveats than this are not repeated: they are the unresolved disputes listed below.
CAVEATS_LISTED = 5
# Answers that make a resolved dispute's exchange worth reading in full.
_CONTESTED = frozenset({"defend", "re_attack", "deadlock", "uphold", "overrule", "waive"})


def render_markdown(report: Report) -> str:
    parts = [f"# contend review: {report.verdict.replace('_', ' ')}", ""]
    parts += _headline(report)
    parts += _verdict(report)
    parts += _unresolved(report)
    parts += _deadlocks(report)
    parts += _resolved(report)
    parts += _failures(report)
    parts += _gates(report)
    parts += _merges(report)
    parts += _skipped(report)
    parts += _stats(report)
    return visible("\n".join(parts).rstrip("\n") + "\n")


def _in_symbol(d: Dispute) -> str:
    symbol = symbol_of(d)
    return f" in {code(symbol)}" if symbol else ""


def _rule(d: Dispute) -> str:
    return f"{label(d.topic)} / {code(d.rule or '-')}"


def _confidence(d: Dispute, report: Report) -> str:
    level = report.confidence.get(d.id)
    return f", confidence {level}" if level else ""


def _headline(report: Report) -> list[str]:
    out = ["## Headline", ""]
    if report.headline is None:
        return [*out, "No unresolved dispute.", ""]
    d = report.dispute(report.headline)
    places = ["", f"The same in {_places(d)}."] if len(d.locations) > 1 else []
    return [
        *out,
        f"**[{d.severity}] {one_line(d.claim)}**",
        "",
        f"At {code(where(d))}{_in_symbol(d)}: {_rule(d)}{_confidence(d, report)}; raised by "
        f"{code(d.critic)} ({label(d.family)}); contention {d.contention}.",
        *places,
        "",
        *_code_blocks(d, report),
        *_ways(report.ways_out.get(d.id, [])),
    ]


def _ways(ways: list[str]) -> list[str]:
    if not ways:
        return []
    return ["Ways out:", "", *(f"- {inline(w)}" for w in ways), ""]


def _code_blocks(d: Dispute, report: Report, indent: int = 0) -> list[str]:
    """The evidence; for what the change removed or widened, the code before it too —
    and code the change deleted once, as deleted."""
    old = report.old_evidence.get(d.id)
    if old is None:
        blocks = [("Evidence:", d.evidence)]
    elif old.strip() == d.evidence.strip():
        blocks = [("Deleted by the change:", old)]
    else:
        blocks = [("Before the change:", old), ("After the change:", d.evidence)]
    out: list[str] = []
    for title, text in blocks:
        out += [_indent(title, indent), "", _indent(fence(text), indent), ""]
    return out


def _verdict(report: Report) -> list[str]:
    out = ["## Verdict", "", f"**{report.verdict}** (exit code {report.exit_code})", ""]
    out += [f"- {inline(r)}" for r in report.reasons]
    if len(report.caveats) > CAVEATS_LISTED:
        out += [
            "",
            f"Caveats: the {len(report.caveats)} minor disputes listed below stay open; this "
            "conditional pass accepts them.",
        ]
    elif report.caveats:
        out += ["", "Caveats (minor, accepted with this conditional pass):", ""]
        out += [f"- {inline(c)}" for c in report.caveats]
    spec = report.spec
    if spec.source is None:
        out += ["", "Spec: none was given; critics reviewed the change without one."]
    else:
        origin = f" ({code(spec.path)})" if spec.path else ""
        out += ["", f"Spec: from {label(spec.source)}{origin}."]
    return [*out, ""]


def _places(d: Dispute) -> str:
    shown, more = shown_places(d)
    listed = ", ".join(
        f"{lines_of(s)} ({code(s.symbol)})" if s.symbol else lines_of(s) for s in shown
    )
    rest = f", and {more} more (all in report.json)" if more else ""
    return f"{len(d.locations)} places, lines {listed}{rest}"


def _facts(d: Dispute, report: Report) -> list[str]:
    pressed = ", re-attacked" if d.re_attacked else ""
    thread = f", thread {code(d.thread)}" if d.thread != d.critic else ""
    out = [
        f"- at {code(where(d))}{_in_symbol(d)} · {_rule(d)}{_confidence(d, report)}",
        f"- critic {code(d.critic)} ({label(d.family)}){thread} · status **{d.status}** · "
        f"contention {d.contention} (survived {d.rounds_survived} round(s){pressed})",
    ]
    if len(d.locations) > 1:
        out.append(f"- {_places(d)}")
    return out


def _person(person: Person) -> str:
    email = f" {code(person.email)}" if person.email else ""
    return f"{label(person.name)}{email}, from {label(person.source)}"


def _who(x: Exchange) -> str:
    if x.person is None:
        return code(x.by)
    return f"{code(x.by)} ({_person(x.person)})"


def _exchanges(exchanges: list[Exchange], indent: int = 0) -> list[str]:
    out: list[str] = []
    for n, x in enumerate(exchanges, start=1):
        rnd = f"round {x.round}, " if x.round is not None else ""
        waiver = " (in-code waiver)" if x.in_source else ""
        said = inline(x.text) if x.text.strip() else "*(no text)*"
        out.append(_indent(f"{n}. {rnd}{_who(x)} — **{x.action}**{waiver}: {said}", indent))
        if x.evidence.strip():
            out += ["", _indent(fence(x.evidence), indent + 3), ""]
    return out


def _indent(text: str, width: int) -> str:
    pad = " " * width
    return "\n".join(pad + line if line else line for line in text.splitlines())


def _unresolved(report: Report) -> list[str]:
    out = [
        f"## Unresolved disputes ({len(report.disputes)}): most contended first, "
        "then by file and line",
        "",
    ]
    if not report.disputes:
        return [*out, "None.", ""]
    for tier in tiers(report):
        count = sum(len(item.disputes) for item in tier.items)
        out += [f"### Contention {tier.contention} · {tier.severity} ({count})", ""]
        brief: list[Dispute] = []
        for item in tier.items:
            if in_full(item, report):
                out += _full(item, report)
            else:
                brief += item.disputes
        out += _brief(brief, report)
    return out


def _full(item: Item, report: Report) -> list[str]:
    d = item.main
    out = [f"#### {code(d.id)} [{d.severity}] {one_line(d.claim)}", "", *_facts(d, report)]
    for other in item.also:
        out.append(
            f"- same place: {code(other.id)} [{other.severity}] {_rule(other)}, "
            f"status **{other.status}**: {one_line(other.claim)}"
        )
    out.append("")
    if d.id == report.headline:
        out += ["Evidence and ways out: in the headline above.", ""]
    else:
        out += [*_code_blocks(d, report), *_ways(report.ways_out.get(d.id, []))]
    for x in (d, *item.also):
        exchanges = report.history.get(x.id, [])
        if exchanges:
            out += [f"Exchange on {code(x.id)}:", "", *_exchanges(exchanges), ""]
    if not any(report.history.get(x.id) for x in item.disputes):
        out += ["No answer yet.", ""]
    return out


def _brief(disputes: list[Dispute], report: Report) -> list[str]:
    """Minor, unanswered disputes: one line per file (each dispute's id, rule, first line
    and how many more places), then once per rule what it claims and the ways out."""
    if not disputes:
        return []
    out = [f"Minor and unanswered, by file ({len(disputes)}):", ""]
    for path, found in by_file(disputes):
        listed = " · ".join(
            " + ".join(f"{code(d.id)} {label(d.rule or d.topic)}" for d in same)
            + f" {lines_of(same[0].locations[0])}"
            + (f" (+{len(same[0].locations) - 1})" if len(same[0].locations) > 1 else "")
            for same in same_places(found)
        )
        out.append(f"- {code(path)}: {listed}")
    out += ["", "What each rule says, and the ways out:", ""]
    for rule, found in by_rule(disputes):
        first = found[0]
        example = f"e.g. {code(first.id)}: " if len(found) > 1 else ""
        ways = report.ways_out.get(first.id, [])
        ways_txt = f" Ways out: {inline('; '.join(ways))}" if ways else ""
        out.append(
            f"- {code(rule)} ({label(first.topic)}), {len(found)} dispute(s); "
            f"{example}{one_line(first.claim)}.{ways_txt}"
        )
    return [*out, ""]


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
    for d in sorted(report.resolved, key=lambda d: (d.location.path, d.location.start_line)):
        exchanges = report.history.get(d.id, [])
        res = how_resolved(d, exchanges)
        reason = inline(res.reason) if res.reason.strip() else "*(no reason given)*"
        places = f" ({_places(d)})" if len(d.locations) > 1 else ""
        who = f" ({_person(res.person)})" if res.person is not None else ""
        out.append(
            f"- {code(d.id)} **{d.status}** at {code(where(d))}{_in_symbol(d)} · {_rule(d)}: "
            f"{one_line(d.claim)}{places} — {inline(res.how)}{who}: {reason}"
        )
        # The exchange is worth reading when there was one: more than a lone decision or
        # the usual answer-and-judgement pair, or a defense and a re-attack on the way.
        contested = len(exchanges) > 1 and any(x.action in _CONTESTED for x in exchanges)
        if len(exchanges) > 2 or contested:
            out += _exchanges(exchanges, indent=2)
    return [*out, ""]


def _failures(report: Report) -> list[str]:
    if not report.failures:
        return []
    out = [f"## Critic failures ({len(report.failures)})", ""]
    for f in report.failures:
        rnd = f", round {f.round}" if f.round is not None else ""
        out.append(
            f"- {code(f.thread)} {label(f.role)} {code(f.critic)} ({label(f.backend)}, "
            f"{label(f.model)}){rnd}: **{label(f.kind)}** — {inline(f.error)}"
        )
    return [*out, ""]


def _gates(report: Report) -> list[str]:
    out = ["## Gates", ""]
    if not report.gates:
        return [*out, "No gate was configured.", ""]
    for g in report.gates:
        mark = "green" if g.ok else "**RED**"
        when = f" ({label(g.when)})" if g.when else ""
        exit_txt = f", exit {g.exit_code}" if g.exit_code is not None else ""
        out.append(f"- {code(g.cmd)}{when}: {mark}{exit_txt}")
    for g in report.gates:
        if not g.ok:
            out += ["", f"Output of red gate {code(g.cmd)}:", "", fence(g.output)]
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
        topic = f" [{label(s.topic)}]" if s.topic else ""
        out.append(f"- {code(s.path)}{topic}: {inline(s.reason)}")
    return [*out, ""]


def _stats(report: Report) -> list[str]:
    stats = report.stats
    rate = "" if stats.critic_found_bug_rate is None else f" ({stats.critic_found_bug_rate:.1%})"
    families = ", ".join(stats.families) if stats.families else "none"
    out = [
        "## Stats",
        "",
        f"- fixed or conceded by the author: {stats.fixed + stats.conceded} of "
        f"{stats.attacks}{rate} — the critic-found-bug rate; {stats.unresolved} still open, "
        f"{stats.resolved} resolved, {stats.dropped_attacks} dropped for lacking location "
        "or evidence",
        f"- rounds: {stats.rounds} · tokens: {stats.tokens_in} in, {stats.tokens_out} out · "
        f"cost: ${stats.cost:.4f} · wall time: {stats.wall_time_s:.1f} s",
        f"- model families ({len(stats.families)}): {label(families)}",
        f"- threads: {stats.threads}, agent calls: {stats.calls}, failures: {stats.failures}",
        *_threads(report.threads),
    ]
    if report.run_id:
        out += ["", f"Run {code(report.run_id)}, report schema {code('contend.report/v1')}."]
    return [*out, ""]


def _threads(threads: list[Thread]) -> list[str]:
    # Static critics that finished their round and wait for the author read as one line.
    waiting = [
        t
        for t in threads
        if t.backend == "static"
        and t.ended == "awaiting_author"
        and not t.failed
        and not t.violations
    ]
    out = []
    if waiting:
        names = ", ".join(code(t.topic or t.name) for t in waiting)
        rounds = max(t.rounds for t in waiting)
        out.append(
            f"  - static critics {names}: {rounds} round(s), waiting for the author's next review"
        )
    for t in threads:
        if t in waiting:
            continue
        ended = f", ended: {label(t.ended)}" if t.ended and not t.failed else ""
        failed = ", **failed** (see Critic failures)" if t.failed else ""
        topic = f", topic {label(t.topic)}" if t.topic else ""
        model = f", {label(t.model)}" if t.model else ""
        out.append(
            f"  - {code(t.name)}: critic {code(t.critic)} ({label(t.family)}{model}){topic}, "
            f"{t.rounds} round(s){ended}{failed}"
        )
        if t.same_family_as_proposer:
            out.append(
                "    - **same model family as the proposer**: its blind spots may be the author's"
            )
        out += [f"    - protocol violation: {inline(v)}" for v in t.violations]
    return out


def _json_text(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)
