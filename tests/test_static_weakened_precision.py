"""Test-weakening precision on real commits, third pass (issue 8): families of false alarms
the tuning sets still showed, each as the reasoning that was wrong — and the real weakening
of the same shape, still reported."""

from __future__ import annotations

import textwrap

import pytest

from contend.critics.static.base import Finding
from contend.critics.static.testing import change_from_texts
from contend.critics.static.weakened_tests import CRITIC

PATH = "tests/test_app.py"


def _src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _run(old: str | None, new: str | None, path: str = PATH) -> list[Finding]:
    change = change_from_texts(
        path, _src(old) if old is not None else None, _src(new) if new is not None else None
    )
    return [r for r in CRITIC.check([change]) if isinstance(r, Finding)]


def _rules(findings: list[Finding]) -> list[str]:
    return sorted(f.rule for f in findings)


# ------------------------------------------------- skip on an optional dependency's probe

_PROBED = """
import pytest

try:
    import cython
except ImportError:
    cython = None


def test_coroutine_check():
    assert check() is True
"""


@pytest.mark.parametrize("condition", ["cython", "not cython", "cython is not None"])
def test_skip_on_an_optional_import_probe_is_an_environment_check(condition: str) -> None:
    # falcon: skipif(cython, reason=...) where `cython` is bound by `try: import cython /
    # except ImportError: cython = None` — whether an optional dependency is installed.
    new = _PROBED.replace(
        "def test_coroutine_check():",
        f"@pytest.mark.skipif({condition}, reason='cannot be detected')\n"
        "def test_coroutine_check():",
    )
    assert _run(_PROBED, new) == []


def test_skip_on_a_module_constant_is_still_reported() -> None:
    # Same shape, but the name is a constant of the test module: the skip is unconditional.
    old = _PROBED.replace(
        "try:\n    import cython\nexcept ImportError:\n    cython = None\n", "cython = True\n"
    )
    new = old.replace(
        "def test_coroutine_check():",
        "@pytest.mark.skipif(cython, reason='cannot be detected')\ndef test_coroutine_check():",
    )
    assert _rules(_run(old, new)) == ["skip-without-issue"]


# ------------------------------------------------------------- issue named by its number

_PLAIN = """
import pytest


def test_preflight():
    assert preflight() == 204
"""


@pytest.mark.parametrize(
    "reason",
    ["will be fixed in 2325", "see issue 2325", "fixed by PR 1024", "gh-1024", "bpo-31141"],
)
def test_a_reason_naming_an_issue_by_number_is_a_reference(reason: str) -> None:
    new = _PLAIN.replace(
        "def test_preflight():", f"@pytest.mark.xfail(reason={reason!r})\ndef test_preflight():"
    )
    assert _run(_PLAIN, new) == []


@pytest.mark.parametrize("reason", ["will be fixed later", "flaky on CI since 2024", "py 3.12"])
def test_a_reason_without_an_issue_is_still_reported(reason: str) -> None:
    new = _PLAIN.replace(
        "def test_preflight():", f"@pytest.mark.xfail(reason={reason!r})\ndef test_preflight():"
    )
    assert _rules(_run(_PLAIN, new)) == ["skip-without-issue"]


# ------------------------------------------- parametrized, results unpacked under new names


def test_parametrized_test_whose_unpacked_results_were_renamed_keeps_its_checks() -> None:
    # quart: `headers, path, qs = build(app, '/path', {'a': 'b'})` asserted `path == '/path'`;
    # parametrized, `path` became a parameter and the results `result_path`, `result_qs`.
    old = """
    def test_build():
        headers, path, query_string = build('/path', {'a': 'b'})
        assert path == '/path'
        assert headers['host'] == 'localhost'
        assert query_string == b'a=b'
    """
    new = """
    @pytest.mark.parametrize(
        'path, query_string, expected_path, expected_qs',
        [
            ('/path', {'a': 'b'}, '/path', b'a=b'),
            ('/path?b=c', None, '/path', b'b=c'),
        ],
    )
    def test_build(path, query_string, expected_path, expected_qs):
        headers, result_path, result_qs = build(path, query_string)
        assert result_path == expected_path
        assert headers['host'] == 'localhost'
        assert result_qs == expected_qs
    """
    assert _run(old, new) == []


def test_parametrized_test_that_lost_the_original_case_is_still_reported() -> None:
    old = """
    def test_build():
        headers, path, query_string = build('/path', {'a': 'b'})
        assert path == '/path'
        assert query_string == b'a=b'
    """
    new = """
    @pytest.mark.parametrize(
        'path, query_string, expected_path, expected_qs',
        [('/path?b=c', None, '/path', b'b=c')],
    )
    def test_build(path, query_string, expected_path, expected_qs):
        headers, result_path, result_qs = build(path, query_string)
        assert result_path == expected_path
        assert result_qs == expected_qs
    """
    assert "assertion-removed" in _rules(_run(old, new))


# ----------------------------------- a removed result type: the call returns the value itself

_SOURCE_OLD = """
from collections import namedtuple

MarshalResult = namedtuple("MarshalResult", ["data", "errors"])


class Schema:
    def dumps(self, obj):
        return MarshalResult(encode(obj), {})
"""
_SOURCE_NEW = """
class Schema:
    def dumps(self, obj):
        return encode(obj)
"""
_TEST_OLD = """
def test_dumps_returns_a_marshalresult(user):
    result = Schema().dumps(user)
    assert type(result) == MarshalResult
    assert type(result.data) == str
    assert type(result.errors) == dict
"""
_TEST_NEW = """
def test_dumps_returns_a_string(user):
    result = Schema().dumps(user)
    assert type(result) == str
"""


def _pair(source: tuple[str, str], tests: tuple[str, str]) -> list[Finding]:
    changes = [
        change_from_texts("src/schema.py", _src(source[0]), _src(source[1])),
        change_from_texts(PATH, _src(tests[0]), _src(tests[1])),
    ]
    return [r for r in CRITIC.check(changes) if isinstance(r, Finding)]


def test_a_check_of_a_removed_result_field_made_of_the_whole_result_is_kept() -> None:
    # marshmallow 3: `dumps()` returned MarshalResult(data, errors); now it returns the data,
    # and `type(result.data) == str` became `type(result) == str` — the same check.
    assert _pair((_SOURCE_OLD, _SOURCE_NEW), (_TEST_OLD, _TEST_NEW)) == []


def test_dropping_a_field_access_of_a_result_type_that_stays_is_still_reported() -> None:
    # The result type is still returned: `result` is not the data, the check changed.
    kept = _SOURCE_OLD.replace(
        "return MarshalResult(encode(obj), {})", "return MarshalResult(encode(obj), None)"
    )
    assert "assertion-removed" in _rules(_pair((_SOURCE_OLD, kept), (_TEST_OLD, _TEST_NEW)))


# ------------------------------------------------ an assertion's local inlined into the check


def test_a_check_of_a_local_inlined_into_the_assertion_is_its_replacement() -> None:
    # aiohttp: `body = await resp.read(); assert b"hello aiohttp\n" == body` became
    # `assert await resp.read() == HELLO_AIOHTTP` (the fixture's text changed with it).
    old = """
    async def test_custom_content_type(client):
        resp = await client.get("/")
        assert resp.status == 200
        body = await resp.read()
        assert b"hello aiohttp\\n" == body
        assert resp.headers["Content-Type"] == "application/pdf"
    """
    new = """
    async def test_custom_content_type(client):
        resp = await client.get("/")
        assert resp.status == 200
        assert resp.headers["Content-Type"] == "application/pdf"
        assert await resp.read() == HELLO_AIOHTTP
    """
    assert _run(old, new) == []


def test_an_inlined_local_whose_check_got_weaker_is_still_reported() -> None:
    old = """
    async def test_custom_content_type(client):
        resp = await client.get("/")
        body = await resp.read()
        assert b"hello aiohttp\\n" == body
    """
    new = """
    async def test_custom_content_type(client):
        resp = await client.get("/")
        assert await resp.read()
    """
    assert _rules(_run(old, new)) == ["assertion-weakened"]


def test_a_local_check_dropped_beside_an_unrelated_new_check_is_still_removed() -> None:
    old = """
    async def test_custom_content_type(client):
        resp = await client.get("/")
        body = await resp.read()
        assert b"hello aiohttp\\n" == body
    """
    new = """
    async def test_custom_content_type(client):
        resp = await client.get("/")
        assert client.closed is False
    """
    assert _rules(_run(old, new)) == ["assertion-removed"]


# ------------------------------------------- `m.get(k) is None` and `k not in m`: stricter


@pytest.mark.parametrize("absent", ["form.get('x') is None", "form.get('x') == None"])
def test_get_is_none_replaced_by_not_in_is_not_weaker(absent: str) -> None:
    # starlette: `assert form.get("x") is None` became `assert "x" not in form`; a missing
    # key makes `get` return None, and a key present with the value None now fails.
    old = f"""
    def test_setlist_empty():
        form.setlist("x", [])
        assert {absent}
    """
    new = """
    def test_setlist_empty():
        form.setlist("x", [])
        assert "x" not in form
    """
    assert _run(old, new) == []


def test_get_is_none_replaced_by_another_key_not_in_is_still_weaker() -> None:
    old = """
    def test_setlist_empty():
        form.setlist("x", [])
        assert form.get("x") is None
    """
    new = """
    def test_setlist_empty():
        form.setlist("x", [])
        assert "y" not in form
    """
    assert _rules(_run(old, new)) != []


# ----------------------------------------- a test moved to another file under a shorter name

_REPO_TESTS_OLD = """
def test_other_hook(store):
    assert run_hook(store, "other") == 0


def test_lua_hook(tempdir_factory, store):
    _test_hook_repo(tempdir_factory, store, "lua_repo", "hello-world-lua", [], b"hello world\\n")


def test_local_lua_additional_dependencies(store):
    hook = _get_hook({"id": "local-lua", "language": "lua"}, store, "local-lua")
    ret, out = _hook_run(hook, (), color=False)
    assert b"Luacheck" in out
    assert ret == 0
"""
_REPO_TESTS_NEW = """
def test_other_hook(store):
    assert run_hook(store, "other") == 0
"""
_LUA_TESTS = """
def test_lua(tmp_path):
    expected = (0, b"hello world\\n")
    assert run_language(tmp_path, lua, "hello-world-lua") == expected


def test_lua_additional_dependencies(tmp_path):
    ret, out = run_language(tmp_path, lua, "luacheck --version", deps=("luacheck",))
    assert ret == 0
    assert out.startswith(b"Luacheck: ")
"""


def _moved(lua_tests: str) -> list[Finding]:
    changes = [
        change_from_texts("tests/repository_test.py", _src(_REPO_TESTS_OLD), _src(_REPO_TESTS_NEW)),
        change_from_texts("tests/languages/lua_test.py", None, _src(lua_tests)),
    ]
    return [r for r in CRITIC.check(changes) if isinstance(r, Finding)]


def test_tests_moved_to_a_new_file_under_their_shorter_names_are_not_deleted() -> None:
    # pre-commit: test_lua_hook and test_local_lua_additional_dependencies moved to
    # tests/languages/lua_test.py as test_lua and test_lua_additional_dependencies.
    assert _moved(_LUA_TESTS) == []


def test_a_deleted_test_with_no_namesake_added_is_still_reported() -> None:
    unrelated = _LUA_TESTS.replace("def test_lua(", "def test_rockspec_build(").replace(
        "def test_lua_additional_dependencies(", "def test_luacheck_version("
    )
    assert _rules(_moved(unrelated)) == ["test-deleted", "test-deleted"]


def test_an_added_namesake_that_checks_nothing_does_not_replace_a_deleted_test() -> None:
    empty = """
    def test_lua(tmp_path):
        run_language(tmp_path, lua, "hello-world-lua")


    def test_lua_additional_dependencies(tmp_path):
        run_language(tmp_path, lua, "luacheck --version", deps=("luacheck",))
    """
    assert "test-deleted" in _rules(_moved(empty))


# ------------------------------------------- a removed unit used inside a lambda of the test

_RETRY_OLD = """
import warnings


class Retrying:
    def __call__(self, fn, *args):
        return fn(*args)

    def call(self, fn, *args):
        warnings.warn("'call()' is deprecated, use '__call__()'", DeprecationWarning)
        return self(fn, *args)
"""
_RETRY_NEW = """
class Retrying:
    def __call__(self, fn, *args):
        return fn(*args)
"""
_RETRY_TESTS_OLD = """
def _log_raises(get_call):
    assert get_call(Retrying())(fail) is None


def test_log_raises():
    _log_raises(lambda x: x)


def test_log_raises_deprecated_call():
    _log_raises(lambda x: x.call)
"""
_RETRY_TESTS_NEW = """
def _log_raises(get_call):
    assert get_call(Retrying())(fail) is None


def test_log_raises():
    _log_raises(lambda x: x)
"""


def test_a_test_of_a_removed_method_used_through_a_lambda_goes_with_it() -> None:
    # tenacity: the deprecated `BaseRetrying.call` is removed; its test passed `x.call` to a
    # shared helper through a lambda.
    changes = [
        change_from_texts("tenacity/__init__.py", _src(_RETRY_OLD), _src(_RETRY_NEW)),
        change_from_texts(PATH, _src(_RETRY_TESTS_OLD), _src(_RETRY_TESTS_NEW)),
    ]
    assert [r for r in CRITIC.check(changes) if isinstance(r, Finding)] == []


def test_the_same_test_deleted_while_the_method_stays_is_still_reported() -> None:
    changes = [change_from_texts(PATH, _src(_RETRY_TESTS_OLD), _src(_RETRY_TESTS_NEW))]
    found = [r for r in CRITIC.check(changes) if isinstance(r, Finding)]
    assert [f.rule for f in found] == ["test-deleted"]
