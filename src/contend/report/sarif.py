"""report.sarif: the Report as one SARIF 2.1.0 run, for code-scanning UIs.

Every attack is a result, resolved ones included — one result per place, so a grouped
dispute (one rule, one file, several places) shows at each of its lines, each with its own
fingerprint and the dispute's id in `properties.id`. A dispute's status travels as SARIF
suppressions (resolved: status "accepted", kind "inSource" for an in-code waiver, else
"external", justification = the recorded reason) and baselineState (new / unchanged /
absent for a verified fix). Unresolved attacks never carry a suppression, so no consumer
can hide them. Every failed agent call is a `toolExecutionNotifications` entry of the run's
invocation (which then did not execute successfully).

Viewers display the strings of a log: every string passes contend.report.escape.visible
(control characters shown, not sent), and the file is written with no raw control byte.
Pure: returns a dict; `render_sarif` gives the file text.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from contend.protocol.model import Severity, Status
from contend.report.escape import json_text, visible
from contend.report.model import Dispute, Failure, Report, Site, how_resolved

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
FINGERPRINT_KEY = "contendFingerprint/v1"

_LEVEL = {Severity.CRITICAL: "error", Severity.MAJOR: "error", Severity.MINOR: "warning"}


def rule_id(d: Dispute) -> str:
    """The SARIF ruleId: the critic's rule, or its topic when a model critic gave none."""
    return f"{d.topic}/{d.rule}" if d.rule else d.topic


def sarif_log(report: Report) -> dict[str, Any]:
    disputes = [*report.disputes, *report.resolved]
    rules: dict[str, dict[str, Any]] = {}
    for d in disputes:
        rules.setdefault(rule_id(d), _rule(d))
    index = {rid: i for i, rid in enumerate(rules)}
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "contend",
                "version": report.tool.version,
                "rules": list(rules.values()),
            }
        },
        "invocations": [
            {
                "executionSuccessful": not report.failures,
                "toolExecutionNotifications": [_notification(f) for f in report.failures],
            }
        ],
        "results": [
            *(
                _result(report, d, site, index[rule_id(d)], resolved=False)
                for d in report.disputes
                for site in d.locations
            ),
            *(
                _result(report, d, site, index[rule_id(d)], resolved=True)
                for d in report.resolved
                for site in d.locations
            ),
        ],
        "properties": {
            "verdict": report.verdict,
            "exitCode": report.exit_code,
            "reasons": list(report.reasons),
            "headline": report.headline,
            "reportSchema": "contend.report/v1",
        },
    }
    if report.run_id:
        run["automationDetails"] = {"id": f"contend/{report.run_id}"}
    log = {"$schema": SARIF_SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}
    shown: dict[str, Any] = _visible(log)
    return shown


def render_sarif(report: Report) -> str:
    return json_text(sarif_log(report)) + "\n"


def _visible(value: Any) -> Any:
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, dict):
        return {k: _visible(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_visible(v) for v in value]
    return value


def _notification(f: Failure) -> dict[str, Any]:
    rnd = f" in round {f.round}" if f.round is not None else ""
    return {
        "level": "error",
        "message": {
            "text": f"{f.role} {f.critic} of thread {f.thread} ({f.backend}, {f.model}) "
            f"failed{rnd}: {f.kind}: {f.error}"
        },
        "descriptor": {"id": f"contend/agent-failed/{f.kind}"},
        "properties": {
            "thread": f.thread,
            "critic": f.critic,
            "role": f.role,
            "round": f.round,
            "backend": f.backend,
            "model": f.model,
            "kind": f.kind,
        },
    }


def _rule(d: Dispute) -> dict[str, Any]:
    name = f"{d.topic} / {d.rule}" if d.rule else d.topic
    return {
        "id": rule_id(d),
        "shortDescription": {"text": f"contend {name} ({d.critic})"},
        "defaultConfiguration": {"level": _LEVEL[d.severity]},
        "properties": {"topic": d.topic, "tags": [d.topic]},
    }


def _result(
    report: Report, d: Dispute, site: Site, rule_index: int, *, resolved: bool
) -> dict[str, Any]:
    fingerprint = site.fingerprint or report.fingerprints.get(d.id) or d.id
    message = d.claim if d.claim.strip() else f"{d.topic} attack {d.id}"
    if len(d.locations) > 1:
        message += f" (one of {len(d.locations)} places of {d.id})"
    result: dict[str, Any] = {
        "ruleId": rule_id(d),
        "ruleIndex": rule_index,
        "level": _LEVEL[d.severity],
        "message": {"text": message},
        "locations": [_location(site)],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
        "properties": {
            "id": d.id,
            "severity": str(d.severity),
            "status": str(d.status),
            "contention": d.contention,
            "roundsSurvived": d.rounds_survived,
            "reAttacked": d.re_attacked,
            "topic": d.topic,
            "critic": d.critic,
            "family": d.family,
            "thread": d.thread,
            "evidence": d.evidence,
            **({"symbol": site.symbol} if site.symbol else {}),
            **({"confidence": report.confidence[d.id]} if d.id in report.confidence else {}),
            **({"oldEvidence": report.old_evidence[d.id]} if d.id in report.old_evidence else {}),
        },
        "baselineState": _baseline(d, resolved=resolved),
    }
    if resolved:
        res = how_resolved(d, report.history.get(d.id, []))
        result["suppressions"] = [
            {
                "kind": "inSource" if res.in_source else "external",
                "status": "accepted",
                "justification": f"{d.status}: {res.reason}" if res.reason else str(d.status),
            }
        ]
    return result


def _location(loc: Site) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": quote(loc.path, safe="/")}}
    # A whole-file attack (line 0) has no region: SARIF lines are 1-based.
    if loc.start_line >= 1:
        physical["region"] = {
            "startLine": loc.start_line,
            "endLine": max(loc.end_line, loc.start_line),
        }
    return {"physicalLocation": physical}


def _baseline(d: Dispute, *, resolved: bool) -> str:
    """Relative to the review's first round: a verified fix is gone ("absent"); anything
    that outlived a round was already there ("unchanged"); the rest appeared now ("new")."""
    if resolved and d.status is Status.FIXED:
        return "absent"
    return "unchanged" if d.rounds_survived > 0 else "new"
