"""TypeScript boundary typing and JS/TS concurrency hazards (issue 17), calibrated like the
Python critics: block only where the change demonstrably weakens a check; taste is minor."""

from __future__ import annotations

from textwrap import dedent
from types import ModuleType

import pytest

from contend.critics.static import js_boundary_typing, js_concurrency
from contend.critics.static.base import Finding, Topic
from contend.critics.static.registry import critics_for
from contend.critics.static.testing import change_from_texts
from contend.protocol.model import Severity


def _src(text: str) -> str:
    return dedent(text).lstrip("\n")


def run(module: ModuleType, path: str, old: str | None, new: str) -> list[Finding]:
    change = change_from_texts(path, _src(old) if old is not None else None, _src(new))
    results = list(module.CRITIC.check([change]))
    assert all(isinstance(r, Finding) for r in results), results
    return [r for r in results if isinstance(r, Finding)]


def rules(findings: list[Finding]) -> list[tuple[str, int, Severity]]:
    return [(f.rule, f.start_line, f.severity) for f in findings]


def test_registered_under_the_existing_topics() -> None:
    typing_critics = critics_for({Topic.BOUNDARY_TYPING})
    assert any("typescript" in c.languages for c in typing_critics)
    concurrency = critics_for({Topic.CONCURRENCY})
    assert any("javascript" in c.languages for c in concurrency)


# --- boundary typing -----------------------------------------------------------------------

TYPED = """
export function total(items: Item[]): number {
  return items.reduce((sum, item) => sum + item.price, 0);
}
"""


def test_as_any_added_is_minor() -> None:
    new = TYPED.replace("items.reduce", "(items as any).reduce")
    findings = run(js_boundary_typing, "src/total.ts", TYPED, new)
    assert rules(findings) == [("ts-cast-to-any-added", 2, Severity.MINOR)]
    assert findings[0].symbol == "total"


def test_any_annotation_replacing_a_type_is_minor() -> None:
    new = TYPED.replace("items: Item[]", "items: any")
    assert rules(run(js_boundary_typing, "src/total.ts", TYPED, new)) == [
        ("ts-any-annotation-added", 1, Severity.MINOR)
    ]


@pytest.mark.parametrize("directive", ["// @ts-ignore", "// @ts-expect-error", "// @ts-nocheck"])
def test_ts_ignore_added_is_minor(directive: str) -> None:
    new = TYPED.replace("  return items", f"  {directive}\n  return items")
    assert rules(run(js_boundary_typing, "src/total.ts", TYPED, new)) == [
        ("ts-ignore-added", 2, Severity.MINOR)
    ]


def test_ts_ignore_narrowed_to_expect_error_is_not_reported() -> None:
    old = TYPED.replace("  return items", "  // @ts-ignore\n  return items")
    new = TYPED.replace(
        "  return items", "  // @ts-expect-error: Item has no price yet\n  return items"
    )
    assert run(js_boundary_typing, "src/total.ts", old, new) == []


def test_ts_expect_error_in_a_test_asserting_a_type_error_is_not_reported() -> None:
    new = """
    import { test, expect } from "vitest";
    test("rejects numbers", () => {
      // @ts-expect-error: numbers are not accepted
      expect(() => total(5 as any)).toThrow(TypeError);
    });
    """
    assert run(js_boundary_typing, "test/total.test.ts", None, new) == []


def test_moved_any_is_not_new() -> None:
    old = "export function a(x: any) {\n  return x;\n}\nexport function b() {}\n"
    new = "export function b() {}\nexport function a(x: any) {\n  return x;\n}\n"
    assert run(js_boundary_typing, "src/m.ts", old, new) == []


GUARDED = """
export function chargeCard(card: Card | undefined, cents: number): Receipt {
  if (!card) {
    throw new TypeError("a card is required");
  }
  return gateway.charge(card.token, cents);
}
"""


def test_non_null_assertion_replacing_a_check_is_major() -> None:
    new = """
    export function chargeCard(card: Card | undefined, cents: number): Receipt {
      return gateway.charge(card!.token, cents);
    }
    """
    findings = run(js_boundary_typing, "src/pay.ts", GUARDED, new)
    assert [(f.rule, f.severity) for f in findings] == [
        ("ts-non-null-replaced-check", Severity.MAJOR)
    ]
    assert "card" in findings[0].claim
    assert findings[0].old_evidence is not None and "TypeError" in findings[0].old_evidence


def test_validation_guard_removed_is_major() -> None:
    old = GUARDED.replace(
        "  return gateway",
        '  if (!Number.isInteger(cents) || cents <= 0) {\n    throw new RangeError("bad amount");\n'
        "  }\n  return gateway",
    )
    new = old.replace(
        '  if (!Number.isInteger(cents) || cents <= 0) {\n    throw new RangeError("bad amount");\n'
        "  }\n",
        "",
    )
    findings = run(js_boundary_typing, "src/pay.ts", old, new)
    assert [(f.rule, f.severity) for f in findings] == [
        ("js-validation-guard-removed", Severity.MAJOR)
    ]


def test_a_guard_moved_into_a_helper_call_is_not_removed() -> None:
    new = GUARDED.replace(
        '  if (!card) {\n    throw new TypeError("a card is required");\n  }\n',
        "  assertCard(card);\n",
    )
    assert run(js_boundary_typing, "src/pay.ts", GUARDED, new) == []


# --- concurrency ---------------------------------------------------------------------------

SAVE_OLD = """
export async function saveAll(store, items) {
  for (const item of items) {
    await store.put(item);
  }
  await store.flush();
}
"""


def test_dropped_await_is_major() -> None:
    new = SAVE_OLD.replace("await store.flush();", "store.flush();")
    findings = run(js_concurrency, "src/save.js", SAVE_OLD, new)
    assert rules(findings) == [("js-await-dropped", 5, Severity.MAJOR)]
    assert findings[0].symbol == "saveAll"


def test_await_moved_into_a_returned_promise_is_not_dropped() -> None:
    new = SAVE_OLD.replace("await store.flush();", "return store.flush();")
    assert run(js_concurrency, "src/save.js", SAVE_OLD, new) == []


def test_floating_promise_of_a_local_async_function_is_major() -> None:
    old = """
    async function refresh(cache) {
      cache.data = await fetchData();
    }
    export async function handler(cache) {
      await refresh(cache);
      return cache.data;
    }
    """
    new = old.replace("  await refresh(cache);", "  refresh(cache);")
    findings = run(js_concurrency, "src/h.js", old, new)
    assert [f.rule for f in findings] == ["js-await-dropped"]


def test_new_floating_promise_of_a_local_async_function() -> None:
    old = """
    async function refresh(cache) {
      cache.data = await fetchData();
    }
    export async function handler(cache) {
      return cache.data;
    }
    """
    new = old.replace("  return cache.data;", "  refresh(cache);\n  return cache.data;")
    assert rules(run(js_concurrency, "src/h.js", old, new)) == [
        ("js-floating-promise", 5, Severity.MAJOR)
    ]


def test_void_marks_fire_and_forget_explicitly() -> None:
    old = """
    async function refresh(cache) {
      cache.data = await fetchData();
    }
    export async function handler(cache) {
      return cache.data;
    }
    """
    new = old.replace("  return cache.data;", "  void refresh(cache);\n  return cache.data;")
    assert run(js_concurrency, "src/h.js", old, new) == []


def test_read_await_write_on_shared_state() -> None:
    new = """
    export class Counter {
      async increment(store) {
        const current = this.count;
        await store.save(current + 1);
        this.count = current + 1;
      }
    }
    """
    findings = run(js_concurrency, "src/counter.ts", "export class Counter {}\n", new)
    assert rules(findings) == [("js-check-then-act-across-await", 5, Severity.MAJOR)]


def test_write_before_the_await_is_not_a_race() -> None:
    new = """
    export class Counter {
      async increment(store) {
        this.count = this.count + 1;
        await store.save(this.count);
      }
    }
    """
    assert run(js_concurrency, "src/counter.ts", "export class Counter {}\n", new) == []


def test_plain_javascript_is_read_for_ts_ignore_only() -> None:
    old = "export function f(x) {\n  return g(x);\n}\n"
    new = "export function f(x) {\n  // @ts-ignore\n  return g(x);\n}\n"
    assert rules(run(js_boundary_typing, "src/f.js", old, new)) == [
        ("ts-ignore-added", 2, Severity.MINOR)
    ]


def test_dropped_top_level_await_in_a_module() -> None:
    old = "try {\n  await import('./plugin.js');\n} catch (e) {\n  report(e);\n}\n"
    new = old.replace("await import", "import")
    assert rules(run(js_concurrency, "bin/cli.mjs", old, new)) == [
        ("js-await-dropped", 2, Severity.MAJOR)
    ]


def test_any_as_a_generic_argument_is_how_typings_say_any_instantiation() -> None:
    new = (
        "export type AddDefault<T extends ZodOptional<any, any>> =\n"
        "  T extends ZodOptional<infer U, any> ? ZodOptional<U, true> : never;\n"
    )
    assert run(js_boundary_typing, "src/types.ts", "export {};\n", new) == []


def test_two_casts_on_one_line_are_one_finding() -> None:
    old = "export const isKy = (e: KyError) => e.isKy || e.name === 'Ky';\n"
    new = "export const isKy = (e: KyError) => (e as any)?.isKy || (e as any)?.name === 'Ky';\n"
    assert len(run(js_boundary_typing, "src/guards.ts", old, new)) == 1


def test_escape_hatches_in_new_code_are_taste_and_not_reported() -> None:
    new = """
    export function merge(target: any, ...sources: any[]) {
      return Object.assign(target as any, ...sources);
    }
    """
    assert run(js_boundary_typing, "src/merge.ts", "export {};\n", new) == []


def test_an_ignore_that_states_its_reason_is_a_documented_decision() -> None:
    new = TYPED.replace(
        "  return items", "  // @ts-expect-error - Types are outdated.\n  return items"
    )
    assert run(js_boundary_typing, "src/total.ts", TYPED, new) == []


def test_an_async_function_that_cannot_reject_is_no_floating_hazard() -> None:
    old = """
    export function request(emitter, hooks) {
      const emitError = async (error) => {
        try {
          for (const hook of hooks) error = await hook(error);
          emitter.emit("error", error);
        } catch (error2) {
          emitter.emit("error", error2);
        }
      };
      return emitError;
    }
    """
    new = old.replace(
        "      return emitError;",
        "      const go = async () => {\n        emitError(new Error('x'));\n"
        "      };\n      return go;",
    )
    assert run(js_concurrency, "src/request.js", old, new) == []


def test_any_written_another_way_is_no_widening() -> None:
    old = (
        "export interface Options {\n  form?: Record<string, any>;\n"
        "  context?: {[key: string]: unknown};\n}\n"
    )
    new = (
        "export interface Options {\n  form?: {[key: string]: any};\n"
        "  context?: {[key: string]: any};\n}\n"
    )
    assert rules(run(js_boundary_typing, "src/types.ts", old, new)) == [
        ("ts-any-annotation-added", 3, Severity.MINOR)
    ]


def test_any_in_a_type_level_pattern_is_not_a_value_annotation() -> None:
    old = "export interface T {\n  refine(check: (arg: Out) => unknown): this;\n}\n"
    new = (
        "export interface T {\n  refine<Ch extends (arg: Out) => unknown>(check: Ch):\n"
        "    Ch extends (arg: any) => arg is infer R ? Narrow<R> : this;\n}\n"
    )
    assert run(js_boundary_typing, "src/schemas.ts", old, new) == []
