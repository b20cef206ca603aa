"""JS/TS critics on refactors real commits make (issue 17, second pass): each family of false
alarm on the labelled real-commit sets, as a minimal before/after pair, beside the defect of
the same shape that must still be reported."""

from __future__ import annotations

from tests.js_static_helpers import change, source, tw

from contend.critics.static import (
    js_boundary_typing,
    js_silent_fallback,
    js_tests_model,
    js_weakened_tests,
)
from contend.critics.static.base import FileChange, Finding
from contend.critics.static.treesitter import parse


def findings(*changes: FileChange) -> list[Finding]:
    """The critic's findings on a change that also deletes source files (each a skip)."""
    results = js_weakened_tests.CRITIC.check(list(changes))
    return [r for r in results if isinstance(r, Finding)]


# --- a test title written as a concatenation of literals is the same title -------------------

CONCAT_OLD = """
describe("useLazyQuery", () => {
  it(
    "should use variables of the hook options " +
      "when running the lazy execution function",
    async () => {
      const client = new ApolloClient({ cache: new InMemoryCache(), resolvers });
      const wrapper = mount(<Provider client={client}><Cars /></Provider>);
      await wait();
      expect(wrapper.find("li").length).toBe(2);
      expect(wrapper.text()).toContain("Audi");
    }
  );
});
"""

CONCAT_NEW = """
describe("useLazyQuery", () => {
  it("should use variables of the hook options when running the lazy execution function", () => {
    const { result, waitForNextUpdate } = renderHook(() => useLazyQuery(query), { wrapper });
    setTimeout(() => result.current[0]());
    await waitForNextUpdate();
    expect(wrapper.find("li").length).toBe(2);
    expect(wrapper.text()).toContain("Audi");
  });
});
"""


def _titles(text: str) -> list[tuple[str, ...]]:
    root = parse(source(text), "tsx")
    return list(js_tests_model.test_calls(root))


def test_a_title_concatenated_from_literals_is_the_same_title() -> None:
    # Keyed as one literal, the old and the new test are one test, compared check by check
    # (a rewrite far from its old place is not paired by position or by body).
    assert _titles(CONCAT_OLD) == _titles(CONCAT_NEW)
    assert tw(change("src/__tests__/lazy.test.tsx", CONCAT_OLD, CONCAT_NEW)) == []


def test_a_title_concatenated_with_a_name_is_not_folded() -> None:
    old = CONCAT_OLD.replace('"when running the lazy execution function"', "suffix")
    assert _titles(old)[-1][-1] != _titles(CONCAT_NEW)[-1][-1]
    assert "suffix" in _titles(old)[-1][-1]


# --- a test of a module the change deletes goes with it ---------------------------------------

PROP_SRC = """
export function prop(target: any, key: string) {
  target.props = [...(target.props || []), key];
}
"""

PROP_TEST = """
import { prop } from "../src/prop";
import { Component, createInstance } from "@vue/runtime-test";

test("without options", () => {
  let captured;
  class Foo extends Component<{ p: number }> {
    @prop
    p: number;
    created() {
      captured = this.p;
    }
  }
  createInstance(Foo, { p: 1 });
  expect(captured).toBe(1);
});
"""


def test_tests_of_a_module_the_change_deletes_go_with_it() -> None:
    changes = [
        change("packages/decorators/src/prop.ts", PROP_SRC, None),
        change("packages/decorators/__tests__/prop.spec.ts", PROP_TEST, None),
    ]
    assert findings(*changes) == []


def test_a_deleted_test_of_a_module_that_stays_is_still_reported() -> None:
    changes = [
        change("packages/decorators/src/other.ts", PROP_SRC, None),
        change("packages/decorators/__tests__/prop.spec.ts", PROP_TEST, None),
    ]
    assert [f.rule for f in findings(*changes)] == ["js-test-deleted"]


# --- an assertion handed to an assertion helper is still made ---------------------------------

UNTIL_HELPER = """
export async function untilUpdated(
  poll: () => string | Promise<string | null>,
  expected: string,
  runInBuild = false
): Promise<void> {
  if (isBuild && !runInBuild) return
  const maxTries = process.env.CI ? 200 : 50
  for (let tries = 0; tries < maxTries; tries++) {
    const actual = (await poll()) ?? ''
    if (actual.indexOf(expected) > -1 || tries === maxTries - 1) {
      expect(actual).toMatch(expected)
      break
    }
    await timeout(50)
  }
}
"""

HELPER_OLD = """
test('nested worker', async () => {
  await page.click('.ping')
  expect(await page.textContent('.nested-worker')).toMatch('worker-nested-worker')
  expect(await page.textContent('.nested-module')).toMatch('sub-worker')
})
"""

HELPER_NEW = """
test('nested worker', async () => {
  await page.click('.ping')
  await untilUpdated(() => page.textContent('.nested-worker'), 'worker-nested-worker', true)
  await untilUpdated(
    () => page.textContent('.nested-module'),
    'sub-worker',
    true
  )
})
"""


def _helper_change(helper_old: str, helper_new: str) -> FileChange:
    return change("playground/test-utils.ts", helper_old, helper_new)


def test_an_assertion_handed_to_an_asserting_helper_is_kept() -> None:
    changes = [
        _helper_change(UNTIL_HELPER.replace("200", "100"), UNTIL_HELPER),
        change("playground/worker/__tests__/es-worker.spec.ts", HELPER_OLD, HELPER_NEW),
    ]
    assert tw(*changes) == []


def test_a_helper_that_skips_its_assertion_unless_asked_does_not_keep_it() -> None:
    # Without `true`, untilUpdated returns at once in a build run: nothing is asserted there.
    new = HELPER_NEW.replace(", true)", ")").replace("    true\n", "")
    changes = [
        _helper_change(UNTIL_HELPER.replace("200", "100"), UNTIL_HELPER),
        change("playground/worker/__tests__/es-worker.spec.ts", HELPER_OLD, new),
    ]
    assert [f.rule for f in tw(*changes)] == ["js-assertion-removed"] * 2


def test_a_call_that_only_takes_the_subject_does_not_keep_the_assertion() -> None:
    new = HELPER_NEW.replace(", 'worker-nested-worker', true)", ")")
    changes = [
        _helper_change(UNTIL_HELPER.replace("200", "100"), UNTIL_HELPER),
        change("playground/worker/__tests__/es-worker.spec.ts", HELPER_OLD, new),
    ]
    assert [f.rule for f in tw(*changes)] == ["js-assertion-removed"]


# --- a guard kept, reading its operand from elsewhere -----------------------------------------

GUARD_OLD = """
const validateFdNumber = (fdNumber, fdName, isWritable, stdioStreamsGroups) => {
  const stdioStreams = stdioStreamsGroups[fdNumber];
  if (stdioStreams[0].direction === 'input' && !isWritable) {
    throw new TypeError(`"${fdName}" must be a readable stream, not writable.`);
  }
  if (stdioStreams[0].direction !== 'input' && isWritable) {
    throw new TypeError(`"${fdName}" must be a writable stream, not readable.`);
  }
};
"""

GUARD_NEW = """
const validateFdNumber = (fdNumber, fdName, isWritable, fileDescriptors) => {
  const fileDescriptor = fileDescriptors.find((descriptor) => descriptor.fdNumber === fdNumber);
  if (fileDescriptor.direction === 'input' && !isWritable) {
    throw new TypeError(`"${fdName}" must be a readable stream, not writable.`);
  }
  if (fileDescriptor.direction !== 'input' && isWritable) {
    throw new TypeError(`"${fdName}" must be a writable stream, not readable.`);
  }
};
"""


def _typing(old: str, new: str) -> list[Finding]:
    results = js_boundary_typing.CRITIC.check([change("lib/pipe/validate.js", old, new)])
    return [r for r in results if isinstance(r, Finding)]


def test_a_guard_that_reads_its_operand_from_another_object_is_kept() -> None:
    assert _typing(GUARD_OLD, GUARD_NEW) == []


def test_a_guard_whose_condition_is_regrouped_is_still_removed() -> None:
    new = GUARD_NEW.replace(
        "fileDescriptor.direction === 'input' && !isWritable",
        "(fileDescriptor.direction === 'input' || fdNumber) && !isWritable",
    )
    assert [f.rule for f in _typing(GUARD_OLD, new)] == ["js-validation-guard-removed"]


# --- a render-count harness replaced by per-state assertions ----------------------------------

HARNESS_OLD = """
it("should hold query execution until manually triggered", async () => {
  let renderCount = 0;
  const Component = () => {
    const [execute, { loading, data }] = useLazyQuery(CAR_QUERY);
    switch (renderCount) {
      case 0:
        expect(loading).toEqual(false);
        setTimeout(() => execute());
        break;
      case 1:
        expect(loading).toEqual(true);
        break;
      case 2:
        expect(loading).toEqual(false);
        expect(data).toEqual(CAR_RESULT_DATA);
        break;
      default:
    }
    renderCount += 1;
    return null;
  };
  render(<MockedProvider mocks={CAR_MOCKS}><Component /></MockedProvider>);
  return wait(() => {
    expect(renderCount).toBe(3);
  });
});
"""

HARNESS_NEW = """
it("should hold query execution until manually triggered", async () => {
  const { result, waitForNextUpdate } = renderHook(() => useLazyQuery(query), { wrapper });
  expect(result.current[1].loading).toBe(false);
  setTimeout(() => result.current[0]());
  await waitForNextUpdate();
  expect(result.current[1].loading).toBe(true);
  await waitForNextUpdate();
  expect(result.current[1].loading).toBe(false);
  expect(result.current[1].data).toEqual({ hello: "world" });
});
"""


def test_a_render_count_harness_replaced_by_per_state_assertions() -> None:
    assert tw(change("src/__tests__/lazy.test.tsx", HARNESS_OLD, HARNESS_NEW)) == []


def test_a_harness_replaced_by_fewer_checks_still_loses_its_count() -> None:
    new = HARNESS_NEW.replace(
        "  await waitForNextUpdate();\n  expect(result.current[1].loading).toBe(true);\n", ""
    ).replace('  expect(result.current[1].data).toEqual({ hello: "world" });\n', "")
    findings = tw(change("src/__tests__/lazy.test.tsx", HARNESS_OLD, new))
    found = {f.claim.split("`")[3] for f in findings}
    assert "expect(renderCount).toBe(3)" in found


# --- a test that expected the old bug's failure now pins the fixed result ---------------------

FIXED_OLD = """
test("GOAWAY frame", async (t) => {
  const response = await client.request({ path: "/", method: "GET" });
  t.strictEqual(response.statusCode, 200);
  await t.rejects(response.body.text(), {
    message: 'HTTP/2: "GOAWAY" frame received with code 0',
    code: "UND_ERR_SOCKET",
  });
});
"""

FIXED_NEW = """
test("GOAWAY frame", async (t) => {
  const response = await client.request({ path: "/", method: "GET" });
  t.strictEqual(response.statusCode, 200);
  t.strictEqual(await response.body.text(), "Hello World");
});
"""


def test_an_expected_failure_replaced_by_an_exact_result_is_not_removed() -> None:
    assert tw(change("test/http2-goaway.js", FIXED_OLD, FIXED_NEW)) == []


def test_an_expected_failure_replaced_by_a_loose_check_is_removed() -> None:
    new = FIXED_NEW.replace(
        't.strictEqual(await response.body.text(), "Hello World")',
        "t.ok(await response.body.text())",
    )
    assert [f.rule for f in tw(change("test/http2-goaway.js", FIXED_OLD, new))] == [
        "js-assertion-removed"
    ]


# --- a swallowed read whose value only decorates an error report ------------------------------

CLONE_OLD = """
export async function fetchBaseQuery(response, responseHandler) {
  let resultData;
  try {
    resultData = await handleResponse(response, responseHandler);
  } catch (e) {
    return { error: { status: "PARSING_ERROR", error: String(e) } };
  }
  return { data: resultData };
}
"""

CLONE_NEW = """
export async function fetchBaseQuery(response, responseHandler) {
  const responseClone = response.clone();
  let resultData;
  let responseText = "";
  try {
    let handleResponseError;
    await Promise.all([
      handleResponse(response, responseHandler).then(
        (r) => (resultData = r),
        (e) => (handleResponseError = e)
      ),
      responseClone.text().then(
        (r) => (responseText = r),
        () => {}
      ),
    ]);
    if (handleResponseError) throw handleResponseError;
  } catch (e) {
    return { error: { status: "PARSING_ERROR", data: responseText, error: String(e) } };
  }
  return { data: resultData };
}
"""


def _fallbacks(path: str, old: str, new: str) -> list[Finding]:
    results = js_silent_fallback.CRITIC.check([change(path, old, new)])
    return [r for r in results if isinstance(r, Finding)]


def test_a_swallowed_read_that_only_decorates_an_error_report_is_not_a_fallback() -> None:
    assert _fallbacks("src/query/fetchBaseQuery.ts", CLONE_OLD, CLONE_NEW) == []


def test_a_swallowed_read_whose_value_is_returned_as_data_is_a_fallback() -> None:
    new = CLONE_NEW.replace("return { data: resultData };", "return { data: responseText };")
    assert [f.rule for f in _fallbacks("src/query/fetchBaseQuery.ts", CLONE_OLD, new)] == [
        "js-catch-default"
    ]


# --- a name typed only in a comment of the old code had no type -------------------------------

COMMENTED_OLD = """
type AnyFunc = (...args: any[]) => any;

export type EndpointDef<Func extends AnyFunc> = {
  implement: Func;
  authorize: (args: Parameters<Func>) => boolean;
};

// type Authorize<Func extends AnyFunc> = (args: Parameters<Func>, ctx: unknown) => boolean;
"""

COMMENTED_NEW = """
type AnyFunc = (...args: any[]) => any;
type WrappedFunc = (ctx: any) => (...args: any[]) => any;

export type EndpointDef<Func extends WrappedFunc> = {
  implement: Func;
  authorize: (args: Parameters<Func>) => boolean;
};

// type Authorize<Func extends AnyFunc> = (args: Parameters<Func>, ctx: unknown) => boolean;
"""


def test_any_on_a_name_the_old_code_typed_only_in_a_comment_is_new_code() -> None:
    results = js_boundary_typing.CRITIC.check(
        [change("src/types/endpoint.ts", COMMENTED_OLD, COMMENTED_NEW)]
    )
    assert [r for r in results if isinstance(r, Finding)] == []


def test_any_on_a_name_the_old_code_typed_is_still_widened() -> None:
    old = COMMENTED_OLD.replace("// type Authorize", "type Authorize")
    new = COMMENTED_NEW.replace("// type Authorize", "type Authorize").replace(
        "ctx: unknown", "ctx: any"
    )
    results = js_boundary_typing.CRITIC.check([change("src/types/endpoint.ts", old, new)])
    found = [r for r in results if isinstance(r, Finding)]
    assert ("ts-any-annotation-added", 9) in [(f.rule, f.start_line) for f in found]


def test_a_helper_named_like_expect_is_a_helper_not_an_assertion() -> None:
    old = "test('x', () => {\n  expect(total(items)).toEqual(6);\n});\n"
    new = (
        "test('x', () => {\n  expectVia(() => total(items), 6);\n});\n\n"
        "function expectVia(get, expected) {\n  expect(get()).toEqual(expected);\n}\n"
    )
    assert tw(change("test/total.test.js", old, new)) == []


def test_a_guard_that_reads_its_operand_from_a_local_is_kept() -> None:
    old = (
        "function listen(options) {\n"
        "  if (typeof options.signal.on !== 'function') {\n"
        "    throw new TypeError('Invalid options.signal')\n  }\n}\n"
    )
    new = (
        "function listen(options) {\n  const resolved = options.signal;\n"
        "  if (typeof resolved.on !== 'function') {\n"
        "    throw new TypeError('Invalid options.signal')\n  }\n}\n"
    )
    assert _typing(old, new) == []


# --- a removed feature's word left only in an unrelated, untouched line elsewhere -----------

ACTION_OLD = """
export class Command {
  _action(args) {
    const actionArgs = args.slice(0, this._args.length);
    // Add the extra arguments so available too.
    if (args.length > this._args.length) {
      actionArgs.push(args.slice(this._args.length));
    }
    return actionArgs;
  }
}
"""

ACTION_NEW = """
export class Command {
  _action(args) {
    const actionArgs = args.slice(0, this._args.length);
    if (args.length > this._args.length) throw new Error("too many arguments");
    return actionArgs;
  }
}
"""

EXAMPLE_OLD = """
program.option("-d, --debug", "output extra debugging");
program.parse(process.argv);
"""

EXAMPLE_NEW = """
program.option("-d, --debug", "output extra debugging");
program.parse();
"""

ACTION_TEST_OLD = """
test("when .action called then command passed to action", () => {
  expect(run(["info"])).toEqual([cmd]);
});

test("when .action called with extra arguments then extras also passed to action", () => {
  expect(run(["info", "my-file", "a"])).toEqual(["my-file", cmd, ["a"]]);
});
"""

ACTION_TEST_NEW = """
test("when .action called then command passed to action", () => {
  expect(run(["info"])).toEqual([cmd]);
});
"""


def test_a_feature_word_left_only_in_an_untouched_line_of_another_file_is_gone() -> None:
    changes = [
        change("lib/command.js", ACTION_OLD, ACTION_NEW),
        change("examples/options-common.js", EXAMPLE_OLD, EXAMPLE_NEW),
        change("tests/command.action.test.js", ACTION_TEST_OLD, ACTION_TEST_NEW),
    ]
    assert tw(*changes) == []


def test_a_feature_word_that_moved_to_another_file_is_not_gone() -> None:
    moved = EXAMPLE_NEW + 'program.on("extra arguments", (extras) => actionArgs.push(extras));\n'
    changes = [
        change("lib/command.js", ACTION_OLD, ACTION_NEW),
        change("examples/options-common.js", EXAMPLE_OLD, moved),
        change("tests/command.action.test.js", ACTION_TEST_OLD, ACTION_TEST_NEW),
    ]
    assert [f.rule for f in tw(*changes)] == ["js-test-deleted"]
