"""`ts-any-annotation-added` on every shape of parameter a typed one can have (measured misses
of bench/js_quality.py's `param_any` operator): constructor parameter properties, rest
parameters, destructured parameters, and parameters of a callback's function type."""

from __future__ import annotations

from textwrap import dedent

import pytest

from contend.critics.static import js_boundary_typing
from contend.critics.static.base import Finding
from contend.critics.static.testing import change_from_texts


def any_findings(old: str, new: str) -> list[tuple[str, int]]:
    change = change_from_texts("src/mod.ts", dedent(old).lstrip(), dedent(new).lstrip())
    results = list(js_boundary_typing.CRITIC.check([change]))
    assert all(isinstance(r, Finding) for r in results), results
    return [(r.rule, r.start_line) for r in results if isinstance(r, Finding)]


CASES = {
    "parameter property": (
        """
        export class Update {
          constructor(
            private session: PgSession,
            readonly table: Table,
          ) {}
        }
        """,
        "private session: PgSession",
        "private session: any",
        3,
    ),
    "rest parameter": (
        """
        export class Delete {
          orderBy(...columns: (Column | SQL)[]): this {
            return this.apply(columns);
          }
        }
        """,
        "...columns: (Column | SQL)[]",
        "...columns: any",
        2,
    ),
    "destructured parameter": (
        """
        export function move(
          vnode: VNode,
          { um: unmount, o: { remove } }: RendererInternals,
        ): void {
          remove(vnode);
        }
        """,
        "{ um: unmount, o: { remove } }: RendererInternals",
        "{ um: unmount, o: { remove } }: any",
        3,
    ),
    "callback parameter": (
        """
        export interface Options {
          renderCallback: (initialProps: Props) => Result;
        }
        """,
        "(initialProps: Props)",
        "(initialProps: any)",
        2,
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_typed_parameter_widened_to_any_is_reported(name: str) -> None:
    old, before, after, line = CASES[name]
    new = old.replace(before, after)
    assert new != old
    assert any_findings(old, new) == [("ts-any-annotation-added", line)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_same_any_already_there_is_not_new(name: str) -> None:
    old, before, after, _line = CASES[name]
    widened = old.replace(before, after)
    assert any_findings(widened, widened.replace("\n}", "\n\n}")) == []
