"""The `static.blocking` setting (issues 8 and 17): which rule decides whether a static
finding may block — `"earned"` (only what the evidence or a labelled record supports) or
`"rule"` (each rule's own severity after the previous demotion). Settable in every layer,
shown with its origin, validated with one clear line (exit 2)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from contend.cli.main import main
from contend.config import explain_settings, load_settings
from contend.config.env import env_var_table
from contend.errors import ConfigError


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)
    return done.stdout.decode().strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    return root


def commit_project_config(repo: Path, name: str, text: str) -> str:
    """Commit `name`, then a change on top: the config sits at the review's base. Returns the
    source label `contend config show` gives it."""
    (repo / name).write_text(text, encoding="utf-8")
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", f"configure {name}")
    sha = git(repo, "rev-parse", "HEAD")
    git(repo, "commit", "-q", "--allow-empty", "-m", "the change under review")
    return f"project config {name} at base revision {sha[:12]}"


def source_of(repo: Path, env: dict[str, str]) -> tuple[object, str]:
    [row] = [(v, s) for k, v, s in explain_settings(repo, env=env) if k == "static.blocking"]
    return row


def test_the_environment_variable_is_the_one_the_config_model_generates() -> None:
    assert env_var_table()["CONTEND_STATIC_BLOCKING"][0] == ("static", "blocking")


@pytest.mark.parametrize("value", ["earned", "rule"])
def test_each_value_is_read_from_the_project_config_with_its_origin(repo: Path, value: str) -> None:
    label = commit_project_config(repo, "contend.toml", f'[static]\nblocking = "{value}"\n')
    assert load_settings(repo, env={}).static.blocking == value
    assert source_of(repo, {}) == (value, label)


def test_pyproject_tool_contend_static_is_read(repo: Path) -> None:
    text = '[project]\nname = "x"\n[tool.contend.static]\nblocking = "earned"\n'
    label = commit_project_config(repo, "pyproject.toml", text)
    assert source_of(repo, {}) == ("earned", f"{label} [tool.contend]")


def test_the_user_config_and_the_environment_set_it(repo: Path, tmp_path: Path) -> None:
    home = tmp_path / "user-config"
    home.mkdir()
    (home / "config.toml").write_text('[static]\nblocking = "earned"\n', encoding="utf-8")
    env = {"CONTEND_CONFIG_HOME": str(home)}
    value, source = source_of(repo, env)
    assert value == "earned" and source.startswith("user config ")
    # The environment overrides the user config, as for every key.
    assert source_of(repo, {**env, "CONTEND_STATIC_BLOCKING": "rule"}) == (
        "rule",
        "env CONTEND_STATIC_BLOCKING",
    )


def test_a_wrong_value_in_the_project_config_is_one_clear_line(repo: Path) -> None:
    label = commit_project_config(repo, "contend.toml", '[static]\nblocking = "strict"\n')
    with pytest.raises(ConfigError) as caught:
        load_settings(repo, env={})
    path = label.removeprefix("project config ")
    assert str(caught.value) == (
        f"{path}: 'static.blocking' must be one of 'earned' or 'rule', got \"strict\""
    )
    assert caught.value.exit_code == 2


def test_an_unknown_key_of_the_static_table_is_rejected(repo: Path) -> None:
    commit_project_config(repo, "contend.toml", '[static]\nblock = "rule"\n')
    with pytest.raises(ConfigError, match=r"unknown key 'static\.block'"):
        load_settings(repo, env={})


def test_config_show_names_the_value_and_its_origin(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(repo)
    monkeypatch.setenv("CONTEND_STATIC_BLOCKING", "rule")
    assert main(["config", "show"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(
        re.fullmatch(r'static\.blocking += "rule"  # env CONTEND_STATIC_BLOCKING', x) for x in lines
    )


def test_a_wrong_value_from_the_environment_exits_2_with_one_line(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(repo)
    monkeypatch.setenv("CONTEND_STATIC_BLOCKING", "Earned")
    assert main(["config", "show"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "contend: error: CONTEND_STATIC_BLOCKING: 'static.blocking' must be one of 'earned' "
        "or 'rule', got \"Earned\"\n"
    )
