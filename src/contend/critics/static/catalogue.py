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

from contend.critics.static.base import Confidence, Language, Topic
from contend.protocol.model import Severity

__all__ = ["Confidence", "RuleInfo", "catalogue", "rule_info"]


@dataclass(frozen=True, slots=True)
class RuleInfo:
    rule: str
    topic: Topic
    severity: Severity
    confidence: Confidence
    languages: frozenset[Language]
    why: str
    ways_out: tuple[str, ...]


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
