"""JS/TS test-weakening on the shapes real commits produce (issue 17): refactors that keep
every check (not findings), and test styles and forms the critic used to miss."""

from __future__ import annotations

from tests.js_static_helpers import change, source, tw

from contend.critics.static import js_weakened_tests
from contend.critics.static.base import Finding, Skipped
from contend.critics.static.testing import change_from_texts
from contend.protocol.model import Severity


def rules(findings: list[Finding]) -> list[tuple[str, int]]:
    return [(f.rule, f.start_line) for f in findings]


# --- control flow ----------------------------------------------------------------------------

PER_ENV_OLD = """
import { test, expect } from "vitest";

test("prints the banner", async () => {
  const { stdout, stderr } = await run(["--version"]);
  if (process.platform === "win32") {
    expect(stdout).toContain("cli.cmd");
    expect(stderr).not.toContain("warning");
  } else {
    expect(stdout).toContain("cli");
    expect(stderr).not.toContain("warning");
  }
});
"""

PER_ENV_NEW = """
import { test, expect } from "vitest";

test("prints the banner", async () => {
  const { stdout, stderr } = await run(["--version"]);
  expect(stdout).toBe(`${binName()} v1.2.3\\n`);
  expect(stderr).toBe("");
});
"""


def test_per_environment_branches_merged_into_one_stricter_assertion() -> None:
    assert tw(change("test/cli.test.ts", PER_ENV_OLD, PER_ENV_NEW)) == []


def test_a_branch_assertion_dropped_without_a_stricter_heir_is_still_removed() -> None:
    new = PER_ENV_NEW.replace('  expect(stderr).toBe("");\n', "")
    findings = tw(change("test/cli.test.ts", PER_ENV_OLD, new))
    assert {f.rule for f in findings} == {"js-assertion-removed"}
    assert all("stderr" in f.claim for f in findings)


def test_removed_assertion_is_reported_on_its_own_line_not_the_whole_test() -> None:
    old = (
        'test("big", () => {\n'
        + "".join(f"  expect(f({i})).toBe({i});\n" for i in range(40))
        + "});\n"
    )
    new = old.replace("  expect(f(20)).toBe(20);\n", "")
    [finding] = tw(change_from_texts("test/big.test.js", old, new))
    assert finding.rule == "js-assertion-removed"
    assert finding.start_line == finding.end_line == 22
    assert finding.symbol == "big"
    assert finding.old_evidence == "  expect(f(20)).toBe(20);"


# --- moves, renames and merges ---------------------------------------------------------------


def test_test_moved_and_renamed_in_the_same_file() -> None:
    old = """
    describe("parser", () => {
      it("parses numbers", () => {
        expect(parse("1")).toBe(1);
        expect(parse("-2")).toBe(-2);
      });
      it("parses strings", () => {
        expect(parse('"a"')).toBe("a");
      });
    });
    """
    new = """
    describe("parser", () => {
      it("parses strings", () => {
        expect(parse('"a"')).toBe("a");
      });
    });

    describe("numbers", () => {
      it("accepts integers of either sign", () => {
        const cases = [["1", 1], ["-2", -2]];
        expect(parse("1")).toBe(1);
        expect(parse("-2")).toBe(-2);
      });
    });
    """
    assert tw(change("test/parser.test.js", old, new)) == []


def test_test_moved_verbatim_to_another_file_of_the_same_change() -> None:
    old_a = """
    it("parses", () => {
      expect(parse("1")).toBe(1);
    });
    it("formats", () => {
      expect(format(1)).toBe("1");
    });
    """
    new_a = """
    it("parses", () => {
      expect(parse("1")).toBe(1);
    });
    """
    new_b = """
    import { format } from "../src/format.js";

    it("formats", () => {
      expect(format(1)).toBe("1");
    });
    """
    assert tw(change("test/a.test.js", old_a, new_a), change("test/b.test.js", None, new_b)) == []


def test_a_test_deleted_for_good_is_still_reported() -> None:
    old = """
    it("parses", () => {
      expect(parse("1")).toBe(1);
    });
    it("formats", () => {
      expect(format(1)).toBe("1");
    });
    """
    new = """
    it("parses", () => {
      expect(parse("1")).toBe(1);
    });
    """
    assert rules(tw(change("test/a.test.js", old, new))) == [("js-test-deleted", 3)]


def test_assertions_of_two_tests_merged_into_one() -> None:
    old = """
    test("rejects empty names", () => {
      expect(() => validate("")).toThrow(NameError);
    });
    test("rejects long names", () => {
      expect(() => validate("x".repeat(300))).toThrow(NameError);
    });
    """
    new = """
    test("rejects invalid names", () => {
      expect(() => validate("")).toThrow(NameError);
      expect(() => validate("x".repeat(300))).toThrow(NameError);
    });
    """
    assert tw(change("test/validate.test.ts", old, new)) == []


def test_deleted_e2e_fixtures_named_like_tests_are_inputs_not_tests() -> None:
    old = """
    import { test, expect } from "vitest";
    test("fails on purpose", () => {
      expect(1).toBe(2);
    });
    """
    fixture = change("test/e2e/fixtures/failing/basic.test.ts", old, None)
    results = list(js_weakened_tests.CRITIC.check([fixture]))
    assert not any(isinstance(r, Finding) for r in results), results


def test_a_test_put_behind_a_condition_is_not_deleted() -> None:
    old = """
    import { test, expect } from "vitest";
    test("uses symlinks", () => {
      expect(resolveLink("a")).toBe("b");
    });
    """
    new = """
    import { test, expect } from "vitest";
    test.runIf(process.platform !== "win32")("uses symlinks", () => {
      expect(resolveLink("a")).toBe("b");
    });
    """
    assert tw(change("test/links.test.ts", old, new)) == []


# --- misses: test styles and forms ---------------------------------------------------------

MOCHA_OLD = """
const assert = require("assert");
const { sanitize } = require("..");

describe("sanitize", function () {
  it("escapes script tags", function () {
    assert.strictEqual(sanitize("<script>"), "&lt;script&gt;");
  });

  it("rejects javascript: urls (CVE-2021-23358)", function () {
    assert.strictEqual(sanitize('<a href="javascript:alert(1)">'), "<a>");
  });
});
"""


def test_mocha_suite_under_test_dir_is_test_code() -> None:
    new = source(MOCHA_OLD).split('\n  it("rejects')[0] + "\n});\n"
    findings = tw(change_from_texts("test/sanitize.js", source(MOCHA_OLD), new))
    assert [f.rule for f in findings] == ["js-test-deleted"]
    assert "CVE-2021-23358" in findings[0].claim


def test_a_deleted_mocha_test_file_reports_its_tests() -> None:
    findings = tw(change("test/sanitize.js", MOCHA_OLD, None))
    assert sorted(f.rule for f in findings) == ["js-test-deleted", "js-test-deleted"]


def test_describe_skip_added_without_a_reason_in_a_mocha_suite() -> None:
    new = MOCHA_OLD.replace('describe("sanitize"', 'describe.skip("sanitize"')
    findings = tw(change("test/sanitize.js", MOCHA_OLD, new))
    assert [(f.rule, f.severity) for f in findings] == [("js-test-skipped", Severity.MINOR)]


def test_dynamic_this_skip_added_to_a_test() -> None:
    new = MOCHA_OLD.replace(
        '  it("escapes script tags", function () {\n',
        '  it("escapes script tags", function () {\n    this.skip();\n',
    )
    findings = tw(change("test/sanitize.js", MOCHA_OLD, new))
    assert rules(findings) == [("js-test-skipped", 5)]


def test_conditional_ctx_skip_is_not_a_skip() -> None:
    new = MOCHA_OLD.replace(
        '  it("escapes script tags", function () {\n',
        '  it("escapes script tags", function () {\n    if (!hasDom) this.skip();\n',
    )
    assert tw(change("test/sanitize.js", MOCHA_OLD, new)) == []


def test_test_extend_fixtures_are_tests() -> None:
    old = """
    import { test as base, expect } from "vitest";
    const test = base.extend({ db: async ({}, use) => use(await openDb()) });
    test("stores rows", async ({ db }) => {
      await db.insert({ id: 1 });
      expect(await db.count()).toBe(1);
    });
    """
    new = old.replace("toBe(1)", "toBeGreaterThan(0)")
    findings = tw(change("test/db.test.ts", old, new))
    assert [f.rule for f in findings] == ["js-assertion-weakened"]


def test_direct_test_extend_call_is_a_test() -> None:
    old = """
    import { test, expect } from "vitest";
    test.extend({ page: async ({}, use) => use(await open()) })("renders", async ({ page }) => {
      expect(await page.title()).toBe("Home");
    });
    """
    findings = tw(change("test/page.test.ts", old, 'import { test } from "vitest";\n'))
    assert [f.rule for f in findings] == ["js-test-deleted"]


def test_timing_tests_replaced_by_configuration_checks() -> None:
    old = """
    import { test, expect, vi } from "vitest";
    test("retries after the delay", () => {
      vi.useFakeTimers();
      const fn = vi.fn();
      retry(fn, { delay: 100 });
      vi.advanceTimersByTime(100);
      expect(fn).toHaveBeenCalledTimes(2);
    });
    test("gives up after the timeout", () => {
      vi.useFakeTimers();
      const fn = vi.fn(() => { throw new Error("x"); });
      const p = retry(fn, { timeout: 500 });
      vi.advanceTimersByTime(500);
      return expect(p).rejects.toThrow(TimeoutError);
    });
    """
    new = """
    import { test, expect, vi } from "vitest";
    test("has a default delay", () => {
      expect(defaults.delay).toBe(100);
    });
    test("has a default timeout", () => {
      expect(defaults.timeout).toBe(500);
    });
    """
    findings = tw(change("test/retry.test.ts", old, new))
    assert [f.rule for f in findings] == ["js-test-deleted", "js-test-deleted"]


def test_a_deleted_source_file_without_tests_is_the_usual_deleted_skip() -> None:
    results = list(
        js_weakened_tests.CRITIC.check([change("src/util.js", "export const a = 1;\n", None)])
    )
    assert results == [Skipped("src/util.js", "deleted: nothing on the new side to check")]


# --- framework migrations and removed code ---------------------------------------------------

JEST_OLD = """
test("parses variadic arguments", () => {
  const actionMock = jest.fn();
  program.action(actionMock).parse(["a", "b"]);
  expect(actionMock).toHaveBeenCalledWith(["a", "b"], program.opts(), program);
  expect(program.args).toEqual(["a", "b"]);
  expect(help).toMatch("(default: 80)");
  expect(result.ok).toBe(true);
});
"""

NODE_TEST_NEW = """
const { test, mock } = require("node:test");
const assert = require("node:assert/strict");
test("parses variadic arguments", () => {
  const actionMock = mock.fn();
  program.action(actionMock).parse(["a", "b"]);
  const callArgs = actionMock.mock.calls[0].arguments;
  assert.deepStrictEqual(callArgs, [["a", "b"], program.opts(), program]);
  assert.deepEqual(program.args, ["a", "b"]);
  assert(help.includes("(default: 80)"));
  assert(result.ok === true);
});
"""


def test_jest_to_node_test_migration_keeps_every_check() -> None:
    assert tw(change("tests/args.test.js", JEST_OLD, NODE_TEST_NEW)) == []


def test_a_real_weakening_inside_a_migration_is_still_reported() -> None:
    new = NODE_TEST_NEW.replace("assert(result.ok === true);", "assert(result.ok);")
    findings = tw(change("tests/args.test.js", JEST_OLD, new))
    assert [f.rule for f in findings] == ["js-assertion-weakened"]


def test_tests_of_code_the_change_deleted_go_with_it() -> None:
    lib_old = """
    export function stripColor(text) {
      return text.replace(/\\x1b\\[\\d+m/g, "");
    }
    export function help() {
      return stripColor(render());
    }
    """
    lib_new = """
    import { stripVTControlCharacters } from "node:util";
    export function help() {
      return stripVTControlCharacters(render());
    }
    """
    tests_old = """
    test("strips color", () => {
      expect(stripColor("\\x1b[31mred\\x1b[0m")).toBe("red");
    });
    """
    changes = [
        change("lib/help.js", lib_old, lib_new),
        change("tests/help.stripColor.test.js", tests_old, None),
    ]
    results = list(js_weakened_tests.CRITIC.check(changes))
    assert not any(isinstance(r, Finding) for r in results), results


AVA_OLD = """
import test from "ava";
test("returns buffer on compressed response", async t => {
  const body = await got("gzip").buffer();
  t.true(Buffer.isBuffer(body));
  t.is(body.toString(), "ok");
});
test("parses json", async t => {
  t.deepEqual(await got("json").json(), { a: 1 });
});
"""


def test_ava_assertions_are_read() -> None:
    new = AVA_OLD.replace('t.is(body.toString(), "ok");', "t.truthy(body);")
    findings = tw(change("test/promise.ts", AVA_OLD, new))
    assert [f.rule for f in findings] == ["js-assertion-weakened"]


def test_ava_test_renamed_with_its_checks_is_not_deleted() -> None:
    new = AVA_OLD.replace("returns buffer on", "returns Uint8Array on").replace(
        "t.true(Buffer.isBuffer(body));", "t.true(body instanceof Uint8Array);"
    )
    assert tw(change("test/promise.ts", AVA_OLD, new)) == []


def test_tests_of_a_removed_member_api_go_with_it() -> None:
    lib_old = """
    export function asPromise(request) {
      const promise = new Promise(run);
      promise.cancel = function () {
        request.destroy();
      };
      return promise;
    }
    """
    lib_new = """
    export function asPromise(request) {
      return new Promise(run);
    }
    """
    tests_old = """
    import test from "ava";
    test("cancels in-progress request", async t => {
      const p = got("slow");
      p.cancel();
      await t.throwsAsync(p, { instanceOf: CancelError });
    });
    """
    changes = [
        change("source/as-promise/index.ts", lib_old, lib_new),
        change("test/cancel.ts", tests_old, None),
    ]
    results = list(js_weakened_tests.CRITIC.check(changes))
    assert not any(isinstance(r, Finding) for r in results), results


def test_a_type_argument_added_to_an_awaited_assertion_keeps_it() -> None:
    # The grammar reads `await t.throwsAsync<E>(p)` as a call of `await t.throwsAsync`.
    old = """
    import test from "ava";
    test("properties", async t => {
      const error = await t.throwsAsync(got(""));
      t.is(error.response.statusCode, 404);
    });
    """
    new = old.replace("t.throwsAsync(", "t.throwsAsync<HTTPError>(")
    assert tw(change("test/error.ts", old, new)) == []


def test_deleting_an_empty_placeholder_test_loses_nothing() -> None:
    old = 'import { test } from "@jest/globals";\ntest("test", () => {});\n'
    new = 'import { test } from "@jest/globals";\n'
    assert tw(change_from_texts("src/__tests__/recursive.test.ts", old, new)) == []


def test_tests_of_behaviour_the_change_removed_go_with_it() -> None:
    lib_old = """
    export function onerror(ctx, err) {
      if (err.code === "ENOENT") {
        err.status = 404;
      }
      ctx.status = err.status || 500;
    }
    """
    lib_new = """
    export function onerror(ctx, err) {
      ctx.status = err.status || 500;
    }
    """
    tests_old = """
    describe("ctx.onerror", () => {
      it("should respond 404 on ENOENT", () => {
        const err = new Error("missing");
        err.code = "ENOENT";
        expect(respond(err).status).toBe(404);
      });
      it("should respond 500", () => {
        expect(respond(new Error("x")).status).toBe(500);
      });
    });
    """
    tests_new = """
    describe("ctx.onerror", () => {
      it("should respond 500", () => {
        expect(respond(new Error("x")).status).toBe(500);
      });
    });
    """
    changes = [
        change("lib/context.js", lib_old, lib_new),
        change("test/context.test.js", tests_old, tests_new),
    ]
    assert tw(*changes) == []
    # Without the code change, the same deletion is a lost check.
    assert [f.rule for f in tw(changes[1])] == ["js-test-deleted"]


def test_a_tap_skip_is_a_skip_not_a_deletion() -> None:
    old = (
        "const { test, skip } = require('tap');\n"
        "test('serializes', async ({ ok }) => {\n  ok(1);\n});\n"
    )
    new = old.replace("test('serializes'", "skip('serializes'")
    assert [f.rule for f in tw(change_from_texts("test/http.test.js", old, new))] == [
        "js-test-skipped"
    ]


def test_a_test_deleted_with_code_the_change_removes_is_shown_not_blocking() -> None:
    lib_old = "export function parse(flags) {\n  if (flags.debug) enableDebug();\n  run();\n}\n"
    lib_new = "export function parse(flags) {\n  run();\n}\n"
    tests_old = """
    it("enables the inspector", () => {
      expect(run_with(["--inspect"]).inspector).toBe(true);
    });
    it("runs", () => {
      expect(run_with([]).ok).toBe(true);
    });
    """
    tests_new = """
    it("runs", () => {
      expect(run_with([]).ok).toBe(true);
    });
    """
    changes = [
        change("lib/cli.js", lib_old, lib_new),
        change("test/cli.spec.js", tests_old, tests_new),
    ]
    [finding] = tw(*changes)
    assert (finding.rule, finding.severity) == ("js-test-deleted", Severity.MINOR)
    assert "also deletes code" in finding.claim


def test_an_assertion_commented_out_with_its_reason_is_shown_not_blocking() -> None:
    old = """
    test("properties", async t => {
      const error = await t.throwsAsync(got(""));
      t.false({}.hasOwnProperty.call(error, "code"));
      t.is(error.message, "x");
    });
    """
    new = old.replace(
        '  t.false({}.hasOwnProperty.call(error, "code"));\n',
        "  // This fails because class fields are always initialized\n"
        '  // t.false({}.hasOwnProperty.call(error, "code"));\n'
        "  t.is(error.code, undefined);\n",
    )
    [finding] = tw(change("test/error.ts", old, new))
    assert (finding.rule, finding.severity) == ("js-assertion-removed", Severity.MINOR)


def test_the_deleted_skip_reads_as_the_diff_readers_so_it_never_blocks_a_pass() -> None:
    from contend.gitio.diff import DELETED_REASON, blocks_pass

    [skip] = list(js_weakened_tests.CRITIC.check([change("src/util.js", "export {};\n", None)]))
    assert isinstance(skip, Skipped)
    assert skip.reason == DELETED_REASON
    assert not blocks_pass(skip)
