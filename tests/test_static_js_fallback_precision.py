"""JS/TS silent-fallback on the shapes real commits produce (issue 17): handlers that look like
swallows but are not (a failure still reaches someone), and swallows the critic used to miss.

Each case is a realistic snippet; the reasoning under test is named in the test's name.
"""

from __future__ import annotations

from textwrap import dedent

import pytest

from contend.critics.static import js_silent_fallback
from contend.critics.static.base import Confidence, Finding
from contend.critics.static.testing import change_from_texts
from contend.protocol.model import Severity


def _src(text: str) -> str:
    return dedent(text).lstrip("\n")


def sf(path: str, old: str | None, new: str) -> list[Finding]:
    change = change_from_texts(path, _src(old) if old is not None else None, _src(new))
    results = list(js_silent_fallback.CRITIC.check([change]))
    assert all(isinstance(r, Finding) for r in results), results
    return [r for r in results if isinstance(r, Finding)]


# --- not fallbacks: the failure still reaches someone ---------------------------------------


def test_nested_catch_protecting_the_decoration_of_a_rethrown_error() -> None:
    new = """
    export async function runTask(task) {
      try {
        return await task.run();
      } catch (err) {
        try {
          err.message = `[${task.name}] ${err.message}`;
        } catch {}
        throw err;
      }
    }
    """
    assert sf("src/task.ts", "export async function runTask(task) {}\n", new) == []


@pytest.mark.parametrize(
    "probe",
    [
        "export const supportsColor = !!(() => {\n"
        "  try {\n    return process.stdout.hasColors();\n  } catch {}\n})();\n",
        "export const hasWorkerThreads = (() => {\n"
        "  try {\n    require.resolve('worker_threads');\n    return true;\n"
        "  } catch {\n    return false;\n  }\n})();\n",
        "let passive = false;\n"
        "try {\n  window.addEventListener('t', null, { get passive() { passive = true; } });\n"
        "} catch {}\nexport const supportsPassive = passive;\n",
    ],
)
def test_feature_detection_probes(probe: str) -> None:
    assert sf("src/env.js", "export {};\n", probe) == []


def test_try_each_candidate_loop_that_throws_after_the_last() -> None:
    new = """
    export function loadBinding(candidates) {
      for (const name of candidates) {
        try {
          return require(name);
        } catch {}
      }
      throw new Error(`no binding found among ${candidates.join(", ")}`);
    }
    """
    assert sf("src/binding.js", "export function loadBinding(candidates) {}\n", new) == []


def test_try_each_candidate_loop_without_a_final_throw_is_still_a_swallow() -> None:
    new = """
    export function loadBinding(candidates) {
      for (const name of candidates) {
        try {
          return require(name);
        } catch {}
      }
      return null;
    }
    """
    rules = [f.rule for f in sf("src/binding.js", "export function loadBinding(c) {}\n", new)]
    assert rules == ["js-empty-catch"]


def test_detached_catch_that_only_marks_a_promise_handled() -> None:
    new = """
    export async function start(server) {
      const ready = server.listen();
      // Mark handled now; the rejection is awaited (and thrown) below.
      ready.catch(() => {});
      await warmCaches();
      await ready;
    }
    """
    assert sf("src/server.ts", "export async function start(server) {}\n", new) == []


def test_detached_catch_on_a_promise_nobody_awaits_is_a_swallow() -> None:
    new = """
    export async function start(server) {
      const ready = server.listen();
      ready.catch(() => {});
      await warmCaches();
    }
    """
    rules = [f.rule for f in sf("src/server.ts", "export async function start(server) {}\n", new)]
    assert rules == ["js-catch-default"]


def test_catch_null_followed_by_a_null_check_that_reports() -> None:
    new = """
    export async function readManifest(path) {
      const raw = await fs.readFile(path, "utf8").catch(() => null);
      if (raw === null) {
        throw new ManifestError(`cannot read ${path}`);
      }
      return JSON.parse(raw);
    }
    """
    assert sf("src/manifest.ts", "export async function readManifest(path) {}\n", new) == []


def test_catch_null_whose_null_is_used_as_data_is_a_swallow() -> None:
    new = """
    export async function readManifest(path) {
      const raw = await fs.readFile(path, "utf8").catch(() => null);
      return { path, raw };
    }
    """
    rules = [
        f.rule for f in sf("src/manifest.ts", "export async function readManifest(p) {}\n", new)
    ]
    assert rules == ["js-catch-default"]


def test_awaiting_settlement_of_a_pending_promise() -> None:
    new = """
    export class Queue {
      async close() {
        this.closed = true;
        await this.pending?.catch(noop);
        await this.flush();
      }
    }
    """
    assert sf("src/queue.ts", "export class Queue {}\n", new) == []


@pytest.mark.parametrize(
    "body",
    [
        "  const p = client.connect();\n  p.catch(() => {});\n"
        "  await expect(p).rejects.toThrow(ConnectError);\n",
        "  try {\n    await client.connect();\n  } catch (e) {\n    // expected: refused\n  }\n"
        "  expect(client.state).toBe('closed');\n",
    ],
)
def test_expected_rejections_in_test_code(body: str) -> None:
    new = (
        f"import {{ test, expect }} from 'vitest';\n\ntest('refuses', async () => {{\n{body}}});\n"
    )
    assert sf("test/client.test.ts", "import { test } from 'vitest';\n", new) == []


def test_a_swallowed_assertion_in_test_code_is_still_reported() -> None:
    new = (
        "import { test, expect } from 'vitest';\n\ntest('parses', () => {\n"
        "  try {\n    expect(parse('1')).toBe(1);\n  } catch {}\n});\n"
    )
    rules = [f.rule for f in sf("test/parse.test.ts", "import { test } from 'vitest';\n", new)]
    assert rules == ["js-empty-catch"]


# --- misses --------------------------------------------------------------------------------


def test_resolve_with_a_made_up_value_inside_a_promise_executor_is_a_swallow() -> None:
    new = """
    export function readJson(path) {
      return new Promise((resolve, reject) => {
        fs.readFile(path, "utf8", (err, text) => {
          if (err) return reject(err);
          try {
            resolve(JSON.parse(text));
          } catch {
            resolve(undefined);
          }
        });
      });
    }
    """
    findings = sf("src/json.js", "export function readJson(path) {}\n", new)
    assert [(f.rule, f.start_line) for f in findings] == [("js-catch-return-default", 7)]
    assert "resolve(undefined)" in findings[0].claim


def test_resolve_with_the_error_is_not_a_swallow() -> None:
    new = """
    export function settle(p) {
      return new Promise((resolve) => {
        try {
          resolve(compute(p));
        } catch (err) {
          resolve({ ok: false, error: err });
        }
      });
    }
    """
    assert sf("src/settle.js", "export function settle(p) {}\n", new) == []


# --- severity, confidence and symbol --------------------------------------------------------


def test_a_swallowed_failure_around_a_write_is_critical() -> None:
    new = """
    export async function saveDraft(store, draft) {
      try {
        await store.writeFile(draft.path, draft.body);
      } catch {}
    }
    """
    [finding] = sf("src/drafts.ts", "export async function saveDraft(store, draft) {}\n", new)
    assert finding.severity is Severity.CRITICAL
    assert finding.symbol == "saveDraft"
    assert finding.confidence is Confidence.HIGH


def test_a_read_swallowed_is_major_and_names_its_method() -> None:
    new = """
    export class Config {
      load(path) {
        try {
          return parse(fs.readFileSync(path, "utf8"));
        } catch {
          return {};
        }
      }
    }
    """
    [finding] = sf("src/config.ts", "export class Config {}\n", new)
    assert (finding.rule, finding.severity) == ("js-catch-return-default", Severity.MAJOR)
    assert finding.symbol == "Config.load"


def test_a_success_branch_after_catch_default_is_no_null_check() -> None:
    new = """
    export async function describe(path) {
      const router = await tryImport(path).catch(() => null);
      if (router) {
        collect(router);
      }
    }
    """
    rules = [f.rule for f in sf("src/gen.ts", "export async function describe(path) {}\n", new)]
    assert rules == ["js-catch-default"]


def test_a_predicate_whose_answer_is_whether_the_input_parses() -> None:
    new = """
    export function hasCredential(url, key) {
      try {
        return new URL(url)[key] !== "";
      } catch {
        return false;
      }
    }
    """
    assert sf("src/url.ts", "export function hasCredential(url, key) {}\n", new) == []


@pytest.mark.parametrize("cleanup", ["stream.destroy();", "iterator.return();", "socket.close();"])
def test_best_effort_cleanup_is_not_a_fallback(cleanup: str) -> None:
    new = (
        "export function teardown(stream, iterator, socket) {\n"
        f"  try {{\n    {cleanup}\n  }} catch {{}}\n}}\n"
    )
    assert sf("src/io.ts", "export function teardown(stream, iterator, socket) {}\n", new) == []


def test_a_void_marked_derived_promise_whose_source_is_awaited() -> None:
    new = """
    export async function withTimeout(bodyPromise, ms) {
      return Promise.race([
        bodyPromise,
        new Promise((resolve) => {
          const id = setTimeout(resolve, ms);
          void bodyPromise.finally(() => clearTimeout(id)).catch(() => undefined);
        }),
      ]);
    }
    """
    assert sf("src/timeout.ts", "export async function withTimeout(b, ms) {}\n", new) == []


def test_a_mock_that_stops_throwing_in_test_code_is_not_a_product_fallback() -> None:
    old = """
    import test from "ava";
    test("parses", async t => {
      const parseJson = () => {
        throw new Error("parseJson failed");
      };
      t.is(await run(parseJson), 1);
    });
    """
    new = old.replace('throw new Error("parseJson failed");', "return undefined;")
    assert sf("test/main.ts", old, new) == []


def test_a_handler_whose_comment_gives_the_reason_is_shown_but_not_blocking() -> None:
    new = """
    export function walk(dir) {
      try {
        return readdirSync(dir);
      } catch {
        // Skip directories we cannot read
      }
    }
    """
    [finding] = sf("scripts/walk.ts", "export function walk(dir) {}\n", new)
    assert (finding.rule, finding.severity) == ("js-empty-catch", Severity.MINOR)


STORE_COOKIES = """
export async function storeCookies(options, setCookie, raw) {
  let promises = raw.map((c) => setCookie(c));
  if (options.ignoreInvalidCookies) {
    promises = promises.map((p) => p.catch(() => {}));
  }
  await Promise.all(promises);
}
"""


def test_a_swallow_behind_an_option_that_asks_for_it_is_what_the_caller_chose() -> None:
    # The caller asked, by the option's name, for these failures to be ignored: nobody is
    # misled, so there is no silent fallback to report.
    old = "export async function storeCookies(o, s, r) {}\n"
    assert sf("src/cookies.ts", old, STORE_COOKIES) == []
    # Behind an option that does not ask for it, the same swallow is reported and blocks.
    other = STORE_COOKIES.replace("ignoreInvalidCookies", "parallelCookies")
    [finding] = sf("src/cookies.ts", old, other)
    assert finding.rule == "js-catch-default"
    assert finding.severity in (Severity.MAJOR, Severity.CRITICAL)


def test_a_type_test_file_is_test_code() -> None:
    new = """
    program.parseAsync(process.argv).then(() => {
      console.log("ok");
    }).catch(() => {
      console.log("failed");
    });
    """
    assert sf("typings/commander-tests.ts", "export {};\n", new) == []
