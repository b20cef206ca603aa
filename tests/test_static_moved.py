"""The pre-existing-pattern test (`contend.critics.static.moved`): a construct that only
moved, or is still there under renamed names or in a ported file, is neither new nor
removed — and a real addition or removal still changes the counts and is reported."""

from __future__ import annotations

import pytest

from contend.critics.static.base import FileChange
from contend.critics.static.calibration import Blocking
from contend.critics.static.moved import MovedIndex, drop_moved
from contend.critics.static.runner import run_static
from contend.critics.static.testing import change_from_texts


def _rules(changes: list[FileChange], topic: str) -> list[str]:
    return [f.rule for f in run_static(changes, f"static:{topic}").findings]


# --- Python ---------------------------------------------------------------------------

_STATE_OLD = """\
class Machine:
    def advance(self, event):
        if event not in self.allowed:
            raise InvalidTransition(f"{self.state} cannot take {event}")
        self.state = self.allowed[event]
        return self.state
"""

_STATE_NEW = """\
class Machine:
    def advance(self, event):
        target = self._checked_transition(event)
        if target is None:
            return None
        self.state = target
        return self.state

    def _checked_transition(self, ev):
        if ev not in self.allowed:
            raise InvalidTransition(f"{self.state} cannot take {ev}")
        return self.allowed[ev]
"""


def test_raise_moved_into_a_helper_is_not_raise_to_default() -> None:
    change = change_from_texts("pkg/state.py", _STATE_OLD, _STATE_NEW)
    assert "raise-to-default" not in _rules([change], "silent-fallback")


def test_raise_really_replaced_by_a_default_is_still_reported() -> None:
    new = _STATE_OLD.replace(
        'raise InvalidTransition(f"{self.state} cannot take {event}")', "return None"
    )
    change = change_from_texts("pkg/state.py", _STATE_OLD, new)
    assert "raise-to-default" in _rules([change], "silent-fallback")


_GUARD_OLD = """\
def scale(values, factor):
    if not isinstance(factor, int):
        raise TypeError("factor must be an int")
    return [v * factor for v in values]
"""


def test_guard_kept_under_a_renamed_parameter_is_not_removed() -> None:
    new = _GUARD_OLD.replace("factor", "multiplier").replace(
        '"multiplier must be an int"', '"factor must be an int"'
    )
    change = change_from_texts("pkg/scale.py", _GUARD_OLD, new)
    assert "validation-guard-removed" not in _rules([change], "boundary-typing")


def test_guard_really_removed_is_still_reported() -> None:
    new = _GUARD_OLD.replace(
        '    if not isinstance(factor, int):\n        raise TypeError("factor must be an int")\n',
        "",
    )
    change = change_from_texts("pkg/scale.py", _GUARD_OLD, new)
    assert "validation-guard-removed" in _rules([change], "boundary-typing")


_LOG_OLD = """\
import threading

class Logger:
    def __init__(self):
        self._lock = threading.Lock()
        self._enabled = {}

    def opt(self):
        def log_function(name, level):
            self._enabled[name] = level > 10
            return level
        return log_function
"""

_LOG_NEW = """\
import threading

class Logger:
    def __init__(self):
        self._lock = threading.Lock()
        self._enabled = {}

    def opt(self):
        return self._log

    def _log(self, name, level):
        self._enabled[name] = level > 10
        return level
"""


def test_write_moved_from_a_nested_function_into_a_method_is_not_new() -> None:
    changes = [change_from_texts("pkg/log.py", _LOG_OLD, _LOG_NEW)]
    index = MovedIndex(changes)
    findings = run_static([change_from_texts("pkg/log.py", _LOG_OLD, _LOG_NEW)]).findings
    assert all(not index.is_moved(f) for f in findings)  # what remains is not a move
    assert "unlocked-shared-mutation" not in [f.rule for f in findings]


_SWALLOW_OLD = """\
def load(path):
    try:
        return read(path)
    except Exception:
        return None
"""


def test_handler_moved_to_another_file_of_the_change_is_not_new() -> None:
    old_a = _SWALLOW_OLD
    new_a = "from pkg.io import load\n"
    new_b = _SWALLOW_OLD.replace("path", "where")
    changes = [
        change_from_texts("pkg/a.py", old_a, new_a),
        change_from_texts("pkg/io.py", None, new_b),
    ]
    assert "swallowing-handler" not in _rules(changes, "silent-fallback")


def test_a_second_copy_of_an_existing_handler_is_still_new() -> None:
    # The same handler shape, names aside, already stood in `load`; `fetch` gains a copy.
    unguarded = "\n\ndef fetch(url):\n    return read(url)\n"
    guarded = "\n\n" + _SWALLOW_OLD.replace("def load(path)", "def fetch(url)").replace(
        "read(path)", "read(url)"
    )
    old = _SWALLOW_OLD + unguarded
    new = _SWALLOW_OLD + guarded
    change = change_from_texts("pkg/a.py", old, new)
    assert "swallowing-handler" in _rules([change], "silent-fallback")


# --- JavaScript / TypeScript ----------------------------------------------------------

_JS_GUARD_OLD = """\
export function validateStdio(stdioStreams) {
  if (stdioStreams.length === 0) {
    throw new TypeError('The stdio option must not be an empty array.');
  }
  return stdioStreams.map(normalize);
}
"""


def test_js_guard_under_a_renamed_parameter_is_not_removed() -> None:
    new = _JS_GUARD_OLD.replace("stdioStreams", "stdioItems")
    change = change_from_texts("lib/stdio.js", _JS_GUARD_OLD, new)
    assert "js-validation-guard-removed" not in _rules([change], "boundary-typing")


def test_js_guard_kept_in_a_ts_port_is_not_removed() -> None:
    new = _JS_GUARD_OLD.replace(
        "validateStdio(stdioStreams)", "validateStdio(stdioStreams: string[]): string[]"
    )
    changes = [
        change_from_texts("lib/stdio.js", _JS_GUARD_OLD, None),
        change_from_texts("lib/stdio.ts", None, new),
    ]
    assert "js-validation-guard-removed" not in _rules(changes, "boundary-typing")


def test_js_guard_really_removed_is_still_reported() -> None:
    new = _JS_GUARD_OLD.replace(
        "  if (stdioStreams.length === 0) {\n"
        "    throw new TypeError('The stdio option must not be an empty array.');\n"
        "  }\n",
        "",
    )
    change = change_from_texts("lib/stdio.js", _JS_GUARD_OLD, new)
    assert "js-validation-guard-removed" in _rules([change], "boundary-typing")


_JS_CATCH_OLD = """\
function run(handler, usage) {
  return handler().catch(err => {
    try {
      usage.fail(err.message, err);
    } catch (failError) {}
  });
}
"""

_JS_CATCH_NEW = """\
function run(handler, usage) {
  return handler()
    .then(result => result)
    .catch(err => {
      try {
        usage.fail(err.message, err);
      } catch (failError) {}
    });
}
"""


def test_js_empty_catch_reindented_into_a_chain_is_not_new() -> None:
    change = change_from_texts("lib/command.js", _JS_CATCH_OLD, _JS_CATCH_NEW)
    assert "js-empty-catch" not in _rules([change], "silent-fallback")


def test_js_empty_catch_added_is_still_reported() -> None:
    old = "function run(usage, err) {\n  usage.fail(err.message, err);\n}\n"
    new = (
        "function run(usage, err) {\n  try {\n    usage.fail(err.message, err);\n"
        "  } catch (failError) {}\n}\n"
    )
    change = change_from_texts("lib/command.js", old, new)
    assert "js-empty-catch" in _rules([change], "silent-fallback")


def test_drop_moved_drops_only_moved_findings() -> None:
    change = change_from_texts("lib/command.js", _JS_CATCH_OLD, _JS_CATCH_NEW)
    unfiltered = run_static([change], "static:silent-fallback").findings
    assert unfiltered == []  # the runner already applied the test
    new_catch = change_from_texts(
        "lib/command.js",
        "function run(u, e) {\n  u.fail(e.message, e);\n}\n",
        "function run(u, e) {\n  try {\n    u.fail(e.message, e);\n  } catch (x) {}\n}\n",
    )
    kept = run_static([new_catch], "static:silent-fallback").findings
    assert kept and drop_moved(kept, [new_catch]) == kept


_META_OLD = """\
def test_invalid_fields():
    for exc in parse_errors("a"):
        assert isinstance(exc, InvalidMetadata)
        assert exc.field == "a"


def test_invalid_versions():
    for exc in parse_errors("b"):
        assert isinstance(exc, InvalidMetadata)
        assert exc.field == "b"
"""

_META_NEW = """\
def _invalid_metadata_exceptions(data):
    errors = list(parse_errors(data))
    for e in errors:
        assert isinstance(e, InvalidMetadata)
    return errors


def test_invalid_fields():
    for exc in _invalid_metadata_exceptions("a"):
        assert exc.field == "a"


def test_invalid_versions():
    for exc in _invalid_metadata_exceptions("b"):
        assert exc.field == "b"
"""


def test_assertion_moved_into_a_new_asserting_helper_is_not_removed() -> None:
    # Two copies became one, in a helper the change added: fewer copies, nothing lost.
    change = change_from_texts("tests/test_meta.py", _META_OLD, _META_NEW)
    assert "assertion-removed" not in _rules([change], "test-weakening")


def test_assertion_dropped_with_no_helper_is_still_reported() -> None:
    new = _META_OLD.replace("        assert isinstance(exc, InvalidMetadata)\n", "", 1)
    change = change_from_texts("tests/test_meta.py", _META_OLD, new)
    assert "assertion-removed" in _rules([change], "test-weakening")


# --- calibration ------------------------------------------------------------------------


def test_a_rule_never_true_when_it_blocked_reports_minor() -> None:
    old = "def test_sum():\n    total = add(1, 2)\n    assert total == 3\n    assert total > 0\n"
    new = "def test_sum():\n    total = add(1, 2)\n    assert total > 0\n"
    findings = run_static([change_from_texts("tests/test_sum.py", old, new)]).findings
    removed = [f for f in findings if f.rule == "assertion-removed"]
    assert removed and all(f.severity == "minor" for f in removed)


# Under `static.blocking = "rule"` (the previous demotion) a rule with a TRUE blocker keeps
# its severity; under the default earned policy neither record earns blocking, so both are
# listed as minor (docs/static-critics.md, "Calibration").
@pytest.mark.parametrize(("blocking", "expected"), [("rule", "critical"), ("earned", "minor")])
def test_a_swallow_around_a_write(blocking: Blocking, expected: str) -> None:
    old = "def save(db, row):\n    db.insert(row)\n    db.commit()\n"
    new = (
        "def save(db, row):\n    try:\n        db.insert(row)\n        db.commit()\n"
        "    except Exception:\n        pass\n"
    )
    findings = run_static([change_from_texts("pkg/store.py", old, new)], blocking=blocking)
    assert [f.severity for f in findings.findings if f.rule == "swallowing-handler"] == [expected]


@pytest.mark.parametrize(("blocking", "expected"), [("rule", "major"), ("earned", "minor")])
def test_a_rule_with_a_true_blocker_keeps_blocking_only_under_rule(
    blocking: Blocking, expected: str
) -> None:
    old = (
        "def test_add():\n    assert add(1, 2) == 3\n\n\n"
        "def test_sub():\n    assert sub(3, 2) == 1\n"
    )
    new = "def test_add():\n    assert add(1, 2) == 3\n"
    findings = run_static([change_from_texts("tests/test_ops.py", old, new)], blocking=blocking)
    assert [f.severity for f in findings.findings if f.rule == "test-deleted"] == [expected]


def test_ts_ignore_carried_by_a_js_to_ts_port_is_not_added() -> None:
    old = "export function size(list) {\n  // @ts-ignore\n  return list.size;\n}\n"
    new = "export function size(list: unknown) {\n  // @ts-ignore\n  return list.size;\n}\n"
    changes = [
        change_from_texts("lib/size.js", old, None),
        change_from_texts("lib/size.ts", None, new),
    ]
    assert "ts-ignore-added" not in _rules(changes, "boundary-typing")


def test_ts_ignore_added_beside_an_existing_one_is_still_reported() -> None:
    old = "export function size(list: Set<number>) {\n  // @ts-ignore\n  return list.size;\n}\n"
    new = (
        "export function size(list: Set<number>) {\n  // @ts-ignore\n  return list.size;\n}\n"
        "export function count(list: Set<number>) {\n  // @ts-ignore\n  return list.size;\n}\n"
    )
    change = change_from_texts("lib/size.ts", old, new)
    assert "ts-ignore-added" in _rules([change], "boundary-typing")


def test_js_guard_under_a_renamed_parameter_in_a_template_message() -> None:
    old = (
        "export function enable(feature) {\n  if (!known.includes(feature)) {\n"
        "    throw new TypeError(`unknown flag: ${feature}`);\n  }\n  on.add(feature);\n}\n"
    )
    new = old.replace("feature", "name")
    change = change_from_texts("lib/features.js", old, new)
    assert "js-validation-guard-removed" not in _rules([change], "boundary-typing")


def test_a_removed_throw_is_located_on_the_lines_the_change_removed() -> None:
    # The same `throw` line stands in two different guards; the change turns the second into
    # a default. The first, untouched, must not stand in for it.
    old = (
        "export function stars(res) {\n  if (!res.ok) {\n"
        '    throw new Error("Failed to fetch");\n  }\n'
        "  if (res.errors) {\n    console.dir(res.errors, { depth: null });\n"
        '    throw new Error("Failed to fetch");\n  }\n  return res.body;\n}\n'
    )
    new = old.replace(
        '{ depth: null });\n    throw new Error("Failed to fetch");',
        "{ depth: null });\n    return null;",
    )
    assert new != old
    change = change_from_texts("lib/fetch.js", old, new)
    assert "js-throw-to-default" in _rules([change], "silent-fallback")
