"""Boundary-typing precision on real typing sweeps (issue 8): what a change does to a type is
compared with what the type meant before, not with whether the word `Any` appears.

Each sample is the shape of a false alarm the critic raised on real commits (alembic's
mypy-strict sweep, aiohttp's return-type fix), beside the widening it must keep raising.
"""

from __future__ import annotations

import textwrap

import pytest

from contend.critics.static.base import Finding
from contend.critics.static.boundary_typing import CRITIC
from contend.critics.static.testing import change_from_texts


def _src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _run(old: str | None, new: str | None, path: str = "src/app/core.py") -> list[Finding]:
    change = change_from_texts(
        path, _src(old) if old is not None else None, _src(new) if new is not None else None
    )
    return [r for r in CRITIC.check([change]) if isinstance(r, Finding)]


def _sig(annotation: str, *, ret: str = "None") -> str:
    return (
        "from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Type, Union\n"
        "from sqlalchemy import Column, TypeEngine\n\n\n"
        f"def configure(opts: {annotation}) -> {ret}:\n"
        "    return None\n"
    )


# --------------------------------------------------------------- a bare generic made explicit


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("dict", "Dict[str, Any]"),
        ("Optional[dict]", "Optional[Dict[str, Any]]"),
        ("dict", "dict[str, Any]"),
        ("Callable", "Callable[..., Any]"),
        ("tuple", "Tuple[Any, ...]"),
        ("Optional[tuple]", "Optional[Tuple[Any, ...]]"),
        ("TypeEngine", "TypeEngine[Any]"),
        (
            "Union[TypeEngine, Type[TypeEngine], None]",
            "Union[TypeEngine[Any], Type[TypeEngine[Any]], None]",
        ),
        ("List[dict]", "List[Dict[str, Any]]"),
        ("Column", "Column[Any]"),
        ("Sequence", "Sequence[Any]"),
        ("Dict[type, Tuple[set, list]]", "Dict[type, Tuple[set[str], List[Tuple[Any, str]]]]"),
        ("Optional[dict]", "Dict[str, Any] | None"),
        ('"Optional[dict]"', '"Optional[Dict[str, Any]]"'),
    ],
)
def test_a_bare_generic_made_explicit_is_not_a_widening(old: str, new: str) -> None:
    # A bare generic's parameters are implicitly Any: writing them out (mypy's
    # disallow-any-generics) names the same type, or a narrower one (str keys).
    assert _run(_sig(old), _sig(new)) == []


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("bytes", "Any"),
        ("Dict[str, int]", "Dict[str, Any]"),
        ("Optional[dict]", "Any"),
        ("Tuple[int, str]", "Tuple[Any, ...]"),
        ("Callable[[int], str]", "Callable[..., Any]"),
        ("Union[int, str]", "Union[int, Any]"),
        ("Optional[Dict[str, int]]", "Optional[Dict[str, Any]]"),
        ("Session", "Dict[str, Any]"),
        ('"Session"', "Any"),
    ],
)
def test_a_precise_type_or_parameter_replaced_by_any_is_still_raised(old: str, new: str) -> None:
    [finding] = _run(_sig(old), _sig(new))
    assert finding.rule == "any-annotation-added"
    assert "`configure`: `opts` was `" in finding.claim


def test_a_return_annotated_none_on_a_function_that_returned_a_value_becomes_any() -> None:
    # aiohttp `WSMessage.json`: `-> None` on `return loads(self.data)` was wrong (no caller
    # could use the result under it); `Any` is the parsed JSON's real contract.
    old = """
    from typing import Any

    class Message:
        def json(self, *, loads=None) -> None:
            return loads(self.data)
    """
    new = old.replace("-> None", "-> Any")
    assert _run(old, new) == []


def test_a_none_return_of_a_function_that_returned_nothing_made_any_is_raised() -> None:
    old = """
    from typing import Any

    class Message:
        def close(self) -> None:
            self.closed = True
    """
    new = """
    from typing import Any

    class Message:
        def close(self) -> Any:
            self.closed = True
            return self.sock.close()
    """
    [finding] = _run(old, new)
    assert finding.rule == "any-annotation-added"


# ------------------------------------------------------------------------------ cast(Any)


def test_a_cast_to_a_type_that_holds_any_is_not_a_cast_to_any() -> None:
    # alembic: `cast("Dict[str, Any]", globals_)` narrows a mapping for exec; the values were
    # Any already. Only a cast whose target is `Any` itself switches checking off.
    new = """
    from typing import Any, Callable, Dict, cast

    def load(globals_, lcl, name):
        exec("x = 1", cast("Dict[str, Any]", globals_), lcl)
        fn = cast(Callable[..., Any], lcl[name])
        raw = cast("Any", lcl)
        return fn, raw
    """
    assert [(f.rule, f.start_line) for f in _run(None, new)] == [("cast-to-any-added", 6)]


# ------------------------------------------------------------------------ type: ignore


def test_an_ignore_on_an_import_line_is_not_raised() -> None:
    # An import's line can only fail to resolve its module or name (missing stubs, an
    # untyped or optional dependency): no later edit of other code hides behind it.
    old = """
    import os

    def run():
        return os.getcwd()
    """
    new = """
    import os

    import mkdocs_gen_files  # type: ignore
    from ._vendored import PrettyPrinter  # type: ignore

    def run():
        return os.getcwd(), mkdocs_gen_files, PrettyPrinter
    """
    assert _run(old, new) == []


def test_an_ignore_on_an_optional_import_fallback_is_not_raised() -> None:
    # isort: `except ImportError: parse_requirements = None  # type: ignore` -- the
    # fallback redefines the imported name; that redefinition is the only error there.
    old = """
    try:
        from pip_api import parse_requirements
    except ImportError:
        parse_requirements = None
    """
    new = old.replace("parse_requirements = None", "parse_requirements = None  # type: ignore")
    assert _run(old, new) == []


def test_an_ignore_on_code_beside_an_import_probe_is_still_raised() -> None:
    old = """
    try:
        from pip_api import parse_requirements
    except ImportError:
        parse_requirements = None
        LIMIT = 3
    """
    new = old.replace("LIMIT = 3", 'LIMIT = "3" + 1  # type: ignore')
    assert [(f.rule, f.start_line) for f in _run(old, new)] == [("type-ignore-added", 5)]
    wide = "import os\n\nx: int = os.environ.get('X')  # type: ignore\n"
    assert [f.rule for f in _run("import os\n", wide)] == ["type-ignore-added"]


# ------------------------------------------------------------ validation-guard-removed


def test_a_guard_whose_raise_stays_in_the_function_is_restructured_not_removed() -> None:
    # pluggy `_remove_plugin`: two lists merged into one; the `raise ValueError` that ran
    # when neither held the plugin now runs after the loop over the merged list.
    old = """
    class Hook:
        def remove_plugin(self, plugin):
            def remove(impls):
                for i, method in enumerate(impls):
                    if method.plugin == plugin:
                        del impls[i]
                        return True
                return None

            if remove(self._wrappers) is None:
                if remove(self._nonwrappers) is None:
                    raise ValueError(f"plugin {plugin!r} not found")
    """
    new = """
    class Hook:
        def remove_plugin(self, plugin):
            for i, method in enumerate(self._impls):
                if method.plugin == plugin:
                    del self._impls[i]
                    return
            raise ValueError(f"plugin {plugin!r} not found")
    """
    assert _run(old, new) == []


def test_one_of_two_guards_raising_the_same_error_removed_is_still_raised() -> None:
    old = """
    def set_age(person, age):
        if not isinstance(age, int):
            raise ValueError("bad age")
        if age < 0:
            raise ValueError("bad age")
        person.age = age
    """
    new = """
    def set_age(person, age):
        if not isinstance(age, int):
            raise ValueError("bad age")
        person.age = age
    """
    assert [f.rule for f in _run(old, new)] == ["validation-guard-removed"]
