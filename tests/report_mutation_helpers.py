"""Reports built directly from the report.json models, for the renderer tests of issue 18.

The renderers (Markdown, text, SARIF) are pure functions of a `Report`; building one
field by field lets a test set exactly the fact it is about (a symbol, a range, a person,
a failure's round) without driving a whole run through the reducer.
"""

from __future__ import annotations

from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from contend.protocol.model import Action, Severity, Status
from contend.report.model import (
    Dispute,
    Exchange,
    Failure,
    Gate,
    Location,
    Person,
    Report,
    Site,
    Skipped,
    Spec,
    Stats,
    Thread,
    Tool,
)


def site(
    line: int,
    end: int | None = None,
    *,
    path: str = "src/app.py",
    symbol: str | None = None,
    fingerprint: str | None = None,
) -> Site:
    return Site(
        path=path,
        start_line=line,
        end_line=line if end is None else end,
        symbol=symbol,
        fingerprint=fingerprint,
    )


def dispute(
    ident: str,
    *,
    severity: Severity = Severity.MAJOR,
    status: Status = Status.OPEN,
    sites: list[Site] | None = None,
    path: str = "src/app.py",
    line: int = 10,
    end: int | None = None,
    topic: str = "silent-fallback",
    rule: str = "swallowing-handler",
    claim: str | None = None,
    evidence: str = "return None",
    critic: str = "static",
    thread: str | None = None,
    family: str = "static",
    contention: int = 1,
    rounds_survived: int = 1,
    re_attacked: bool = False,
) -> Dispute:
    places = sites if sites is not None else [site(line, end, path=path)]
    first = places[0]
    return Dispute(
        id=ident,
        thread=thread if thread is not None else critic,
        critic=critic,
        family=family,
        topic=topic,
        rule=rule,
        severity=severity,
        status=status,
        location=Location(path=first.path, start_line=first.start_line, end_line=first.end_line),
        claim=claim if claim is not None else f"claim of {ident}",
        evidence=evidence,
        contention=contention,
        rounds_survived=rounds_survived,
        re_attacked=re_attacked,
        locations=places,
    )


def exchange(
    action: Action,
    by: str,
    text: str = "",
    *,
    seq: int = 1,
    evidence: str = "",
    round: int | None = None,
    in_source: bool = False,
    change_withdrawn: bool = False,
    person: Person | None = None,
) -> Exchange:
    return Exchange(
        seq=seq,
        action=action,
        by=by,
        text=text,
        evidence=evidence,
        round=round,
        in_source=in_source,
        change_withdrawn=change_withdrawn,
        person=person,
    )


def gate(
    cmd: str = "pytest -q",
    *,
    ok: bool = True,
    exit_code: int | None = 0,
    output: str = "",
    when: str | None = None,
) -> Gate:
    return Gate(name="gate", cmd=cmd, ok=ok, exit_code=exit_code, output=output, when=when)


def thread(
    name: str,
    *,
    critic: str | None = None,
    family: str = "static",
    model: str = "",
    backend: str = "static",
    topic: str | None = None,
    rounds: int = 1,
    ended: str | None = None,
    violations: list[str] | None = None,
    same_family_as_proposer: bool = False,
    failed: bool = False,
) -> Thread:
    return Thread(
        name=name,
        critic=critic or name,
        family=family,
        model=model,
        backend=backend,
        topic=topic,
        rounds=rounds,
        ended=ended,
        calls=1,
        failures=0,
        tokens_in=0,
        tokens_out=0,
        cost=0.0,
        dropped_attacks=0,
        violations=violations or [],
        same_family_as_proposer=same_family_as_proposer,
        failed=failed,
    )


def failure(
    *,
    thread: str = "claude",
    critic: str = "claude",
    role: str = "critic",
    round: int | None = None,
    backend: str = "claude",
    model: str = "claude-x",
    kind: str = "timeout",
    error: str = "no answer in 600 s",
) -> Failure:
    return Failure(
        thread=thread,
        critic=critic,
        role=role,
        round=round,
        backend=backend,
        model=model,
        kind=kind,
        error=error,
    )


def stats(**overrides: Any) -> Stats:
    fields: dict[str, Any] = {
        "attacks": 0,
        "unresolved": 0,
        "resolved": 0,
        "fixed": 0,
        "conceded": 0,
        "critic_found_bug_rate": None,
        "rounds": 1,
        "threads": 0,
        "calls": 0,
        "failures": 0,
        "tokens_in": 0,
        "tokens_out": 0,
        "cost": 0.0,
        "wall_time_s": 0.0,
        "families": [],
        "dropped_attacks": 0,
        "skipped_files": 0,
    }
    return Stats(**(fields | overrides))


def report(
    *,
    disputes: list[Dispute] | None = None,
    resolved: list[Dispute] | None = None,
    headline: str | None = None,
    verdict: str = "fail",
    exit_code: int = 1,
    reasons: list[str] | None = None,
    caveats: list[str] | None = None,
    spec: Spec | None = None,
    history: dict[str, list[Exchange]] | None = None,
    ways_out: dict[str, list[str]] | None = None,
    fingerprints: dict[str, str | None] | None = None,
    confidence: dict[str, str] | None = None,
    old_evidence: dict[str, str] | None = None,
    failures: list[Failure] | None = None,
    gates: list[Gate] | None = None,
    skipped: list[Skipped] | None = None,
    threads: list[Thread] | None = None,
    deadlocks: list[dict[str, Any]] | None = None,
    merges: list[dict[str, Any]] | None = None,
    run_stats: Stats | None = None,
    run_id: str = "run-1",
) -> Report:
    return Report(
        tool=Tool(version="9.9.9"),
        run_id=run_id,
        verdict=verdict,  # type: ignore[arg-type]  # a test may pick any verdict name
        exit_code=exit_code,
        reasons=reasons if reasons is not None else ["a reason"],
        caveats=caveats or [],
        headline=headline,
        spec=spec or Spec(source=None),
        disputes=disputes or [],
        resolved=resolved or [],
        history=history or {},
        ways_out=ways_out or {},
        fingerprints=fingerprints or {},
        confidence=confidence or {},
        old_evidence=old_evidence or {},
        failures=failures or [],
        gates=gates or [],
        skipped=skipped or [],
        threads=threads or [],
        deadlocks=deadlocks or [],
        merges=merges or [],
        stats=run_stats or stats(),
    )


def tokens(md: str) -> list[Token]:
    return MarkdownIt("commonmark").parse(md)


def section(md: str, heading: str) -> str:
    """The text of one `## ` section of report.md (up to the next `## ` heading)."""
    start = md.index(f"## {heading}")
    end = md.find("\n## ", start + 1)
    return md[start : end if end >= 0 else len(md)]


def headings(md: str) -> list[str]:
    toks = tokens(md)
    return [toks[i + 1].content for i, t in enumerate(toks) if t.type == "heading_open"]
