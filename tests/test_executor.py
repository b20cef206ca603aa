"""The executor package: local and process executors, the journal, resume and the caps."""

from __future__ import annotations

from pathlib import Path

import pytest

from contend.errors import UserError
from contend.executor import Caps, Cell, Journal, make_executor, run_grid
from contend.executor import testing as tasks
from contend.executor.base import VOLATILE_FIELDS


def cells(n: int, task: str = "contend.executor.testing:square", **extra: object) -> list[Cell]:
    return [Cell(f"c{i}", task, {"x": i, **extra}) for i in range(n)]


def stable(records: list[dict[str, object]]) -> dict[str, dict[str, object]]:
    return {
        str(r["cell"]): {k: v for k, v in r.items() if k not in VOLATILE_FIELDS} for r in records
    }


@pytest.mark.parametrize("kind", ["local", "process"])
def test_every_cell_runs_once_and_is_journalled(tmp_path: Path, kind: str) -> None:
    journal = Journal(tmp_path / "j.jsonl")
    outcome = run_grid(cells(7), make_executor(kind), journal, concurrency=3)
    assert outcome.complete and outcome.ran == 7 and outcome.errors == 0
    lines = (tmp_path / "j.jsonl").read_text().splitlines()
    assert len(lines) == 7
    by_cell = stable(Journal(tmp_path / "j.jsonl").records)
    assert by_cell["c5"]["result"] == {"x": 5, "square": 25}
    assert by_cell["c5"]["tokens_in"] == 5 and by_cell["c5"]["status"] == "ok"
    assert outcome.tokens == sum(range(7)) + 7


def test_local_and_process_executors_write_the_same_records(tmp_path: Path) -> None:
    a, b = Journal(tmp_path / "a.jsonl"), Journal(tmp_path / "b.jsonl")
    run_grid(cells(5), make_executor("local"), a, concurrency=2)
    run_grid(cells(5), make_executor("process"), b, concurrency=2)
    assert stable(a.records) == stable(b.records)


def test_concurrency_is_bounded(tmp_path: Path) -> None:
    tasks.reset_peak()
    grid = cells(12, "contend.executor.testing:asquare", sleep=0.02)
    run_grid(grid, make_executor("local"), Journal(tmp_path / "j.jsonl"), concurrency=3)
    assert tasks.peak_in_flight == 3


def test_a_failing_cell_is_recorded_as_an_error_not_lost(tmp_path: Path) -> None:
    grid = [*cells(2), Cell("bad", "contend.executor.testing:square", {"x": 9, "fail": True})]
    journal = Journal(tmp_path / "j.jsonl")
    outcome = run_grid(grid, make_executor("local"), journal, concurrency=2)
    assert outcome.errors == 1 and outcome.complete
    bad = stable(journal.records)["bad"]
    assert bad["status"] == "error" and bad["error"] == "ValueError: cell 9 was told to fail"


def test_resume_skips_finished_cells(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    run_grid(cells(3), make_executor("local"), Journal(path), concurrency=2)
    outcome = run_grid(cells(5), make_executor("local"), Journal(path), concurrency=2)
    assert (outcome.already_done, outcome.ran) == (3, 2)
    ids = [line.split('"cell":"')[1].split('"')[0] for line in path.read_text().splitlines()]
    assert sorted(ids) == ["c0", "c1", "c2", "c3", "c4"]


def test_cost_cap_stops_new_cells_cleanly(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.jsonl")
    outcome = run_grid(
        cells(10, cost=1.0),
        make_executor("local"),
        journal,
        concurrency=1,
        caps=Caps(max_cost=2.5),
    )
    # 1.0 + 1.0 < 2.5 lets a third cell start; after it 3.0 >= 2.5 stops the grid.
    assert (outcome.ran, outcome.not_run, outcome.stopped) == (3, 7, "max_cost")
    assert outcome.cost == 3.0 and not outcome.complete
    # The cap covers the whole grid: a resume with the same cap starts nothing.
    again = run_grid(
        cells(10, cost=1.0),
        make_executor("local"),
        Journal(tmp_path / "j.jsonl"),
        concurrency=1,
        caps=Caps(max_cost=2.5),
    )
    assert (again.ran, again.stopped) == (0, "max_cost")


def test_token_cap(tmp_path: Path) -> None:
    outcome = run_grid(
        cells(10),
        make_executor("local"),
        Journal(tmp_path / "j.jsonl"),
        concurrency=1,
        caps=Caps(max_tokens=5),
    )
    # tokens per cell: x + 1 -> 1, 2, 3 (total 6 >= 5) after three cells.
    assert (outcome.ran, outcome.stopped) == (3, "max_tokens")


@pytest.mark.parametrize(
    ("caps", "message"),
    [
        ({"max_cost": 0.0}, "the cost cap must be positive, got 0"),
        ({"max_tokens": 0}, "the token cap must be positive, got 0"),
    ],
)
def test_zero_caps_are_refused(caps: dict[str, float], message: str) -> None:
    with pytest.raises(UserError, match=message):
        Caps(**caps)  # type: ignore[arg-type]


def test_a_torn_last_line_is_cut_and_its_cell_runs_again(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    run_grid(cells(2), make_executor("local"), Journal(path), concurrency=1)
    with path.open("ab") as handle:
        handle.write(b'{"cell":"c2","stat')
    journal = Journal(path)
    assert journal.discarded_torn_bytes == len(b'{"cell":"c2","stat')
    outcome = run_grid(cells(3), make_executor("local"), journal, concurrency=1)
    assert (outcome.already_done, outcome.ran) == (2, 1)
    assert len(Journal(path).records) == 3


def test_damaged_or_duplicated_journals_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    run_grid(cells(2), make_executor("local"), Journal(path), concurrency=1)
    lines = path.read_text().splitlines()
    path.write_text(lines[0] + "\n" + lines[0] + "\n")
    with pytest.raises(UserError, match="records cell 'c0' a second time"):
        Journal(path)
    path.write_text("garbage\n" + lines[1] + "\n")
    with pytest.raises(UserError, match=r"j.jsonl:1 is not a JSON record"):
        Journal(path)


def test_a_journal_of_another_grid_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    run_grid(cells(2), make_executor("local"), Journal(path), concurrency=1)
    other = [Cell("z", "contend.executor.testing:square", {"x": 1})]
    with pytest.raises(UserError, match="belongs to another grid"):
        run_grid(other, make_executor("local"), Journal(path), concurrency=1)


def test_bad_grids_and_executors_are_user_errors(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.jsonl")
    with pytest.raises(UserError, match="names cell 'c0' twice"):
        run_grid([*cells(1), *cells(1)], make_executor("local"), journal, concurrency=1)
    with pytest.raises(UserError, match="unknown executor 'gpu'"):
        make_executor("gpu")
    outcome = run_grid(
        [Cell("x", "no.such.module:f")], make_executor("local"), journal, concurrency=1
    )
    assert "cannot be loaded" in str(journal.records[0]["error"]) and outcome.errors == 1
