"""Slices in the shared person's commands: `contend stats --by topology` prints seed 001's
comparison from the index, and `contend escape SLICE` records a defect that got through a
slice (counted in the table's escape rate)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contend.cli.main import main
from harness_helpers import FIXED, NAIVE, attack, clean, critic, implement, main_repo, script


def test_stats_by_topology_and_escape_on_a_slice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = main_repo(tmp_path)
    monkeypatch.chdir(repo)
    (tmp_path / "SPEC.md").write_text("Add average(items); empty raises ValueError.\n")
    ids = []
    for topology in ("B", "C"):
        impl = script(tmp_path / f"impl-{topology}.json", **implement(NAIVE, FIXED))
        family = "fam-a" if topology == "B" else "fam-b"  # B: the implementer's model
        crit = script(
            tmp_path / f"crit-{topology}.json", **critic(attack(), clean(), family=family)
        )
        args = ["run", "--spec", str(tmp_path / "SPEC.md"), "--implementer", impl]
        args += ["--critic", crit, "--topology", topology, "--no-static", "--format", "json"]
        assert main(args) == 0
        ids.append(json.loads(capsys.readouterr().out)["slice"])
    assert main(["escape", ids[1], "--note", "empty list slipped", "--topic", "edge"]) == 0
    assert f"escape recorded in slice {ids[1]}" in capsys.readouterr().out
    assert main(["run", "note", ids[1], "--review-minutes", "6"]) == 0
    capsys.readouterr()
    assert main(["stats", "--by", "topology", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == "contend.slice-stats/v1"
    rows = {r["topology"]: r for r in data["topologies"]}
    assert rows["B"]["slices"] == rows["C"]["slices"] == 1
    assert rows["B"]["defect_escape_rate"] is None  # nobody said
    assert rows["C"]["defect_escape_rate"] == 1.0
    assert rows["C"]["human_review_minutes"] == 6.0
    assert rows["B"]["first_pass_merge_rate"] == 0.0
    record = json.loads(
        (repo / ".contend" / "harness" / "slices" / ids[1] / "slice.json").read_text()
    )
    assert record["defect_escape"] is True
    assert [e["note"] for e in record["escapes"]] == ["empty list slipped"]
    assert record["escapes"][0]["topic"] == "edge" and record["escapes"][0]["person"]
    assert main(["stats", "--by", "topology"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0].split()[:3] == ["topology", "slices", "escapes"]
    assert any(line.split()[:3] == ["C", "1", "100.0%"] for line in text.splitlines())
    assert main(["stats", "--by", "topology", "--since", "2999-01-01", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["topologies"] == []
    # `run stats` stays as an alias of the same table
    assert main(["run", "stats", "--by", "topology", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == data["topologies"]


def test_escape_on_a_slice_refuses_bad_input_and_unknown_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = main_repo(tmp_path)
    monkeypatch.chdir(repo)
    (tmp_path / "SPEC.md").write_text("Add average(items).\n")
    impl = script(tmp_path / "impl.json", **implement(FIXED))
    crit = script(tmp_path / "crit.json", **critic(clean()))
    args = ["run", "--spec", str(tmp_path / "SPEC.md"), "--implementer", impl, "--critic", crit]
    assert main([*args, "--no-static", "--format", "json"]) == 0
    slice_id = json.loads(capsys.readouterr().out)["slice"]
    assert main(["escape", slice_id, "--note", "  "]) == 2
    err = capsys.readouterr().err
    assert "--note is empty" in err and "Traceback" not in err
    record = repo / ".contend" / "harness" / "slices" / slice_id / "slice.json"
    assert json.loads(record.read_text())["defect_escape"] is None  # nothing recorded
    assert main(["escape", "no-such-run", "--note", "x"]) == 2
    assert "Traceback" not in capsys.readouterr().err
