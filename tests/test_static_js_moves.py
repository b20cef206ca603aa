"""JS/TS test-weakening: a check that left one test and reappears in the change's added test
code is a move, not a weakening (issue 17, the holdout families) — tests moved into type-test
files (`*.test-d.tsx`) with their locals renamed, tests renamed in place and rewritten, an
asserted error message replaced by a stable error code or class — while a real loss in the
same shapes is still reported."""

from __future__ import annotations

from tests.js_static_helpers import change, tw

# --- moved into a type-test file ----------------------------------------------------------

HOOK_OLD = """
import { describe, expect, expectTypeOf, it } from 'vitest'
import { useThing } from '../useThing'

describe('useThing', () => {
  describe('types', () => {
    it('should default to ThingState', () => {
      doNotExecute(() => {
        const result = useThing({ filters: { status: 'pending' } })

        expectTypeOf(result).toEqualTypeOf<Array<ThingState>>()
      })
    })
  })
  it('returns the things', () => {
    expect(useThing({}).length).toBe(0)
  })
})
"""

HOOK_NEW = """
import { describe, expect, it } from 'vitest'
import { useThing } from '../useThing'

describe('useThing', () => {
  it('returns the things', () => {
    expect(useThing({}).length).toBe(0)
  })
})
"""

TYPE_TEST = """
import { describe, expectTypeOf, it } from 'vitest'
import { useThing } from '../useThing'

describe('useThing', () => {
  it('should default to ThingState', () => {
    const things = useThing({ filters: { status: 'pending' } })

    expectTypeOf(things).toEqualTypeOf<Array<ThingState<unknown, Error>>>()
  })
})
"""


def test_a_test_moved_into_a_type_test_file_with_its_locals_renamed_is_a_move() -> None:
    found = tw(
        change("src/__tests__/useThing.test.tsx", HOOK_OLD, HOOK_NEW),
        change("src/__tests__/useThing.test-d.tsx", None, TYPE_TEST),
    )
    assert found == []


def test_a_type_test_dropped_without_an_heir_is_still_deleted() -> None:
    found = tw(change("src/__tests__/useThing.test.tsx", HOOK_OLD, HOOK_NEW))
    assert [f.rule for f in found] == ["js-test-deleted"]


def test_a_type_test_moved_but_loosened_is_still_reported() -> None:
    loose = TYPE_TEST.replace("toEqualTypeOf", "toMatchTypeOf")
    found = tw(
        change("src/__tests__/useThing.test.tsx", HOOK_OLD, HOOK_NEW),
        change("src/__tests__/useThing.test-d.tsx", None, loose),
    )
    assert [f.rule for f in found] == ["js-test-deleted"]


def test_expect_type_of_is_an_assertion_with_a_rank() -> None:
    old = """
    test('types', () => {
      expectTypeOf(parse('1')).toEqualTypeOf<number>()
    })
    """
    new = old.replace("toEqualTypeOf<number>", "toMatchTypeOf<number>")
    [finding] = tw(change("src/parse.test-d.ts", old, new))
    assert finding.rule == "js-assertion-weakened"


# --- renamed in place ---------------------------------------------------------------------

PROXY_OLD = """
const { test } = require('node:test')

test('trust proxy function', async t => {
  t.assert.strictEqual(resolve(1), 1)
})

test('trust proxy with number and null socket', t => {
  const request = build({ trustProxy: 1, socket: null })
  t.assert.ok(request.ip, 'ip is defined')
  t.assert.strictEqual(request.ip, '1.1.1.1', 'gets ip from x-forwarded-for')
})

test('trust proxy does not trust the host', t => {
  t.assert.strictEqual(resolve(2), 2)
})
"""

PROXY_NEW = """
const { test } = require('node:test')

test('trust proxy function', async t => {
  t.assert.strictEqual(resolve(1), 1)
})

test('trust proxy with number and null socket ignores forwarded headers', t => {
  const headers = { host: 'real.test', 'x-forwarded-for': '2.2.2.2, 1.1.1.1' }
  const req = build({ trustProxy: 1, socket: null, headers })
  t.assert.strictEqual(req.ip, null, 'ip falls back to the socket address')
  t.assert.strictEqual(req.host, 'real.test', 'host ignores x-forwarded-host')
})

test('trust proxy does not trust the host', t => {
  t.assert.strictEqual(resolve(2), 2)
})
"""


def test_a_test_renamed_in_place_and_rewritten_is_compared_not_deleted() -> None:
    assert tw(change("test/trust-proxy.test.js", PROXY_OLD, PROXY_NEW)) == []


def test_a_test_renamed_in_place_that_loses_its_checks_is_still_reported() -> None:
    kept = PROXY_NEW.split("\n")
    new = "\n".join(line for line in kept if "t.assert.strictEqual(req." not in line)
    found = tw(change("test/trust-proxy.test.js", PROXY_OLD, new))
    assert found, "a renamed test that asserts nothing any more lost its checks"
    assert {f.rule for f in found} <= {"js-assertion-removed", "js-test-deleted"}


def test_an_unrelated_test_written_where_one_was_deleted_is_no_heir() -> None:
    new = PROXY_NEW.replace(
        "trust proxy with number and null socket ignores forwarded headers",
        "serialises the reply body as JSON",
    )
    found = tw(change("test/trust-proxy.test.js", PROXY_OLD, new))
    assert [f.rule for f in found] == ["js-test-deleted"]


# --- error message -> error code or class ---------------------------------------------------

PORT_OLD = """
test('listen should reject string port', async (t) => {
  t.plan(2)
  try {
    await fastify.listen({ port: 'hello-world' })
  } catch (error) {
    t.same(error.message, 'options.port should be >= 0 and < 65536. Received hello-world.')
  }
  try {
    await fastify.listen({ port: '1234hello' })
  } catch (err) {
    t.same(err.message, 'options.port should be >= 0 and < 65536. Received 1234hello.')
  }
})
"""


def test_an_error_message_check_replaced_by_its_error_code_is_kept() -> None:
    new = PORT_OLD.replace(
        "t.same(error.message, 'options.port should be >= 0 and < 65536. Received hello-world.')",
        "t.equal(error.code, 'ERR_SOCKET_BAD_PORT')",
    ).replace(
        "t.same(err.message, 'options.port should be >= 0 and < 65536. Received 1234hello.')",
        "t.equal(err.code, 'ERR_SOCKET_BAD_PORT')",
    )
    assert tw(change("test/server.test.js", PORT_OLD, new)) == []


def test_an_error_message_check_replaced_by_its_class_is_kept() -> None:
    new = PORT_OLD.replace(
        "t.same(error.message, 'options.port should be >= 0 and < 65536. Received hello-world.')",
        "expect(error).toBeInstanceOf(RangeError)",
    ).replace(
        "t.same(err.message, 'options.port should be >= 0 and < 65536. Received 1234hello.')",
        "assert.ok(err instanceof RangeError)",
    )
    assert tw(change("test/server.test.js", PORT_OLD, new)) == []


def test_an_error_message_check_dropped_for_a_mere_existence_check_is_reported() -> None:
    new = PORT_OLD.replace(
        "t.same(error.message, 'options.port should be >= 0 and < 65536. Received hello-world.')",
        "t.ok(error.code)",
    )
    found = tw(change("test/server.test.js", PORT_OLD, new))
    assert found and all("hello-world" in f.claim or "error" in f.claim for f in found)


# --- a property the change removed from the code ---------------------------------------------

SERIALIZER_OLD = """
const serializers = {
  req: function asReqValue (req) {
    return {
      id: req.id,
      method: req.method,
      url: req.url
    }
  }
}
"""

LOGGER_TEST_OLD = """
test('should serialize request and response', t => {
  t.plan(3)
  const l = lines.find((line) => line.res)
  t.is(l.req.id, 1)
  t.is(l.req.method, 'GET')
  t.is(l.req.url, '/500')
})
"""


def test_an_assertion_on_a_property_the_change_removed_from_the_code_goes_with_it() -> None:
    found = tw(
        change("lib/logger.js", SERIALIZER_OLD, SERIALIZER_OLD.replace("      id: req.id,\n", "")),
        change(
            "test/logger.test.js",
            LOGGER_TEST_OLD,
            LOGGER_TEST_OLD.replace("  t.is(l.req.id, 1)\n", ""),
        ),
    )
    assert found == []


def test_an_assertion_on_a_property_the_code_still_has_is_reported() -> None:
    found = tw(
        change(
            "test/logger.test.js",
            LOGGER_TEST_OLD,
            LOGGER_TEST_OLD.replace("  t.is(l.req.id, 1)\n", ""),
        ),
    )
    assert [f.rule for f in found] == ["js-assertion-removed"]


def test_a_different_test_written_in_place_under_a_sibling_title_is_no_heir() -> None:
    old = """
    test('parses numbers', () => {
      expect(parse('1')).toBe(1)
    })
    """
    new = """
    test('parses strings', () => {
      const text = parse('"a"')
      expect(typeof text).toBe('string')
      expect(text.length).toBe(1)
    })
    """
    found = tw(change("test/parse.test.js", old, new))
    assert [f.rule for f in found] == ["js-test-deleted"]


def test_two_locals_built_alike_from_different_inputs_are_two_values() -> None:
    old = """
    it('has unique inputs and outputs', () => {
      const uniqueInputs = new Set(testCases.map((x) => x.input))
      const uniqueExpects = new Set(testCases.map((x) => x.expected))
      expect(uniqueInputs.size).to.equal(testCases.length)
      expect(uniqueExpects.size).to.equal(testCases.length)
    })
    """
    new = old.replace("      expect(uniqueInputs.size).to.equal(testCases.length)\n", "")
    found = tw(change("test/shorten.test.ts", old, new))
    assert [f.rule for f in found] == ["js-assertion-removed"]
