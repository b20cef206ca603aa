"""Silent-fallback and security on mechanical sweeps (issue 8): a pyupgrade or Python-2-drop
rewrite restates a handler or a call under its modern name; it introduces nothing."""

from __future__ import annotations

import textwrap

import pytest

from contend.critics.static.base import Finding
from contend.critics.static.silent_fallback import CRITIC
from contend.critics.static.testing import change_from_texts


def _check(old: str, new: str, path: str = "pkg/mod.py") -> list[Finding]:
    change = change_from_texts(path, textwrap.dedent(old), textwrap.dedent(new))
    return [r for r in CRITIC.check([change]) if isinstance(r, Finding)]


HANDLER = """
import select
import socket


def first(path):
    check(path)


def run(paths):
    for path in paths:
        try:
            check(path)
        except {caught} as e:
            print("WARNING: Unable to parse file {{0}} due to {{1}}".format(path, e))
"""


@pytest.mark.parametrize(
    "alias",
    ["IOError", "EnvironmentError", "socket.error", "select.error", "(IOError, ValueError)"],
)
def test_an_oserror_alias_restated_as_oserror_is_the_same_handler(alias: str) -> None:
    # isort's pyupgrade sweep: `except IOError` -> `except OSError`, message reformatted.
    old = HANDLER.format(caught=alias)
    new = HANDLER.format(
        caught=alias.replace("IOError", "OSError")
        .replace("EnvironmentError", "OSError")
        .replace("socket.error", "OSError")
        .replace("select.error", "OSError")
    ).replace("{0} due to {1}", "{} due to {}")
    assert _check(old, new) == []


def test_a_handler_widened_from_an_alias_to_more_classes_is_still_raised() -> None:
    old = HANDLER.format(caught="IOError")
    new = HANDLER.format(caught="(OSError, ValueError)")
    assert [f.rule for f in _check(old, new)] == ["widened-except"]


# ------------------------------------------------------------ security: compat wrappers


def _security(old: str, new: str) -> list[Finding]:
    from contend.critics.static.security import CRITIC as SECURITY

    change = change_from_texts("pkg/proxy.py", textwrap.dedent(old), textwrap.dedent(new))
    return [r for r in SECURITY.check([change]) if isinstance(r, Finding)]


PROXY = """
{imports}


def create_proxy(name, func_text):
    globals_ = {{}}
    lcl = {{}}
    {call}(func_text, globals_, lcl)
    return lcl[name]
"""


def test_a_compat_exec_wrapper_restated_as_the_builtin_is_not_a_new_exec() -> None:
    # alembic's Python 2 drop: `compat.exec_(src, g, l)` -> `exec(src, g, l)`, same code.
    old = PROXY.format(imports="from .compat import exec_", call="exec_")
    new = PROXY.format(imports="", call="exec")
    assert _security(old, new) == []


def test_an_exec_of_other_code_than_the_wrapper_ran_is_still_raised() -> None:
    old = PROXY.format(imports="from .compat import exec_", call="exec_")
    new = old.replace("exec_(func_text", "exec(name").replace("from .compat import exec_", "")
    assert [f.rule for f in _security(old, new)] == ["bandit-B102"]


# ------------------------------------------------ raise-to-default: an error collector


COLLECTOR_OLD = """
class Metadata:
    @classmethod
    def from_email(cls, data, validate=True):
        raw, unparsed = parse_email(data)
        if validate:
            with _ErrorCollector().on_exit("unparsed") as collector:
                for key in unparsed:
                    collector.error(InvalidMetadata(key, "bad"))
        try:
            return cls.from_raw(raw, validate=validate)
        except ExceptionGroup as exc_group:
            raise ExceptionGroup("invalid metadata", exc_group.exceptions) from None
"""
COLLECTOR_NEW = """
class Metadata:
    @classmethod
    def from_email(cls, data, validate=True):
        raw, unparsed = parse_email(data)
        if validate:
            with _ErrorCollector().on_exit("invalid metadata") as collector:
                for key in unparsed:
                    collector.error(InvalidMetadata(key, "bad"))
                try:
                    validated = cls.from_raw(raw, validate=validate)
                except ExceptionGroup as exc_group:
                    for exc in exc_group.exceptions:
                        collector.error(exc)
                else:
                    if not collector.errors:
                        return validated
        return cls.from_raw(raw, validate=validate)
"""


def test_a_raise_moved_into_an_error_collector_whose_exit_raises_is_not_a_default() -> None:
    # packaging `Metadata.from_email`: the ExceptionGroup's errors now go to the
    # `_ErrorCollector` of the enclosing `with`, whose exit raises them all.
    assert _check(COLLECTOR_OLD, COLLECTOR_NEW) == []


def test_errors_caught_and_dropped_beside_a_collector_are_still_a_default() -> None:
    dropped = COLLECTOR_NEW.replace("collector.error(exc)", "print(exc)")
    assert [f.rule for f in _check(COLLECTOR_OLD, dropped)] == ["raise-to-default"]


def test_a_typing_cast_added_around_an_argument_of_an_old_exec_is_not_a_new_exec() -> None:
    # alembic's strict-typing sweep: `exec(src, globals_, lcl)` ->
    # `exec(src, cast("Dict[str, Any]", globals_), lcl)`; cast does nothing at run time.
    old = PROXY.format(imports="", call="exec")
    new = old.replace(
        "(func_text, globals_, lcl)", '(func_text, cast("Dict[str, Any]", globals_), lcl)'
    )
    new = "from typing import cast\n" + new
    assert _security(old, new) == []
