"""JS/TS critics, third precision pass (issue 17): each family of false alarm found on the
labelled real-commit sets (holdout5 and the five before it), as a minimal before/after pair
beside the defect of the same shape that must still be reported."""

from __future__ import annotations

from textwrap import dedent
from types import ModuleType

from tests.js_static_helpers import change, tw

from contend.critics.static import js_boundary_typing, js_concurrency, js_silent_fallback
from contend.critics.static.base import Finding
from contend.critics.static.testing import change_from_texts


def _src(text: str) -> str:
    return dedent(text).lstrip("\n")


def run(module: ModuleType, path: str, old: str | None, new: str) -> list[Finding]:
    results = list(
        module.CRITIC.check(
            [change_from_texts(path, _src(old) if old is not None else None, _src(new))]
        )
    )
    assert all(isinstance(r, Finding) for r in results), results
    return [r for r in results if isinstance(r, Finding)]


def rules(findings: list[Finding]) -> list[str]:
    return [f.rule for f in findings]


# --- a branch whose only `throw` rethrows inside a nested catch is no guard ------------------
# (immer `ed6dfcc`: catch + rethrow became try/finally; the `if (isDraftable(base))` branch
# never rejected anything)

PRODUCE_OLD = """
export class Immer {
  produce(base, recipe) {
    if (typeof recipe !== "function") throw new Error("recipe must be a function")
    let result
    if (isDraftable(base)) {
      const scope = ImmerScope.enter()
      try {
        result = recipe(base)
      } catch (error) {
        scope.revoke()
        throw error
      }
      scope.leave()
      return result
    }
    return recipe(base)
  }
}
"""

PRODUCE_NEW = """
export class Immer {
  produce(base, recipe) {
    if (typeof recipe !== "function") throw new Error("recipe must be a function")
    let result
    if (isDraftable(base)) {
      const scope = ImmerScope.enter()
      let hasError = true
      try {
        result = recipe(base)
        hasError = false
      } finally {
        if (hasError) scope.revoke()
        else scope.leave()
      }
      return result
    }
    return recipe(base)
  }
}
"""


def test_a_branch_that_only_rethrows_in_a_nested_catch_is_not_a_guard() -> None:
    assert run(js_boundary_typing, "src/immer.js", PRODUCE_OLD, PRODUCE_NEW) == []


def test_a_guard_that_throws_in_its_own_block_is_still_a_guard() -> None:
    new = PRODUCE_OLD.replace(
        '    if (typeof recipe !== "function") throw new Error("recipe must be a function")\n',
        "",
    )
    assert rules(run(js_boundary_typing, "src/immer.js", PRODUCE_OLD, new)) == [
        "js-validation-guard-removed"
    ]


# --- a guard whose condition gained alternatives rejects more, not less ---------------------
# (ws `66e58d2`: the old condition kept as the first disjunct, two mutual-exclusion cases
# added)

SERVER_OLD = """
class WebSocketServer {
  constructor(options) {
    if (options.port == null && !options.server && !options.noServer) {
      throw new TypeError('One of the "port", "server", or "noServer" options must be specified');
    }
    this.options = options;
  }
}
"""

SERVER_NEW = """
class WebSocketServer {
  constructor(options) {
    if (
      (options.port == null && !options.server && !options.noServer) ||
      (options.port != null && (options.server || options.noServer)) ||
      (options.server && options.noServer)
    ) {
      throw new TypeError('One and only one of the "port", "server", or "noServer" options');
    }
    this.options = options;
  }
}
"""


def test_a_guard_that_gained_alternatives_is_kept() -> None:
    assert run(js_boundary_typing, "lib/server.js", SERVER_OLD, SERVER_NEW) == []


def test_a_guard_that_lost_an_alternative_is_removed() -> None:
    # The other way round: the stricter condition narrowed back to one case rejects less.
    assert rules(run(js_boundary_typing, "lib/server.js", SERVER_NEW, SERVER_OLD)) == [
        "js-validation-guard-removed"
    ]


# --- an optional dependency's probe kept through a restructuring ------------------------------
# (ws `becf237`: `try { require('bufferutil'); module.exports = {fast} } catch { module.exports =
# {plain} }` became defaults first, then `try { require(...); override } catch {}`)

PROBE_OLD = """
function toBuffer(data) {
  return Buffer.from(data);
}

try {
  const bufferUtil = require('bufferutil');

  module.exports = {
    toBuffer,
    mask(source, mask) {
      bufferUtil.mask(source, mask);
    }
  };
} catch (e) {
  module.exports = {
    toBuffer,
    mask: _mask
  };
}
"""

PROBE_NEW = """
function toBuffer(data) {
  return Buffer.from(data);
}

module.exports = {
  toBuffer,
  mask: _mask
};

if (!process.env.WS_NO_BUFFER_UTIL) {
  try {
    const bufferUtil = require('bufferutil');

    module.exports.mask = function (source, mask) {
      bufferUtil.mask(source, mask);
    };
  } catch (e) {
    // Continue regardless of the error.
  }
}
"""


def test_a_fallback_kept_around_the_same_guarded_call_is_not_new() -> None:
    assert run(js_silent_fallback, "lib/buffer-util.js", PROBE_OLD, PROBE_NEW) == []


def test_a_handler_that_used_to_fail_and_now_swallows_is_new() -> None:
    # The old handler reported the failure (it exited): swallowing it now is a new fallback.
    old = PROBE_OLD.replace(
        "  module.exports = {\n    toBuffer,\n    mask: _mask\n  };\n}",
        "  console.error('bufferutil is required');\n  process.exit(1);\n}",
    )
    assert rules(run(js_silent_fallback, "lib/buffer-util.js", old, PROBE_NEW)) == [
        "js-empty-catch"
    ]


def test_an_empty_catch_around_another_call_is_new() -> None:
    new = PROBE_NEW.replace("require('bufferutil')", "loadNative('bufferutil')")
    assert rules(run(js_silent_fallback, "lib/buffer-util.js", PROBE_OLD, new)) == [
        "js-empty-catch"
    ]


# --- `await` dropped from a synchronous assertion waited for nothing ---------------------------
# (yup `11d860a`: `await expect(x).toBe('hello')` -> `expect(x).toBe('hello')`)

CAST_OLD = """
describe('mixed', () => {
  it('concat should carry over transforms', async () => {
    let inst = string().trim();
    await expect(inst.cast(' hello ')).toBe('hello');
    await expect(inst.isValid(' he ')).resolves.toBe(false);
  });
});
"""


def test_await_dropped_from_a_synchronous_matcher_is_not_reported() -> None:
    new = CAST_OLD.replace("await expect(inst.cast", "expect(inst.cast")
    assert run(js_concurrency, "test/mixed.ts", CAST_OLD, new) == []


def test_await_dropped_from_a_promise_matcher_is_reported() -> None:
    new = CAST_OLD.replace("await expect(inst.isValid", "expect(inst.isValid")
    assert rules(run(js_concurrency, "test/mixed.ts", CAST_OLD, new)) == ["js-await-dropped"]


# --- a test renamed in place whose checks became stricter is the same test ---------------------
# (ws `66e58d2`: `assert.throws(() => new Server({}))` now also names the error's message)

CTOR_OLD = """
describe('WebSocketServer', () => {
  describe('options', () => {
    it('throws an error if no `port` or `server` option is specified', () => {
      assert.throws(() => new WebSocket.Server({}));
    });

    it('exposes options passed to constructor', () => {
      const wss = new WebSocket.Server({ port: 0 });
      assert.strictEqual(wss.options.port, 0);
    });
  });
});
"""

CTOR_NEW = """
describe('WebSocketServer', () => {
  describe('options', () => {
    it('throws an error if required options are not specified', () => {
      assert.throws(
        () => new WebSocket.Server({}),
        new RegExp('^TypeError: One and only one of the "port", "server", or "noServer"$')
      );
    });

    it('exposes options passed to constructor', () => {
      const wss = new WebSocket.Server({ port: 0 });
      assert.strictEqual(wss.options.port, 0);
    });
  });
});
"""


def test_a_test_renamed_in_place_with_stricter_checks_is_not_deleted() -> None:
    assert tw(change("test/websocket-server.test.js", CTOR_OLD, CTOR_NEW)) == []


def test_a_test_replaced_by_one_checking_something_else_is_deleted() -> None:
    new = CTOR_NEW.replace("new WebSocket.Server({})", "new WebSocket.Server({ port: -1 })")
    assert rules(tw(change("test/websocket-server.test.js", CTOR_OLD, new))) == ["js-test-deleted"]


# --- a deleted test named after a property the change's code stops setting --------------------
# (ioredis `225ef45`: `result.username = parsedAuth[0]` reverted; the test "…with username and
# password…" goes with it, and the unit test's expected object drops `username` too)

PARSE_OLD = """
export function parseURL(url) {
  const parsed = urllib.parse(url, true, true);
  const result: any = {};
  if (parsed.auth) {
    const parsedAuth = parsed.auth.split(":");
    if (parsedAuth[0]) {
      result.username = parsedAuth[0];
    }
    result.password = parsedAuth[1];
  }
  result.database = parsed.pathname;
  return result;
}

export function connect(options) {
  return new Connection({ username: options.username, password: options.password });
}
"""

AUTH_OLD = """
describe("auth", function () {
  it("should handle auth with a URL with username and password", function (done) {
    let redis;
    new MockServer(17379, function (argv) {
      if (argv[0] === "auth" && argv[1] === "user" && argv[2] === "pass") {
        redis.disconnect();
        done();
      }
    });
    redis = new Redis(`redis://user:pass@localhost:17379/`);
  });

  it("should handle auth with password only", function (done) {
    let redis;
    new MockServer(17379, function (argv) {
      if (argv[0] === "auth" && argv[1] === "pass") {
        redis.disconnect();
        done();
      }
    });
    redis = new Redis(`redis://:pass@localhost:17379/`);
  });
});
"""


def _without_test(text: str, title_start: str) -> str:
    lines = _src(text).split("\n")
    start = next(i for i, line in enumerate(lines) if title_start in line)
    end = next(i for i in range(start, len(lines)) if lines[i] == "  });") + 1
    if end < len(lines) and not lines[end].strip():
        end += 1  # the blank line after it
    return "\n".join(lines[:start] + lines[end:])


def test_a_test_named_after_a_property_no_longer_set_goes_with_it() -> None:
    parse_new = PARSE_OLD.replace(
        "    if (parsedAuth[0]) {\n      result.username = parsedAuth[0];\n    }\n", ""
    )
    auth_new = _without_test(AUTH_OLD, "with username and password")
    found = tw(
        change("lib/utils/index.ts", PARSE_OLD, parse_new),
        change("test/functional/auth.ts", AUTH_OLD, auth_new),
    )
    assert found == []


def test_a_deleted_test_named_after_a_property_still_set_is_reported() -> None:
    parse_new = PARSE_OLD.replace("  result.database = parsed.pathname;\n", "")
    auth_new = _without_test(AUTH_OLD, "with username and password")
    found = tw(
        change("lib/utils/index.ts", PARSE_OLD, parse_new),
        change("test/functional/auth.ts", AUTH_OLD, auth_new),
    )
    assert rules(found) == ["js-test-deleted"]


# --- a comment written over several lines is one phrase -----------------------------------------
# (superagent `b411b66`: the revert of `unset` deletes "lowercase headers that were unset; this
# is used to suppress some default / headers, such as Accept-Encoding and Content-Type": the
# test "req.unset(field) > should prevent the Content-Type field…" shares a word with each line)

HEADERS_OLD = """
function initHeaders(req) {
  req._unset = {
    // lowercase headers that were unset; this is used to suppress some default
    // headers, such as Accept-Encoding and Content-Type
  };
  req._header = {};
}

function send(req, data) {
  if (!req.type && !('content-type' in req._unset)) req.type = 'form';
  req.header['content-type'] = req.type;
  req.body = data;
}
"""

HEADERS_NEW = """
function initHeaders(req) {
  req._header = {};
}

function send(req, data) {
  if (!req.type) req.type = 'form';
  req.header['content-type'] = req.type;
  req.body = data;
}
"""

UNSET_TESTS = """
describe('req.unset(field)', () => {
  it('should remove the header field', done => {
    request.post('/echo').unset('User-Agent').end((err, res) => {
      assert.equal(void 0, res.header['user-agent']);
      done();
    });
  });
  it('should prevent the Content-Type field from being added automatically', done => {
    request.post('/echo').send('hello=world').unset('Content-Type').end((err, res) => {
      assert.equal(void 0, res.header['content-type']);
      done();
    });
  });
});
"""


def test_a_test_titled_after_a_comment_over_two_lines_goes_with_it() -> None:
    tests_new = _without_test(UNSET_TESTS, "should prevent the Content-Type")
    found = tw(
        change("src/index.js", HEADERS_OLD, HEADERS_NEW),
        change("test/basic.js", UNSET_TESTS, tests_new),
    )
    assert found == []


def test_two_separate_comments_do_not_add_up_to_one_phrase() -> None:
    # Two one-line comments of separate statements, each sharing one word with the title.
    old = HEADERS_OLD.replace(
        "    // headers, such as Accept-Encoding and Content-Type\n  };",
        "  };\n  // headers, such as Accept-Encoding and Content-Type",
    )
    tests_new = _without_test(UNSET_TESTS, "should prevent the Content-Type")
    found = tw(
        change("src/index.js", old, HEADERS_NEW),
        change("test/basic.js", UNSET_TESTS, tests_new),
    )
    assert rules(found) == ["js-test-deleted"]


def test_a_title_names_a_removed_property_only_by_its_identifier() -> None:
    from contend.critics.static.js_test_pool import title_names_removed_key

    keys = frozenset({"username", "validations", "id"})
    assert title_names_removed_key(("auth", "URL with username and password"), keys)
    # An English word that happens to be the property's singular is not its name (yup's
    # "should return the validation function" and a removed `validations:` option), and a
    # two-letter key names nothing.
    assert not title_names_removed_key(("formatError", "returns the validation function"), keys)
    assert not title_names_removed_key(("keeps the id",), keys)


# --- a test rewritten in place: locals and an exported constant renamed, the same check --------
# (msw `39b8194`: `expect(endResponse.delay).toBe(SERVER_RESPONSE_TIME_NODE)` became
# `expect(resolvedResponse).toHaveProperty('delay', NODE_SERVER_RESPONSE_TIME)` under a new title,
# the constant renamed in the module it is imported from)

DELAY_SRC_OLD = """
export const MIN_SERVER_RESPONSE_TIME = 100
export const SERVER_RESPONSE_TIME_NODE = 5

export const delay = (durationMs?: number) => {
  return (res) => {
    res.delay = durationMs ?? (typeof window === 'undefined' ? SERVER_RESPONSE_TIME_NODE : 100)
    return res
  }
}
"""

DELAY_SRC_NEW = """
export const MIN_SERVER_RESPONSE_TIME = 100
export const NODE_SERVER_RESPONSE_TIME = 5

export const delay = (durationMs?: number) => {
  return (res) => {
    res.delay = durationMs ?? (isNodeProcess() ? NODE_SERVER_RESPONSE_TIME : 100)
    return res
  }
}
"""

DELAY_TEST_OLD = """
import { delay, SERVER_RESPONSE_TIME_NODE } from './delay'
import { response } from '../response'

describe('delay', () => {
  describe('if no delay provided ', () => {
    it('should set no delay on the response if the env is node', () => {
      const endResponse = response(delay())
      expect(endResponse.delay).toBe(SERVER_RESPONSE_TIME_NODE)
    })
  })
})
"""

DELAY_TEST_NEW = """
import { delay, NODE_SERVER_RESPONSE_TIME } from './delay'
import { response } from '../response'

test('sets a NodeJS-specific response delay when not provided', () => {
  const resolvedResponse = response(delay())
  expect(resolvedResponse).toHaveProperty('delay', NODE_SERVER_RESPONSE_TIME)
})

test('allows response delay duration overrides', () => {
  const resolvedResponse = response(delay(1234))
  expect(resolvedResponse).toHaveProperty('delay', 1234)
})
"""


def test_a_rewrite_with_renamed_locals_and_a_renamed_constant_is_the_same_check() -> None:
    found = tw(
        change("src/context/delay.ts", DELAY_SRC_OLD, DELAY_SRC_NEW),
        change("src/context/delay.node.test.ts", DELAY_TEST_OLD, DELAY_TEST_NEW),
    )
    assert found == []


def test_a_rewrite_that_pins_another_value_is_a_deletion() -> None:
    # The constant still exists under its old name: the new test checks another value.
    src_new = DELAY_SRC_NEW.replace(
        "export const NODE_SERVER_RESPONSE_TIME = 5",
        "export const SERVER_RESPONSE_TIME_NODE = 5\nexport const NODE_SERVER_RESPONSE_TIME = 7",
    )
    found = tw(
        change("src/context/delay.ts", DELAY_SRC_OLD, src_new),
        change("src/context/delay.node.test.ts", DELAY_TEST_OLD, DELAY_TEST_NEW),
    )
    assert rules(found) == ["js-test-deleted"]


def test_to_have_property_with_a_value_is_an_equality_of_the_member() -> None:
    from contend.critics.static.js_assertions import assertions
    from contend.critics.static.treesitter import parse

    def keys(text: str) -> list[str]:
        return [a.key for a in assertions(parse(text, "typescript"))]

    assert keys("expect(res).toHaveProperty('delay', 5)") == keys("expect(res.delay).toBe(5)")
    assert keys("expect(res).toHaveProperty('a.b', 5)") == keys("expect(res.a.b).toEqual(5)")
    # Without a value it checks only that the member exists.
    assert keys("expect(res).toHaveProperty('delay')") != keys("expect(res.delay).toBe(5)")


def test_await_dropped_from_a_matcher_that_may_wait_is_reported() -> None:
    # Playwright's web-first matchers (`toBeVisible`, `toHaveText`) return promises, and so
    # does chai-as-promised's `eventually`: only a matcher known to be synchronous is exempt.
    old = """
    test('shows the banner', async ({ page }) => {
      await expect(page.locator('.banner')).toBeVisible();
      await expect(fetchCount()).to.eventually.equal(1);
    });
    """
    new = old.replace("await expect(page", "expect(page").replace(
        "await expect(fetchCount", "expect(fetchCount"
    )
    assert rules(run(js_concurrency, "e2e/banner.spec.ts", old, new)) == [
        "js-await-dropped",
        "js-await-dropped",
    ]


def test_a_new_catch_inside_an_old_one_that_still_stands_is_new() -> None:
    # The old fallback (`return ''`) is still there; the new inner handler adds another
    # made-up value for the same call: introduced by the change.
    old = """
    function safeStringify(value) {
      try {
        return JSON.stringify(value);
      } catch {
        return '';
      }
    }
    """
    new = old.replace(
        "    return JSON.stringify(value);",
        "    try {\n      return JSON.stringify(value);\n"
        "    } catch (err) {\n      return null;\n    }",
    )
    assert rules(run(js_silent_fallback, "src/json.ts", old, new)) == ["js-catch-return-default"]


def test_an_old_handler_that_returned_the_error_was_no_fallback() -> None:
    # `return error` hands the failure to the caller: a new swallow of that work is new.
    old = """
    async function trySave(client) {
      try {
        await storage.setItem(key, client);
        return;
      } catch (error) {
        return error;
      }
    }
    """
    new = """
    async function trySave(client) {
      try {
        await storage.setItem(key, client);
      } catch {}
    }
    """
    assert rules(run(js_silent_fallback, "src/persist.ts", old, new)) == ["js-empty-catch"]
