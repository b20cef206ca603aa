"""Silent-fallback on the documentation build's configuration (issue 8, fourth pass): a
Sphinx `conf.py` under a docs directory runs only when the docs are built, where a failure
shows as a broken page, not as a silent wrong answer of the product — dateutil's
`docs/conf.py` shim returning None for mocked Windows types. The same handler in the
product's code is still reported."""

from __future__ import annotations

import textwrap

import pytest

from contend.critics.static.base import Finding
from contend.critics.static.silent_fallback import CRITIC
from contend.critics.static.testing import change_from_texts

_OLD = """
import ctypes


def pointer_mock(kind):
    return ctypes.POINTER(kind)
"""

_NEW = """
import ctypes


def pointer_mock(kind):
    try:
        return ctypes.POINTER(kind)
    except Exception:
        return None
"""


def _rules(path: str) -> list[str]:
    change = change_from_texts(path, textwrap.dedent(_OLD), textwrap.dedent(_NEW))
    return [r.rule for r in CRITIC.check([change]) if isinstance(r, Finding)]


@pytest.mark.parametrize("path", ["docs/conf.py", "doc/source/conf.py", "Docs/conf.py"])
def test_a_handler_in_the_sphinx_configuration_is_not_reported(path: str) -> None:
    assert _rules(path) == []


@pytest.mark.parametrize("path", ["src/app/conf.py", "conf.py", "docs/examples/client.py"])
def test_the_same_handler_elsewhere_is_still_reported(path: str) -> None:
    assert _rules(path) == ["swallowing-handler"]
