"""The catalogue of static rules: what each rule claims, how sure it is, how to get out of it.

Each critic module declares the rules it can raise in a module-level `RULES` tuple of
`RuleInfo`; this module gathers them (importing the critic modules of the registry) so the
report, the docs and the tests read one table. A rule's entry is its contract with the
person reading a finding:

- `severity` is the rule's default; a critic may lower it for a context the rule documents
  (a test file, an unannotated function) but never raise it above the default.
- `confidence` says how often, on real history, a finding of this rule is right when read by
  a person: `high` (nearly always), `medium` (usually), `low` (worth a look). It breaks ties
  in the ranking after contention and severity, and a rule that blocks must be `high`.
- `why` is one sentence on why this rule's finding matters; `ways_out` are the
  evidence-bound ways to resolve a finding of *this* rule (never a generic sentence).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from contend.critics.static.base import Confidence, Finding, Language, Topic
from contend.protocol.model import Severity

__all__ = ["PYTHON", "Confidence", "RuleInfo", "catalogue", "rule_info"]

PYTHON: frozenset[Language] = frozenset({"python"})
_SEVERITY_RANK = {Severity.MINOR: 1, Severity.MAJOR: 2, Severity.CRITICAL: 3}


@dataclass(frozen=True, slots=True)
class RuleInfo:
    rule: str
    topic: Topic
    severity: Severity
    confidence: Confidence
    languages: frozenset[Language]
    why: str
    ways_out: tuple[str, ...]

    def finding(
        self,
        *,
        path: str,
        lines: tuple[int, int],
        claim: str,
        evidence: str,
        old_evidence: str | None = None,
        symbol: str | None = None,
        severity: Severity | None = None,
        confidence: Confidence | None = None,
        ways_out: tuple[str, ...] | None = None,
    ) -> Finding:
        """A finding of this rule. `severity` and `confidence` may lower the rule's
        defaults for a context the rule documents, never raise them."""
        chosen = self.severity if severity is None else severity
        if _SEVERITY_RANK[chosen] > _SEVERITY_RANK[self.severity]:
            raise ValueError(f"{self.rule}: severity {chosen} above the rule's {self.severity}")
        sure = self.confidence if confidence is None else confidence
        if sure.rank > self.confidence.rank:
            raise ValueError(f"{self.rule}: confidence {sure} above the rule's {self.confidence}")
        return Finding(
            topic=self.topic,
            rule=self.rule,
            severity=chosen,
            path=path,
            start_line=lines[0],
            end_line=lines[1],
            claim=claim,
            evidence=evidence,
            old_evidence=old_evidence,
            ways_out=self.ways_out if ways_out is None else ways_out,
            confidence=sure,
            symbol=symbol,
        )


def waiver_way(topic: Topic) -> str:
    """The way out every rule shares: concede the finding in code, with its reason."""
    return f"or waive it in code with a reason: `# contend: allow {topic.value} -- <reason>`"


def gather(modules: Iterable[str]) -> dict[str, RuleInfo]:
    """The rules declared by these critic modules (names under contend.critics.static)."""
    return _gather(modules)


def _gather(modules: Iterable[str]) -> dict[str, RuleInfo]:
    table: dict[str, RuleInfo] = {}
    for module in modules:
        loaded = importlib.import_module(f"contend.critics.static.{module}")
        rules = getattr(loaded, "RULES", None)
        if rules is None:
            raise TypeError(f"contend.critics.static.{module} declares no RULES")
        for info in rules:
            if info.rule in table and table[info.rule] != info:
                raise TypeError(f"rule {info.rule!r} is declared twice with different entries")
            table[info.rule] = info
    return table


@cache
def catalogue() -> dict[str, RuleInfo]:
    """Every rule declared by a registered critic module, by rule id."""
    from contend.critics.static.registry import MODULES

    return _gather([*MODULES, "waivers"])


def rule_info(rule: str) -> RuleInfo | None:
    """The catalogue entry of `rule`, or None for a rule no static critic declares (a model
    critic's own rule names, or a bandit test id, which `security` maps itself)."""
    return catalogue().get(rule)
