"""Every JS/TS rule is declared in the catalogue, and every finding agrees with its entry:
same topic, the rule's confidence, a severity no higher than the rule's default, a blocking
rule only at high confidence, and the enclosing function or test named."""

from __future__ import annotations

from contend.critics.static import (
    js_boundary_typing,
    js_concurrency,
    js_silent_fallback,
    js_weakened_tests,
)
from contend.critics.static.base import Confidence, Finding
from contend.critics.static.catalogue import _gather
from contend.critics.static.testing import change_from_texts
from contend.protocol.model import Severity

_MODULES = ["js_silent_fallback", "js_weakened_tests", "js_boundary_typing", "js_concurrency"]
_RANK = {Severity.MINOR: 0, Severity.MAJOR: 1, Severity.CRITICAL: 2}

OLD_SRC = """\
export async function save(store: Store, card: Card | undefined, items: Item[]) {
  if (!card) {
    throw new TypeError("card required");
  }
  await store.flush();
  return store.write(card.token, items);
}
"""
NEW_SRC = """\
export async function save(store: Store, card: Card | undefined, items: any) {
  // @ts-ignore
  store.flush();
  try {
    return store.write(card!.token, items as any);
  } catch {}
}
export class Counter {
  async bump(store: Store) {
    const n = this.count;
    await store.save(n);
    this.count = n + 1;
    return fetchCount().catch(() => 0);
  }
}
"""
OLD_TEST = """\
describe("save", () => {
  it("writes", () => {
    expect(save()).toBe(1);
    expect(calls).toBe(2);
  });
  it("throws", () => {
    expect(() => save()).toThrow(TypeError);
  });
  it("rounds", () => {
    expect(total()).toBeCloseTo(0.3, 5);
  });
  it("gone", () => {
    expect(gone()).toBe(0);
  });
});
"""
NEW_TEST = """\
describe("save", () => {
  it.only("writes", () => {
    expect(save()).toBeTruthy();
  });
  it.skip("throws", () => {
    expect(() => save()).toThrow();
  });
  it("rounds", () => {
    expect(total()).toBeCloseTo(0.3, 1);
  });
});
"""


def _findings() -> list[Finding]:
    changes = [
        change_from_texts("src/save.ts", OLD_SRC, NEW_SRC),
        change_from_texts("test/save.test.ts", OLD_TEST, NEW_TEST),
    ]
    found: list[Finding] = []
    for module in (js_silent_fallback, js_weakened_tests, js_boundary_typing, js_concurrency):
        found.extend(f for f in module.CRITIC.check(changes) if isinstance(f, Finding))
    return found


def test_every_finding_agrees_with_its_catalogue_entry() -> None:
    table = _gather(_MODULES)
    findings = _findings()
    assert len({f.rule for f in findings}) >= 14, sorted({f.rule for f in findings})
    for finding in findings:
        info = table[finding.rule]
        assert finding.topic == info.topic
        assert finding.confidence == info.confidence
        assert _RANK[finding.severity] <= _RANK[info.severity]
        assert finding.symbol, finding


def test_a_blocking_rule_is_a_high_confidence_rule() -> None:
    for info in _gather(_MODULES).values():
        if info.severity is not Severity.MINOR:
            assert info.confidence is Confidence.HIGH, info.rule
        assert info.why and info.ways_out
