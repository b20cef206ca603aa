"""`[verify]` settings of `contend verify`: where runs live without `--out`, and the
level-3 extra-axes choice (domain word → axis, fill order), from the user config or
contend.toml; unknown keys and wrong types refused naming the key and the file."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import get_args

import pytest
from click.testing import CliRunner

from contend.claims.axes import DEFAULT_POLICY, EXTRA_AXES, axis_policy
from contend.cli.config_cmd import config
from contend.cli.main import main
from contend.config.model import ExtraAxis
from contend.errors import ProtocolError
from contend.ledger.verify import verify

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "claims"


@pytest.fixture
def level3(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The level-3 example card and its evidence, outside any git repository."""
    target = tmp_path / "claims"
    target.mkdir()
    shutil.copy(EXAMPLES / "level-3.json", target / "level-3.json")
    shutil.copytree(EXAMPLES / "evidence", target / "evidence")
    monkeypatch.chdir(tmp_path)
    return target / "level-3.json"


def user_config(text: str) -> Path:
    path = Path(os.environ["CONTEND_CONFIG_HOME"]) / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def assigned(out: Path) -> list[str]:
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    (claim,) = report["claims"]
    return list(claim["axes"]["assigned"])


def test_the_config_axis_names_are_the_claims_extra_axes() -> None:
    assert get_args(ExtraAxis) == EXTRA_AXES


def test_runs_live_in_the_configured_state_dir(
    level3: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = tmp_path / "claim-runs"
    user_config(f'[verify]\nstate_dir = "{mine}"\n')
    main(["verify", str(level3)])
    [run] = list((mine / "runs").iterdir())
    assert str(run) in capsys.readouterr().err
    assert verify(run / "ledger.jsonl").ok


def test_the_environment_beats_the_config_file_for_the_state_dir(
    level3: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user_config(f'[verify]\nstate_dir = "{tmp_path / "from-file"}"\n')
    monkeypatch.setenv("CONTEND_VERIFY_STATE_DIR", str(tmp_path / "from-env"))
    main(["verify", str(level3)])
    assert len(list((tmp_path / "from-env" / "runs").iterdir())) == 1
    assert not (tmp_path / "from-file").exists()


def test_level_3_axes_follow_the_configured_domain_map_and_order(
    level3: Path, tmp_path: Path
) -> None:
    # The card's domains: investor-relations (incentive) and benchmark (edge-case).
    main(["verify", str(level3), "--out", str(tmp_path / "default")])
    assert assigned(tmp_path / "default")[3:] == ["incentive", "edge-case"]
    user_config('[verify]\ndomain_axes = { benchmark = "prior-art" }\n')
    main(["verify", str(level3), "--out", str(tmp_path / "mapped")])
    assert assigned(tmp_path / "mapped")[3:] == ["incentive", "prior-art"]
    user_config(
        '[verify]\ndomain_axes = { investor-relations = "edge-case", benchmark = "edge-case" }\n'
        'extra_axes_order = ["incentive", "prior-art"]\n'
    )
    main(["verify", str(level3), "--out", str(tmp_path / "filled")])
    assert assigned(tmp_path / "filled")[3:] == ["edge-case", "incentive"]


def test_project_config_at_head_configures_verify_inside_a_repository(
    level3: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = level3.parent
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "contend.toml").write_text('[verify]\ndomain_axes = { benchmark = "prior-art" }\n')
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", "cards"], check=True)
    # Uncommitted edits do not configure the run: the committed file does.
    (repo / "contend.toml").write_text('[verify]\ndomain_axes = { benchmark = "edge-case" }\n')
    monkeypatch.chdir(repo)
    main(["verify", str(level3), "--out", str(tmp_path / "in-repo")])
    assert assigned(tmp_path / "in-repo")[3:] == ["incentive", "prior-art"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[verify]\nstat_dir = "/x"\n', r"unknown key 'verify\.stat_dir'"),
        ("[verify]\nstate_dir = 3\n", r"'verify\.state_dir' must be a string"),
        ('[verify]\nstate_dir = "runs"\n', r"'verify\.state_dir'.*absolute path"),
        ('[verify]\nextra_axes_order = "incentive"\n', r"'verify\.extra_axes_order'"),
        ('[verify]\nextra_axes_order = ["incentive"]\n', r"'verify\.extra_axes_order'"),
        (
            '[verify]\nextra_axes_order = ["incentive", "incentive"]\n',
            r"'verify\.extra_axes_order'.*incentive more than once",
        ),
        ('[verify]\ndomain_axes = { patent = "vibes" }\n', r"'verify\.domain_axes\.patent'"),
        ("[verify]\ndomain_axes = { patent = 1 }\n", r"'verify\.domain_axes\.patent'"),
    ],
)
def test_bad_verify_settings_are_one_line_naming_key_and_file(
    level3: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    path = user_config(text)
    code = main(["verify", str(level3), "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1, err
    assert str(path) in err and re.search(message, err), err
    assert not (tmp_path / "run").exists()  # refused before anything ran


def test_config_show_lists_the_verify_keys(level3: Path) -> None:
    path = user_config('[verify]\nextra_axes_order = ["prior-art", "incentive"]\n')
    result = CliRunner().invoke(config, ["show"], standalone_mode=False)
    assert result.exception is None, result.output
    lines = result.output.splitlines()
    assert any(
        re.fullmatch(
            rf'verify\.extra_axes_order += \["prior-art", "incentive"\]  # user config '
            rf"{re.escape(str(path))}",
            x,
        )
        for x in lines
    ), result.output
    assert any(re.fullmatch(r"verify\.state_dir += \(none\)  # default", x) for x in lines)


def test_axis_policy_refuses_what_is_no_extra_axis() -> None:
    with pytest.raises(ProtocolError, match="not a level-3 axis"):
        axis_policy({"x": "internal-logic"}, EXTRA_AXES)
    policy = axis_policy({"Benchmark ": "prior-art"}, ["incentive", "prior-art"])
    assert policy.assign(3, ["benchmark"]).axes[3:] == ("prior-art", "incentive")
    assert DEFAULT_POLICY.assign(3, ["benchmark"]).axes[3:] == ("edge-case", "external-logic")
