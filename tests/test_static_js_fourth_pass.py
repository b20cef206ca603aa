"""JS/TS critics, fourth precision pass (issue 17): each family of false alarm found on the
labelled real-commit sets (holdout6, now a tuning set), as a minimal before/after pair beside
the defect of the same shape that must still be reported."""

from __future__ import annotations

from textwrap import dedent
from types import ModuleType

from tests.js_static_helpers import change, tw

from contend.critics.static import js_boundary_typing, js_silent_fallback
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


# --- a guard still made, its operand read under a new name ------------------------------------
# (ajv `ab91c3c`: `it.async` folded into `it.schemaEnv.$async`; both async guards kept their
# condition and their error, on the renamed field)

ASYNC_OLD = """
function checkAsync(it: SchemaObjCxt): void {
  if (it.schema.$async && !it.async) throw new Error("async schema in sync schema")
}

function checkKeyword(it: SchemaObjCxt, def: FuncKeywordDefinition): void {
  if (def.async && !it.async) throw new Error("async keyword in sync schema")
}
"""

ASYNC_NEW = """
function checkAsync(it: SchemaObjCxt): void {
  if (it.schema.$async && !it.schemaEnv.$async) throw new Error("async schema in sync schema")
}

function checkKeyword({schemaEnv}: SchemaObjCxt, def: FuncKeywordDefinition): void {
  if (def.async && !schemaEnv.$async) throw new Error("async keyword in sync schema")
}
"""


def test_a_guard_whose_operand_was_renamed_is_kept() -> None:
    assert run(js_boundary_typing, "lib/compile/validate.ts", ASYNC_OLD, ASYNC_NEW) == []


def test_a_guard_that_lost_a_conjunct_under_a_rename_is_removed() -> None:
    # The same error, but the condition no longer tests what the function is: it rejects less.
    new = ASYNC_NEW.replace("it.schema.$async && !it.schemaEnv.$async", "it.schema.$async")
    assert rules(run(js_boundary_typing, "lib/compile/validate.ts", ASYNC_OLD, new)) == [
        "js-validation-guard-removed"
    ]


def test_a_guard_whose_operand_became_a_constant_is_removed() -> None:
    new = ASYNC_NEW.replace("!schemaEnv.$async", "!true")
    assert rules(run(js_boundary_typing, "lib/compile/validate.ts", ASYNC_OLD, new)) == [
        "js-validation-guard-removed"
    ]


def test_a_renamed_guard_that_throws_something_else_is_removed() -> None:
    # Same shape, but another error: not the same guard (it may now be a warning path).
    new = ASYNC_NEW.replace(
        'throw new Error("async keyword in sync schema")', 'throw new Error("deprecated")'
    )
    assert rules(run(js_boundary_typing, "lib/compile/validate.ts", ASYNC_OLD, new)) == [
        "js-validation-guard-removed"
    ]


# --- a test turned into a describe whose cases run a shared spec factory ----------------------
# (ajv `35da896`: `it("... when one ref is fragment", () => {...})` became `describe("one ref
# is fragment", ...)` with `it("...", spec(new Ajv()))` and `it("...: standalone",
# spec(getStandalone(Ajv)))`, the asserts inside `function spec(ajv) { return () => {...} }`)

FRAGS_OLD = """
describe("issue #210, mutual recursive refs", () => {
  it("should compile and validate schema when one ref is fragment", () => {
    const ajv = new Ajv()
    ajv.addSchema({$id: "foo", definitions: {bar: {$ref: "boo"}}})
    const validate = ajv.compile({$ref: "foo#/definitions/bar"})
    validate({baz: {quux: {baz: 42}}}).should.equal(true)
    validate({baz: {quux: {baz: "foo"}}}).should.equal(false)
  })

  it("should compile and validate schema when both refs are fragments", () => {
    const ajv = new Ajv()
    ajv.addSchema({$id: "foo", definitions: {bar: {$ref: "boo#/definitions/buu"}}})
    const validate = ajv.compile({$ref: "foo#/definitions/bar"})
    validate({baz: {quux: {baz: 42}}}).should.equal(true)
    validate({baz: {quux: {baz: "bar"}}}).should.equal(false)
  })
})
"""

FRAGS_NEW = """
describe("issue #210, mutual recursive refs", () => {
  describe("one ref is fragment", () => {
    it("should compile and validate schema", spec(new Ajv()))
    it("should compile and validate schema: standalone", spec(getStandalone(Ajv)))

    function spec(ajv: AjvCore | AjvPack): () => void {
      return () => {
        ajv.addSchema({$id: "foo", definitions: {bar: {$ref: "boo"}}})
        const validate = ajv.compile({$ref: "foo#/definitions/bar"})
        validate({baz: {quux: {baz: 42}}}).should.equal(true)
        validate({baz: {quux: {baz: "foo"}}}).should.equal(false)
      }
    }
  })

  describe("both refs are fragments", () => {
    it("should compile and validate schema", spec(new Ajv()))
    it("should compile and validate schema: standalone", spec(getStandalone(Ajv)))

    function spec(ajv: AjvCore | AjvPack): () => void {
      return () => {
        ajv.addSchema({$id: "foo", definitions: {bar: {$ref: "boo#/definitions/buu"}}})
        const validate = ajv.compile({$ref: "foo#/definitions/bar"})
        validate({baz: {quux: {baz: 42}}}).should.equal(true)
        validate({baz: {quux: {baz: "bar"}}}).should.equal(false)
      }
    }
  })
})
"""


def test_a_test_restated_as_cases_of_a_spec_factory_is_not_deleted() -> None:
    assert tw(change("spec/issues/210.spec.ts", FRAGS_OLD, FRAGS_NEW)) == []


def test_a_spec_factory_that_dropped_a_check_is_a_deletion() -> None:
    # The second describe's factory no longer checks that the bad value is refused.
    new = FRAGS_NEW.replace(
        '        validate({baz: {quux: {baz: "bar"}}}).should.equal(false)\n', ""
    )
    assert rules(tw(change("spec/issues/210.spec.ts", FRAGS_OLD, new))) == ["js-test-deleted"]


SHARED_OLD = """
describe("issue #8: schema with shared references", () => {
  it("should be supported by compile", () => {
    const ajv = new Ajv()
    ajv.compile(schema)
    expect(ajv.validate("obj.json#", {foo: "abc"})).toBe(true)
    expect(ajv.validate("obj.json#", {foo: "abcde"})).toBe(false)
  })
})
"""

SHARED_NEW = """
describe("issue #8: schema with shared references", () => {
  it("should be supported by compile", () => {
    const ajv = new Ajv()
    ajv.compile(schema)
    spec(ajv)
  })

  it("should be supported by compile: standalone", () => {
    const ajv = getStandalone(Ajv)
    ajv.compile(schema)
    spec(ajv)
  })

  function spec(ajv) {
    expect(ajv.validate("obj.json#", {foo: "abc"})).toBe(true)
    expect(ajv.validate("obj.json#", {foo: "abcde"})).toBe(false)
  }
})
"""


def test_checks_handed_to_a_shared_helper_of_the_file_are_kept() -> None:
    assert tw(change("spec/issues/8.spec.ts", SHARED_OLD, SHARED_NEW)) == []


def test_a_shared_helper_that_dropped_a_check_loses_it() -> None:
    new = SHARED_NEW.replace(
        '    expect(ajv.validate("obj.json#", {foo: "abcde"})).toBe(false)\n', ""
    )
    assert rules(tw(change("spec/issues/8.spec.ts", SHARED_OLD, new))) == ["js-assertion-removed"]


def test_a_test_passed_by_name_runs_the_function_it_names() -> None:
    old = """
    describe("sum", () => {
      it("adds", () => {
        expect(sum(1, 2)).toBe(3)
      })
    })
    """
    new = """
    describe("sum", () => {
      function checksAddition() {
        expect(sum(1, 2)).toBe(3)
      }
      it("adds two numbers", checksAddition)
    })
    """
    assert tw(change("test/sum.test.js", old, new)) == []
    emptied = new.replace("        expect(sum(1, 2)).toBe(3)\n", "")
    assert rules(tw(change("test/sum.test.js", old, emptied))) == ["js-test-deleted"]


# --- a catch kept around the same work, through a drop-in replacement -------------------------
# (joi `ba7ca31`: `try { JSON.parse(value) } catch {}` became `try { Bourne.parse(value) }
# catch { return }`; the failed parse was already dropped before, and `undefined` is what the
# function returns for every input it does not coerce)

COERCE_OLD = """
class ArrayType {
  _coerce(value) {
    const result = { value };
    if (typeof value === 'string') {
      try {
        result.value = JSON.parse(value);
      }
      catch (ignoreErr) { }
    }
    if (!Array.isArray(result.value)) {
      return result;
    }
    return result;
  }
}
"""

COERCE_NEW = """
class ArrayType {
  _coerce(value) {
    const result = { value };
    if (typeof value === 'string') {
      try {
        result.value = Bourne.parse(value);
      }
      catch (ignoreErr) {
        return;
      }
    }
    if (!Array.isArray(result.value)) {
      return;
    }
    return result;
  }
}
"""


def test_a_dropped_failure_kept_through_a_drop_in_replacement_is_not_new() -> None:
    assert run(js_silent_fallback, "lib/types/array.js", COERCE_OLD, COERCE_NEW) == []


def test_a_parse_that_used_to_fail_and_now_returns_undefined_is_new() -> None:
    old = COERCE_OLD.replace(
        """      try {
        result.value = JSON.parse(value);
      }
      catch (ignoreErr) { }
""",
        "      result.value = JSON.parse(value);\n",
    )
    assert rules(run(js_silent_fallback, "lib/types/array.js", old, COERCE_NEW)) == [
        "js-catch-return-default"
    ]


def test_a_catch_around_other_work_of_the_same_method_name_is_new() -> None:
    # Same method name, other arguments: another parse (of the request body), not the same work.
    new = COERCE_NEW.replace("Bourne.parse(value)", "Bourne.parse(request.body)")
    assert rules(run(js_silent_fallback, "lib/types/array.js", COERCE_OLD, new)) == [
        "js-catch-return-default"
    ]


# --- `any` inside a new type declaration that replaced an `any` -------------------------------
# (zustand `ad318f3`: `devtools?: any` became `devtools?: DevtoolsType`, a new type alias whose
# method parameters stay `any`; the name `state` typed `S` elsewhere in the module is another
# value)

DEVTOOLS_OLD = """
export const redux = <S extends State, A>(reducer: (state: S, action: A) => S) =>
  (api: StoreApi<S> & { devtools?: any }): S => {
    return reducer(api.getState(), { type: "init" } as A)
  }
"""

DEVTOOLS_NEW = """
type DevtoolsType = {
  prefix: string
  send: (action: string, state: any) => void
  init: (state: any) => void
}

export const redux = <S extends State, A>(reducer: (state: S, action: A) => S) =>
  (api: StoreApi<S> & { devtools?: DevtoolsType }): S => {
    return reducer(api.getState(), { type: "init" } as A)
  }
"""


def test_any_in_a_new_type_declaration_is_new_code() -> None:
    assert run(js_boundary_typing, "src/middleware.ts", DEVTOOLS_OLD, DEVTOOLS_NEW) == []


def test_any_that_widens_a_parameter_of_an_existing_type_is_reported() -> None:
    old = DEVTOOLS_NEW.replace("state: any", "state: State")
    new = DEVTOOLS_NEW.replace("action: string, state: any", "action: string, state: State")
    found = run(js_boundary_typing, "src/middleware.ts", old, new)
    assert rules(found) == ["ts-any-annotation-added"]
    assert found[0].start_line == 4


def test_any_in_an_existing_interface_property_is_reported() -> None:
    old = """
    interface Options {
      name: string
      storage: StateStorage
    }
    """
    new = """
    interface Options {
      name: string
      storage: any
    }
    """
    assert rules(run(js_boundary_typing, "src/options.ts", old, new)) == ["ts-any-annotation-added"]


# --- a resource probed in a documented empty catch, its absence checked right after -----------
# (zustand `d5e85d2`: `try { storage = getStorage() } catch (e) { // not defined when server
# side rendering }` then `if (!storage) return config(set, get, api)`: persistence is switched
# off, on a path of its own)

PERSIST_OLD = """
export const persist = (config, options) => (set, get, api) => {
  const { name, storage = typeof localStorage !== 'undefined' ? localStorage : noStorage } = options
  const setItem = async () => storage.setItem(name, JSON.stringify(get()))
  return config(set, get, api)
}
"""

PERSIST_NEW = """
export const persist = (config, options) => (set, get, api) => {
  const { name, getStorage = () => localStorage } = options
  let storage
  try {
    storage = getStorage()
  } catch (e) {
    // prevent error if the storage is not defined (e.g. when server side rendering a page)
  }
  if (!storage) return config(set, get, api)
  const setItem = async () => storage.setItem(name, JSON.stringify(get()))
  return config(set, get, api)
}
"""


def test_an_empty_catch_whose_unset_value_is_checked_right_after_is_not_reported() -> None:
    assert run(js_silent_fallback, "src/middleware.ts", PERSIST_OLD, PERSIST_NEW) == []


def test_an_empty_catch_whose_unset_value_is_used_unchecked_is_reported() -> None:
    new = PERSIST_NEW.replace("  if (!storage) return config(set, get, api)\n", "")
    assert rules(run(js_silent_fallback, "src/middleware.ts", PERSIST_OLD, new)) == [
        "js-empty-catch"
    ]


def test_an_empty_catch_checked_only_on_the_success_path_is_reported() -> None:
    # `if (storage) { ... }` is the success path; a failure still passes unnoticed.
    new = PERSIST_NEW.replace(
        "  if (!storage) return config(set, get, api)\n",
        "  if (storage) storage.getItem(name)\n",
    )
    assert rules(run(js_silent_fallback, "src/middleware.ts", PERSIST_OLD, new)) == [
        "js-empty-catch"
    ]


def test_an_empty_catch_around_more_than_the_assignment_is_reported() -> None:
    # The try also does other work whose failure the check of `storage` cannot see.
    new = PERSIST_NEW.replace(
        "    storage = getStorage()\n", "    storage = getStorage()\n    migrate(storage)\n"
    )
    assert rules(run(js_silent_fallback, "src/middleware.ts", PERSIST_OLD, new)) == [
        "js-empty-catch"
    ]


def test_a_test_declaring_a_function_moved_into_a_spec_factory_is_not_deleted() -> None:
    old = """
    describe("unicode", () => {
      it("should use String.prototype.length with unicode == false", () => {
        const ajvUnicode = new Ajv()
        testUnicode(new Ajv({unicode: false}))

        function testUnicode(ajv) {
          ajvUnicode.compile({minLength: 2})("x").should.equal(false)
          ajv.compile({minLength: 2})("x").should.equal(true)
        }
      })
    })
    """
    new = """
    describe("unicode", () => {
      describe("with unicode == false", () => {
        it("should use String.prototype.length", spec(new Ajv()))

        function spec(ajvUnicode) {
          return () => {
            testUnicode(new Ajv({unicode: false}))

            function testUnicode(ajv) {
              ajvUnicode.compile({minLength: 2})("x").should.equal(false)
              ajv.compile({minLength: 2})("x").should.equal(true)
            }
          }
        }
      })
    })
    """
    assert tw(change("spec/options.spec.ts", old, new)) == []
    dropped = new.replace('          ajv.compile({minLength: 2})("x").should.equal(true)\n', "")
    assert rules(tw(change("spec/options.spec.ts", old, dropped))) == ["js-test-deleted"]


def test_a_shared_helper_bound_to_a_typed_const_is_read_too() -> None:
    new = SHARED_NEW.replace("  function spec(ajv) {", "  const spec: Spec = (ajv: Ajv) => {")
    assert tw(change("spec/issues/8.spec.ts", SHARED_OLD, new)) == []
    dropped = new.replace('    expect(ajv.validate("obj.json#", {foo: "abcde"})).toBe(false)\n', "")
    assert rules(tw(change("spec/issues/8.spec.ts", SHARED_OLD, dropped))) == [
        "js-assertion-removed"
    ]


# --- an ava macro's test moved to another file -------------------------------------------------
# (the synthetic `move_test_to_new_file` control on execa's `test('…', testResultIpc, {})`: once
# a test's checks are its macro's, a test moved without its macro must still count as moved)

MACRO_OLD = """
import test from 'ava';

const testResultIpc = async (t, options) => {
  const {ipcOutput} = await execa('ipc-send-twice.js', {ipc: true, ...options});
  t.deepEqual(ipcOutput, foobarArray);
};

test('Sets result.ipcOutput', testResultIpc, {});
test('Sets result.ipcOutput, fd-specific buffer', testResultIpc, {buffer: {stdout: false}});
"""


def test_a_macro_test_moved_to_another_file_is_not_deleted() -> None:
    new = MACRO_OLD.replace("test('Sets result.ipcOutput', testResultIpc, {});\n", "")
    moved = "import test from 'ava';\n\ntest('Sets result.ipcOutput', testResultIpc, {});\n"
    assert (
        tw(
            change("test/ipc/buffer-messages.test.js", MACRO_OLD, new),
            change("test/ipc/buffer-messages.moved.test.js", None, moved),
        )
        == []
    )
