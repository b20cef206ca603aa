"""report.sarif: the Report as one SARIF 2.1.0 run, for code-scanning UIs.

Every attack is a result, resolved ones included: a dispute's status travels as SARIF
suppressions (resolved: status "accepted", kind "inSource" for an in-code waiver, else
"external", justification = the recorded reason) and baselineState (new / unchanged /
absent for a verified fix). Unresolved attacks never carry a suppression, so no consumer
can hide them. Pure: returns a dict; `render_sarif` gives the file text.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from contend.protocol.model import Severity, Status
from contend.report.model import Dispute, Report, how_resolved

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
        "results": [
            *(_result(report, d, index[rule_id(d)], resolved=False) for d in report.disputes),
            *(_result(report, d, index[rule_id(d)], resolved=True) for d in report.resolved),
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
    return {"$schema": SARIF_SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}


def render_sarif(report: Report) -> str:
    return json.dumps(sarif_log(report), indent=2, ensure_ascii=False) + "\n"


def _rule(d: Dispute) -> dict[str, Any]:
    name = f"{d.topic} / {d.rule}" if d.rule else d.topic
    return {
        "id": rule_id(d),
        "shortDescription": {"text": f"contend {name} ({d.critic})"},
        "defaultConfiguration": {"level": _LEVEL[d.severity]},
        "properties": {"topic": d.topic, "tags": [d.topic]},
    }


def _result(report: Report, d: Dispute, rule_index: int, *, resolved: bool) -> dict[str, Any]:
    fingerprint = report.fingerprints.get(d.id) or d.id
    result: dict[str, Any] = {
        "ruleId": rule_id(d),
        "ruleIndex": rule_index,
        "level": _LEVEL[d.severity],
        "message": {"text": d.claim if d.claim.strip() else f"{d.topic} attack {d.id}"},
        "locations": [_location(d)],
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


def _location(d: Dispute) -> dict[str, Any]:
    loc = d.location
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
