"""JS/TS test-weakening: a test deleted together with the behaviour it exercised (issue 17).

A change that takes code away often takes its tests with it. The test's subject is gone when
the words that name it — in the test's title or body — were held by the code the change
deleted (its strings, members, identifiers, comments) and no remaining code mentions them;
code left behind only as a comment is gone too. A test whose subject is still in the code is
reported as before."""

from __future__ import annotations

from tests.js_static_helpers import change, tw

from contend.protocol.model import Severity

CONFIGURE_OLD = """
export class Command {
  configure(asProperties) {
    if (this.options.length) {
      throw new Error("call .configure() before adding options");
    }
    if (Object.keys(this.values).length) {
      throw new Error("call .configure() before setting option values");
    }
    this.asProperties = asProperties;
  }
}
"""

CONFIGURE_NEW = """
export class Command {
  configure(asProperties) {
    if (this.options.length) {
      throw new Error("call .configure() before adding options");
    }
    // if (Object.keys(this.values).length) {
    //   throw new Error("call .configure() before setting option values");
    // }
    this.asProperties = asProperties;
  }
}
"""

CONFIGURE_TESTS_OLD = """
test("when configure() after adding option then throw", () => {
  const program = new Command();
  program.option("-p");
  expect(() => program.configure()).toThrow();
});

test("when configure() after setting option value then throw", () => {
  const program = new Command();
  program.setValue("foo", "bar");
  expect(() => {
    program.configure();
  }).toThrow();
});
"""

CONFIGURE_TESTS_NEW = """
test("when configure() after adding option then throw", () => {
  const program = new Command();
  program.option("-p");
  expect(() => program.configure()).toThrow();
});

// test("when configure() after setting option value then throw", () => {
//   const program = new Command();
//   program.setValue("foo", "bar");
//   expect(() => {
//     program.configure();
//   }).toThrow();
// });
"""


def test_a_test_commented_out_with_the_check_it_tested() -> None:
    changes = [
        change("lib/command.js", CONFIGURE_OLD, CONFIGURE_NEW),
        change("tests/configure.test.js", CONFIGURE_TESTS_OLD, CONFIGURE_TESTS_NEW),
    ]
    assert tw(*changes) == []
    # The check still in the code: the same deletion loses it.
    kept = change("lib/command.js", CONFIGURE_OLD, CONFIGURE_OLD.replace("asProperties;", "!!x;"))
    [finding] = tw(kept, changes[1])
    assert finding.rule == "js-test-deleted"


ACTION_OLD = """
export function callAction(fn, args, expected, cmd) {
  const actionArgs = args.slice(0, expected);
  actionArgs[expected] = cmd;
  // Add the surplus arguments so they are available too.
  if (args.length > expected) {
    actionArgs.push(args.slice(expected));
  }
  return fn.apply(cmd, actionArgs);
}
"""

ACTION_NEW = """
export function callAction(fn, args, expected, cmd) {
  const actionArgs = args.slice(0, expected);
  actionArgs.push(cmd);
  return fn.apply(cmd, actionArgs);
}
"""

ACTION_TESTS_OLD = """
test("when .action called then command passed to action", () => {
  const mock = jest.fn();
  run(mock, ["info"]);
  expect(mock).toHaveBeenCalledWith(cmd);
});

test("when .action called with surplus arguments then surplus also passed to action", () => {
  const mock = jest.fn();
  run(mock, ["info", "my-file", "a"]);
  expect(mock).toHaveBeenCalledWith("my-file", cmd, ["a"]);
});
"""

ACTION_TESTS_NEW = """
test("when .action called then command passed to action", () => {
  const mock = jest.fn();
  run(mock, ["info"]);
  expect(mock).toHaveBeenCalledWith(cmd);
});
"""


def test_a_test_titled_after_behaviour_whose_code_and_comment_were_removed() -> None:
    changes = [
        change("lib/action.js", ACTION_OLD, ACTION_NEW),
        change("tests/action.test.js", ACTION_TESTS_OLD, ACTION_TESTS_NEW),
    ]
    assert tw(*changes) == []


def test_a_reworded_comment_whose_words_stay_in_the_code_keeps_the_finding() -> None:
    # The comment changed and the test went, but the code still handles surplus arguments.
    new = ACTION_OLD.replace(
        "// Add the surplus arguments so they are available too.",
        "// Pass any surplus arguments on as one array.",
    )
    changes = [
        change("lib/action.js", ACTION_OLD, new),
        change("tests/action.test.js", ACTION_TESTS_OLD, ACTION_TESTS_NEW),
    ]
    [finding] = tw(*changes)
    assert finding.rule == "js-test-deleted"


def test_one_title_word_shared_with_removed_code_is_not_enough() -> None:
    lib_old = ACTION_OLD.replace("surplus arguments so they are", "extra values so they are")
    changes = [
        change("lib/action.js", lib_old, ACTION_NEW),
        change("tests/action.test.js", ACTION_TESTS_OLD, ACTION_TESTS_NEW),
    ]
    [finding] = tw(*changes)
    assert (finding.rule, finding.severity) == ("js-test-deleted", Severity.MINOR)


BIN_OLD = """
#!/usr/bin/env node
'use strict';
const args = process.argv.slice(2);
if (args.includes('--legacy-trace')) {
  console.warn('"--legacy-trace" is not available any more; use --trace');
  args.push('--trace');
}
run(args);
"""

BIN_NEW = """
#!/usr/bin/env node
'use strict';
const args = process.argv.slice(2);
run(args);
"""

BIN_TESTS_OLD = """
describe('cli', function () {
  it('should trace', function (done) {
    invoke(['--trace'], function (err, res) {
      expect(res, 'to contain output', /tracing/);
      done(err);
    });
  });
  it('should map the old flag', function (done) {
    invoke(['--legacy-trace'], function (err, res) {
      expect(res, 'to contain output', /tracing/);
      done(err);
    });
  });
});
"""

BIN_TESTS_NEW = """
describe('cli', function () {
  it('should trace', function (done) {
    invoke(['--trace'], function (err, res) {
      expect(res, 'to contain output', /tracing/);
      done(err);
    });
  });
});
"""


def test_a_node_script_without_an_extension_is_code_the_change_removes() -> None:
    changes = [
        change("bin/tool", BIN_OLD, BIN_NEW),
        change("test/cli.spec.js", BIN_TESTS_OLD, BIN_TESTS_NEW),
    ]
    assert tw(*changes) == []
    # A script of another language is not read as JavaScript.
    shell = change("bin/tool", BIN_OLD.replace("node", "sh"), BIN_NEW.replace("node", "sh"))
    [finding] = tw(shell, changes[1])
    assert finding.rule == "js-test-deleted"


CLASH_OLD = """
export class Command {
  option(flags) {
    const option = new Option(flags);
    this.checkForClash(option);
    this.options.push(option);
  }

  // Internal routine to check whether a stored option value would clash with a property.
  checkForClash(option) {
    if (this[option.name()] !== undefined) {
      throw new Error(`option clashes with existing property ${option.name()}`);
    }
  }
}
"""

CLASH_NEW = """
export class Command {
  option(flags) {
    const option = new Option(flags);
    this.options.push(option);
  }
}
"""

CLASH_TESTS = """
test("when positive and negative option then ok", () => {
  const program = new Command();
  program.option("--foo");
  expect(() => program.option("--no-foo")).not.toThrow();
});
"""


def test_a_test_file_deleted_as_a_whole_is_named_after_its_subject() -> None:
    deleted = change("tests/options.detectClash.test.js", CLASH_TESTS, None)
    assert tw(change("lib/command.js", CLASH_OLD, CLASH_NEW), deleted) == []
    # The same test deleted from a file that stays: its title alone does not name the check.
    kept = change("tests/options.detectClash.test.js", CLASH_TESTS, "// moved\n")
    [finding] = tw(change("lib/command.js", CLASH_OLD, CLASH_NEW), kept)
    assert finding.rule == "js-test-deleted"


def test_the_runner_hands_a_node_script_without_an_extension_to_the_critic() -> None:
    # The same change through `run_static`, as a review runs it: the runner gives each
    # critic the files of its languages, so the script must reach the test critic too.
    from contend.critics.static.runner import run_static

    changes = [
        change("bin/tool", BIN_OLD, BIN_NEW),
        change("test/cli.spec.js", BIN_TESTS_OLD, BIN_TESTS_NEW),
    ]
    result = run_static(changes, "static:test-weakening")
    assert result.findings == []
