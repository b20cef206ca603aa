"""Configuration: sources, precedence, strict types, and the error messages users see.

Every test passes an explicit env dict and tmp_path directories, so the real home and the
real environment are never read.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from contend.cli.config_cmd import config
from contend.config import (
    CRITIC_BACKENDS,
    NOT_PASSED,
    AgentSpec,
    Settings,
    explain_settings,
    load_settings,
    parse_critic_spec,
    parse_proposer_spec,
    user_config_path,
)
from contend.config.env import env_var_table, parse_env_value
from contend.errors import ConfigError, NotAGitRepository, UserError


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    return root


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)
    return done.stdout.decode().strip()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def env(home: Path) -> dict[str, str]:
    return {"HOME": str(home)}


def user_file(home: Path, text: str) -> Path:
    path = home / ".config" / "contend" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def project_file(repo: Path, text: str, name: str = "contend.toml") -> str:
    """Commit a project config file, then a change on top of it: the config sits at the
    base revision of a plain `contend review`, where it is read. Returns its source label."""
    return commit_config(repo, name, text.encode("utf-8"))


def commit_config(repo: Path, name: str, data: bytes) -> str:
    (repo / name).write_bytes(data)
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", f"configure {name}")
    sha = git(repo, "rev-parse", "HEAD")
    git(repo, "commit", "-q", "--allow-empty", "-m", "the change under review")
    return f"{name} at base revision {sha[:12]}"


def config_error(repo: Path | None, env: dict[str, str], **kwargs: Any) -> str:
    with pytest.raises(ConfigError) as caught:
        load_settings(repo, env=env, **kwargs)
    return str(caught.value)


def source_of(rows: list[tuple[str, object, str]], key: str) -> tuple[object, str]:
    found = [(value, source) for name, value, source in rows if name == key]
    assert len(found) == 1, f"{key} appears {len(found)} times"
    return found[0]


# --- defaults and precedence -------------------------------------------------------------


def test_defaults(repo: Path, env: dict[str, str]) -> None:
    settings = load_settings(repo, env=env)
    assert settings.critics == ["static"]
    assert settings.proposer == "none"
    assert settings.base is None
    assert settings.gates == []
    assert settings.max_rounds == 3
    assert settings.trivial_diff_lines == 0
    assert settings.parallelism == 4
    assert settings.min_families == 1
    assert settings.state_dir == ".contend"
    assert settings.invariants == ["INVARIANTS.md", "AGENTS.md", "CLAUDE.md"]
    assert settings.format == "text"
    assert settings.agent_timeout == 600.0
    assert settings.max_file_bytes == 1_000_000
    assert settings.oracle is None
    assert settings.limits.max_run_tokens is None
    assert settings.limits.max_run_cost is None
    assert settings.prices == {}
    assert settings.providers.openai_compatible.base_url is None
    assert settings.providers.ollama.extra_headers == {}


def test_each_level_overrides_the_one_below(repo: Path, home: Path, env: dict[str, str]) -> None:
    user_file(home, "max_rounds = 5\n")
    project_file(repo, "max_rounds = 6\n")
    full_env = {**env, "CONTEND_MAX_ROUNDS": "7"}
    flags = {"max_rounds": 8}

    assert load_settings(repo, env=full_env, flags=flags).max_rounds == 8
    assert load_settings(repo, env=full_env).max_rounds == 7
    assert load_settings(repo, env=env).max_rounds == 6
    assert load_settings(None, env=env).max_rounds == 5  # no repository: no project config
    assert load_settings(None, env={}).max_rounds == 3  # no HOME: no user config either


def test_explain_names_the_source_of_each_value(
    repo: Path, home: Path, env: dict[str, str]
) -> None:
    user_path = user_file(home, "parallelism = 2\nmax_rounds = 5\n")
    project_path = project_file(repo, "max_rounds = 6\nformat = 'json'\n")
    full_env = {**env, "CONTEND_FORMAT": "sarif", "CONTEND_GATES": "make test"}
    rows = explain_settings(repo, env=full_env, flags={"gates": ("pytest -q",), "base": None})

    assert source_of(rows, "parallelism") == (2, f"user config {user_path}")
    assert source_of(rows, "max_rounds") == (6, f"project config {project_path}")
    assert source_of(rows, "format") == ("sarif", "env CONTEND_FORMAT")
    assert source_of(rows, "gates") == (["pytest -q"], "flag gates")
    assert source_of(rows, "base") == (None, "default")
    assert source_of(rows, "prices") == ({}, "default")
    assert source_of(rows, "providers.openai-compatible.base_url") == (None, "default")


def test_tables_merge_key_by_key_across_layers(repo: Path, home: Path, env: dict[str, str]) -> None:
    user_file(
        home,
        "[limits]\nmax_run_tokens = 100000\n"
        "[providers.ollama]\nbase_url = 'http://127.0.0.1:11434'\n"
        '[prices."gpt-4.1"]\ninput_per_mtok = 2.0\noutput_per_mtok = 8.0\n',
    )
    project_file(
        repo,
        "[limits]\nmax_run_cost = 1.5\n"
        "[providers.ollama]\napi_key_env = 'OLLAMA_KEY'\n"
        '[prices."gpt-4.1"]\ninput_per_mtok = 3.0\noutput_per_mtok = 9.0\n'
        '[prices."my-model"]\ninput_per_mtok = 0\noutput_per_mtok = 0.5\n',
    )
    settings = load_settings(repo, env={**env, "CONTEND_LIMITS_MAX_THREAD_TOKENS": "5000"})

    assert settings.limits.max_run_tokens == 100000
    assert settings.limits.max_run_cost == 1.5
    assert settings.limits.max_thread_tokens == 5000
    assert settings.limits.max_thread_cost is None
    assert settings.providers.ollama.base_url == "http://127.0.0.1:11434"
    assert settings.providers.ollama.api_key_env == "OLLAMA_KEY"
    assert settings.prices["gpt-4.1"].input_per_mtok == 3.0
    assert settings.prices["gpt-4.1"].output_per_mtok == 9.0
    assert settings.prices["my-model"].output_per_mtok == 0.5


def test_lists_are_replaced_not_concatenated(repo: Path, home: Path, env: dict[str, str]) -> None:
    user_file(home, "critics = ['static', 'claude']\n")
    project_file(repo, "critics = ['codex:gpt-5']\n")
    assert load_settings(repo, env=env).critics == ["codex:gpt-5"]


def test_flags_not_passed_are_ignored(repo: Path, env: dict[str, str]) -> None:
    project_file(repo, "critics = ['claude']\nbase = 'main'\nmax_rounds = 2\n")
    flags: dict[str, object] = {"critics": (), "base": None, "max_rounds": NOT_PASSED}
    settings = load_settings(repo, env=env, flags=flags)
    assert (settings.critics, settings.base, settings.max_rounds) == (["claude"], "main", 2)


def test_flags_take_tuples_and_dotted_table_keys(repo: Path, env: dict[str, str]) -> None:
    flags = {"critics": ("static", "openai:gpt-4.1"), "limits.max_thread_cost": 0.25}
    settings = load_settings(repo, env=env, flags=flags)
    assert settings.critics == ["static", "openai:gpt-4.1"]
    assert settings.limits.max_thread_cost == 0.25


# --- project config sources ---------------------------------------------------------------


def test_project_config_is_read_at_the_base_revision_not_the_working_tree(
    repo: Path, env: dict[str, str]
) -> None:
    source = project_file(repo, "max_rounds = 6\n")
    (repo / "contend.toml").write_text("max_rounds = 1\n")  # uncommitted: part of the change
    settings = load_settings(repo, env=env)
    assert settings.max_rounds == 6
    assert settings.origin.project_rev is not None
    # The tree is dirty, so the base is HEAD, whose config is the committed one.
    assert settings.origin.project_rev == git(repo, "rev-parse", "HEAD")
    assert source.startswith("contend.toml at base revision")
    assert settings.origin.kind_of("max_rounds") == "project"
    assert settings.origin.kind_of("parallelism") == "default"


def test_config_committed_on_the_reviewed_branch_is_not_applied(
    repo: Path, env: dict[str, str]
) -> None:
    project_file(repo, "trivial_diff_lines = 0\nmax_file_bytes = 5000\n")
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "contend.toml").write_text("trivial_diff_lines = 100000\nmax_file_bytes = 1\n")
    git(repo, "commit", "-q", "-am", "weaken the review")
    settings = load_settings(repo, env=env)
    assert (settings.trivial_diff_lines, settings.max_file_bytes) == (0, 5000)


def test_a_base_named_by_the_project_config_is_where_it_is_read(
    repo: Path, env: dict[str, str]
) -> None:
    project_file(repo, "max_rounds = 4\n")
    git(repo, "tag", "release")
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "contend.toml").write_text("max_rounds = 5\nbase = 'release'\n")
    git(repo, "commit", "-q", "-am", "name a base")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--ff-only", "feature")
    git(repo, "commit", "-q", "--allow-empty", "-m", "later work")
    # On main, clean: the default base is HEAD~1, whose config names `release` as the base.
    settings = load_settings(repo, env=env)
    assert settings.origin.project_rev == git(repo, "rev-parse", "release")
    assert (settings.max_rounds, settings.base) == (4, "release")


def test_explicit_project_revision_or_none(repo: Path, env: dict[str, str]) -> None:
    project_file(repo, "max_rounds = 6\n")
    assert load_settings(repo, env=env, project_rev=None).max_rounds == 3
    head = git(repo, "rev-parse", "HEAD")
    assert load_settings(repo, env=env, project_rev=head).max_rounds == 6


def test_repository_without_commits_has_no_project_config(repo: Path, env: dict[str, str]) -> None:
    (repo / "contend.toml").write_text("max_rounds = 6\n")
    settings = load_settings(repo, env=env)
    assert settings.max_rounds == 3 and settings.origin.project_rev is None


def test_pyproject_tool_contend_is_read(repo: Path, env: dict[str, str]) -> None:
    project_file(repo, "[project]\nname = 'x'\n[tool.contend]\nmax_rounds = 9\n", "pyproject.toml")
    assert load_settings(repo, env=env).max_rounds == 9


def test_pyproject_without_tool_contend_is_not_config(repo: Path, env: dict[str, str]) -> None:
    project_file(repo, "[project]\nname = 'x'\n[tool.ruff]\nline-length = 100\n", "pyproject.toml")
    assert load_settings(repo, env=env).max_rounds == 3


def test_contend_toml_and_tool_contend_together_is_an_error(
    repo: Path, env: dict[str, str]
) -> None:
    project_file(repo, "[tool.contend]\nmax_rounds = 9\n", "pyproject.toml")
    project_file(repo, "max_rounds = 2\n")
    message = config_error(repo, env)
    assert "contend.toml at base revision" in message
    assert "[tool.contend]" in message
    assert "keep one of them" in message


def test_unknown_key_in_pyproject_names_the_table(repo: Path, env: dict[str, str]) -> None:
    path = project_file(repo, "[tool.contend]\nmax_round = 9\n", "pyproject.toml")
    assert config_error(repo, env) == (
        f"{path} [tool.contend]: unknown key 'max_round' (did you mean 'max_rounds'?)"
    )


def test_tool_contend_that_is_not_a_table(repo: Path, env: dict[str, str]) -> None:
    path = project_file(repo, "[tool]\ncontend = 3\n", "pyproject.toml")
    assert config_error(repo, env) == f"{path}: 'tool.contend' must be a table"


# --- unknown keys and wrong types ------------------------------------------------------------


def test_unknown_key_in_project_config(repo: Path, env: dict[str, str]) -> None:
    path = project_file(repo, "max_round = 3\n")
    assert config_error(repo, env) == (
        f"{path}: unknown key 'max_round' (did you mean 'max_rounds'?)"
    )


def test_unknown_key_in_user_config(repo: Path, home: Path, env: dict[str, str]) -> None:
    path = user_file(home, "paralelism = 2\n")
    assert config_error(repo, env) == (
        f"{path}: unknown key 'paralelism' (did you mean 'parallelism'?)"
    )


def test_unknown_nested_key_suggests_the_full_path(repo: Path, env: dict[str, str]) -> None:
    path = project_file(repo, "[limits]\nmax_run_token = 10\n")
    assert config_error(repo, env) == (
        f"{path}: unknown key 'limits.max_run_token' (did you mean 'limits.max_run_tokens'?)"
    )


def test_unknown_key_without_a_close_match(repo: Path, env: dict[str, str]) -> None:
    path = project_file(repo, "colour = 'blue'\n")
    assert config_error(repo, env) == f"{path}: unknown key 'colour'"


def test_unknown_provider_name(repo: Path, env: dict[str, str]) -> None:
    path = project_file(repo, "[providers.openai_compatible]\nbase_url = 'http://x'\n")
    assert config_error(repo, env) == (
        f"{path}: unknown key 'providers.openai_compatible' "
        "(did you mean 'providers.openai-compatible'?)"
    )


def test_unknown_flag_key(repo: Path, env: dict[str, str]) -> None:
    message = config_error(repo, env, flags={"max_round": 2})
    assert message == "flag max_round: unknown key 'max_round' (did you mean 'max_rounds'?)"


def test_wrong_type_message(repo: Path, env: dict[str, str]) -> None:
    path = project_file(repo, 'max_rounds = "three"\n')
    assert config_error(repo, env) == f"{path}: 'max_rounds' must be an integer, got \"three\""


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        ("max_rounds = true", "'max_rounds' must be an integer, got true"),
        ("max_rounds = 2.5", "'max_rounds' must be an integer, got 2.5"),
        ("agent_timeout = '60'", "'agent_timeout' must be a number, got \"60\""),
        ("agent_timeout = inf", "'agent_timeout' must be a finite number, got inf"),
        ("critics = 'static'", "'critics' must be a list, got \"static\""),
        ("critics = ['static', 3]", "'critics[1]' must be a string, got 3"),
        ("limits = 5", "'limits' must be a table, got 5"),
        ("proposer = 1", "'proposer' must be a string, got 1"),
        (
            "format = 'xml'",
            "'format' must be one of 'text', 'json', 'markdown' or 'sarif', got \"xml\"",
        ),
        ("max_rounds = 0", "'max_rounds' must be >= 1, got 0"),
        ("parallelism = -1", "'parallelism' must be >= 1, got -1"),
        ("min_families = 0", "'min_families' must be >= 1, got 0"),
        ("trivial_diff_lines = -5", "'trivial_diff_lines' must be >= 0, got -5"),
        ("agent_timeout = 0", "'agent_timeout' must be > 0, got 0"),
        ("max_file_bytes = 0", "'max_file_bytes' must be >= 1, got 0"),
        ("state_dir = ''", "'state_dir' must not be empty"),
        ("critics = []", "'critics' must not be empty"),
        ("gates = ['  ']", "'gates': a gate command must not be empty"),
        ("[limits]\nmax_run_cost = 0", "'limits.max_run_cost' must be > 0, got 0"),
        (
            "[limits]\nmax_run_tokens = '1k'",
            "'limits.max_run_tokens' must be an integer, got \"1k\"",
        ),
    ],
)
def test_wrong_value(repo: Path, env: dict[str, str], toml: str, expected: str) -> None:
    path = project_file(repo, toml + "\n")
    assert config_error(repo, env) == f"{path}: {expected}"


def test_several_errors_are_counted(repo: Path, env: dict[str, str]) -> None:
    path = project_file(repo, "max_round = 3\nparallelism = 'x'\nformat = 1\n")
    message = config_error(repo, env)
    assert message.startswith(f"{path}: ")
    assert message.endswith("(and 2 more errors in the same source)")


def test_config_error_is_a_user_error_with_exit_2(repo: Path, env: dict[str, str]) -> None:
    project_file(repo, "max_round = 3\n")
    with pytest.raises(UserError) as caught:
        load_settings(repo, env=env)
    assert isinstance(caught.value, ConfigError)
    assert caught.value.exit_code == 2


# --- unreadable files ------------------------------------------------------------------------


def test_invalid_toml_names_file_and_line(repo: Path, env: dict[str, str]) -> None:
    path = project_file(repo, "max_rounds = 3\ncritics = [\n  'static',\n  oops\n]\n")
    assert config_error(repo, env) == (f"{path}: invalid TOML at line 4, column 3: Invalid value")


def test_invalid_toml_at_end_of_file(repo: Path, home: Path, env: dict[str, str]) -> None:
    path = user_file(home, "max_rounds = 3\nbase = 'main\n")
    message = config_error(repo, env)
    assert message.startswith(f"{path}: invalid TOML at line 2")


def test_duplicate_key_is_invalid_toml(repo: Path, env: dict[str, str]) -> None:
    path = project_file(repo, "max_rounds = 3\nmax_rounds = 4\n")
    assert config_error(repo, env).startswith(f"{path}: invalid TOML at line 2, column 15")


def test_config_that_is_not_utf8(repo: Path, env: dict[str, str]) -> None:
    path = commit_config(repo, "contend.toml", b"base = '\xff'\n")
    assert config_error(repo, env) == f"{path}: not valid UTF-8 (byte 8)"


def test_user_config_that_is_a_directory(repo: Path, home: Path, env: dict[str, str]) -> None:
    path = home / ".config" / "contend" / "config.toml"
    path.mkdir(parents=True)
    assert config_error(repo, env) == f"{path}: not a regular file"


# --- user config location ------------------------------------------------------------------


def test_user_config_location_order(tmp_path: Path) -> None:
    assert user_config_path({"HOME": "/h"}) == Path("/h/.config/contend/config.toml")
    assert user_config_path({"HOME": "/h", "XDG_CONFIG_HOME": "/x"}) == Path(
        "/x/contend/config.toml"
    )
    both = {"HOME": "/h", "XDG_CONFIG_HOME": "/x", "CONTEND_CONFIG_HOME": str(tmp_path)}
    assert user_config_path(both) == tmp_path / "config.toml"
    # The XDG spec: a relative XDG_CONFIG_HOME is invalid and ignored.
    assert user_config_path({"HOME": "/h", "XDG_CONFIG_HOME": "rel"}) == Path(
        "/h/.config/contend/config.toml"
    )
    assert user_config_path({}) is None


def test_contend_config_home_is_read(repo: Path, tmp_path: Path) -> None:
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "config.toml").write_text("min_families = 2\n", encoding="utf-8")
    assert load_settings(repo, env={"CONTEND_CONFIG_HOME": str(conf)}).min_families == 2


def test_empty_contend_config_home_is_an_error(repo: Path) -> None:
    message = config_error(repo, {"CONTEND_CONFIG_HOME": ""})
    assert message.startswith("CONTEND_CONFIG_HOME is set but empty")


# --- environment ----------------------------------------------------------------------------


def test_env_values_of_every_type(repo: Path) -> None:
    env = {
        "CONTEND_CRITICS": "static, claude ,codex:gpt-5",
        "CONTEND_GATES": '["pytest -q", "ruff check a,b"]',
        "CONTEND_MAX_ROUNDS": "+4",
        "CONTEND_AGENT_TIMEOUT": "2.5e1",
        "CONTEND_FORMAT": "markdown",
        "CONTEND_BASE": "origin/main",
        "CONTEND_INVARIANTS": "",
        "CONTEND_LIMITS_MAX_RUN_COST": ".75",
        "CONTEND_PROVIDERS_OPENAI_COMPATIBLE_BASE_URL": "http://127.0.0.1:8000/v1",
        "CONTEND_PROVIDERS_ANTHROPIC_API_KEY_ENV": "MY_ANTHROPIC_KEY",
    }
    settings = load_settings(repo, env=env)
    assert settings.critics == ["static", "claude", "codex:gpt-5"]
    assert settings.gates == ["pytest -q", "ruff check a,b"]
    assert settings.max_rounds == 4
    assert settings.agent_timeout == 25.0
    assert settings.format == "markdown"
    assert settings.base == "origin/main"
    assert settings.invariants == []
    assert settings.limits.max_run_cost == 0.75
    assert settings.providers.openai_compatible.base_url == "http://127.0.0.1:8000/v1"
    assert settings.providers.anthropic.api_key_env == "MY_ANTHROPIC_KEY"


def test_empty_env_value_unsets_an_optional_key(repo: Path, home: Path) -> None:
    user_file(home, "base = 'main'\n[limits]\nmax_run_tokens = 10\n")
    env = {"HOME": str(home), "CONTEND_BASE": "", "CONTEND_LIMITS_MAX_RUN_TOKENS": ""}
    settings = load_settings(repo, env=env)
    assert settings.base is None
    assert settings.limits.max_run_tokens is None


@pytest.mark.parametrize(
    ("var", "raw", "expected"),
    [
        ("CONTEND_MAX_ROUNDS", "three", "'max_rounds' must be an integer, got \"three\""),
        ("CONTEND_MAX_ROUNDS", "1_000", "'max_rounds' must be an integer, got \"1_000\""),
        ("CONTEND_MAX_ROUNDS", "", "'max_rounds' must be an integer, got \"\""),
        ("CONTEND_MAX_ROUNDS", "0", "'max_rounds' must be >= 1, got 0"),
        ("CONTEND_AGENT_TIMEOUT", "10s", "'agent_timeout' must be a number, got \"10s\""),
        ("CONTEND_AGENT_TIMEOUT", "nan", "'agent_timeout' must be a number, got \"nan\""),
        ("CONTEND_FORMAT", "html", "'format' must be one of"),
        ("CONTEND_CRITICS", "static,,claude", "'critics' has an empty item in \"static,,claude\""),
        ("CONTEND_GATES", '["a", 1]', "'gates' must be a JSON array of strings"),
        ("CONTEND_GATES", "[oops", "'gates' is not a valid JSON array"),
        ("CONTEND_CRITICS", "static,gpt", "'critics': unknown critic backend 'gpt'"),
        ("CONTEND_LIMITS_MAX_THREAD_COST", "-1", "'limits.max_thread_cost' must be > 0, got -1.0"),
    ],
)
def test_bad_env_value_names_the_variable(repo: Path, var: str, raw: str, expected: str) -> None:
    message = config_error(repo, {var: raw})
    assert message.startswith(f"{var}: {expected}")


def test_unknown_contend_variable_is_rejected(repo: Path) -> None:
    message = config_error(repo, {"CONTEND_MAX_ROUND": "3"})
    assert message.startswith("CONTEND_MAX_ROUND: unknown contend environment variable")
    assert "(did you mean CONTEND_MAX_ROUNDS?)" in message


def test_reserved_and_foreign_variables_are_not_settings(repo: Path, tmp_path: Path) -> None:
    env = {
        "CONTEND_ALLOW_MODEL_REQUESTS": "0",
        "CONTEND_CONFIG_HOME": str(tmp_path / "nowhere"),
        "MAX_ROUNDS": "zero",
        "contend_max_rounds": "zero",
    }
    assert load_settings(repo, env=env).max_rounds == 3


def test_tables_of_free_form_keys_have_no_variables() -> None:
    names = set(env_var_table())
    assert "CONTEND_LIMITS_MAX_RUN_TOKENS" in names
    assert "CONTEND_PROVIDERS_GEMINI_BASE_URL" in names
    assert not any("PRICES" in name or "EXTRA_HEADERS" in name for name in names)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("1", True), ("true", True), ("YES", True), ("0", False), ("false", False), ("No", False)],
)
def test_env_bool_parsing(raw: str, expected: bool) -> None:
    assert parse_env_value(raw, bool, var="CONTEND_X", key="x") is expected


def test_env_bool_rejects_other_words() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_env_value("on", bool, var="CONTEND_X", key="x")
    assert str(caught.value) == (
        "CONTEND_X: 'x' must be a boolean (1/true/yes or 0/false/no), got \"on\""
    )


@given(st.integers(min_value=-(10**30), max_value=10**30))
def test_env_int_round_trips(value: int) -> None:
    assert parse_env_value(str(value), int, var="CONTEND_X", key="x") == value


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_env_float_round_trips(value: float) -> None:
    assert parse_env_value(repr(value), float, var="CONTEND_X", key="x") == value


# --- state directory ---------------------------------------------------------------------


def test_state_dir_default_is_under_the_repository(repo: Path, env: dict[str, str]) -> None:
    assert load_settings(repo, env=env).state_path(repo) == repo / ".contend"


def test_state_dir_relative_key_is_resolved_against_the_repository(
    repo: Path, env: dict[str, str]
) -> None:
    project_file(repo, "state_dir = 'build/contend-state'\n")
    assert load_settings(repo, env=env).state_path(repo) == repo / "build" / "contend-state"


def test_state_dir_absolute_key_is_kept(repo: Path, tmp_path: Path, env: dict[str, str]) -> None:
    project_file(repo, f"state_dir = '{tmp_path / 'elsewhere'}'\n")
    assert load_settings(repo, env=env).state_path(repo) == tmp_path / "elsewhere"


def test_state_dir_env_overrides_the_key(repo: Path, tmp_path: Path, env: dict[str, str]) -> None:
    project_file(repo, "state_dir = 'from-config'\n")
    env = {**env, "CONTEND_STATE_DIR": str(tmp_path / "isolated")}
    assert load_settings(repo, env=env).state_path(repo) == tmp_path / "isolated"
    relative = {**env, "CONTEND_STATE_DIR": "rel/state"}
    assert load_settings(repo, env=relative).state_path(repo) == repo / "rel" / "state"


# --- critic, oracle and proposer specs ---------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("static", AgentSpec("static", None)),
        ("static:silent-fallback", AgentSpec("static", "silent-fallback")),
        ("claude", AgentSpec("claude", None)),
        ("codex:gpt-5", AgentSpec("codex", "gpt-5")),
        ("openai:gpt-4.1", AgentSpec("openai", "gpt-4.1")),
        ("openai-compatible:qwen/qwen3:32b", AgentSpec("openai-compatible", "qwen/qwen3:32b")),
        ("scripted:path.json", AgentSpec("scripted", "path.json")),
    ],
)
def test_valid_critic_specs(text: str, spec: AgentSpec) -> None:
    assert parse_critic_spec(text) == spec
    assert str(spec) == text


def test_unknown_critic_backend_lists_the_valid_ones(repo: Path, env: dict[str, str]) -> None:
    path = project_file(repo, "critics = ['static', 'gpt4:turbo']\n")
    message = config_error(repo, env)
    valid = ", ".join(sorted(CRITIC_BACKENDS))
    assert message == (
        f"{path}: 'critics': unknown critic backend 'gpt4' in 'gpt4:turbo'; valid backends: {valid}"
    )


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("openai", "needs a model name"),
        ("scripted", "needs a script file"),
        ("claude:", "empty argument after ':'"),
        ("claude: opus", "spaces around its argument"),
        ("static:silent-fallbak", "unknown static topic 'silent-fallbak'"),
        ("Static", "is not of the form name[:arg]"),
        ("", "is not of the form name[:arg]"),
    ],
)
def test_invalid_critic_specs(text: str, fragment: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_critic_spec(text)
    assert fragment in str(caught.value)


def test_oracle_and_proposer_are_checked(repo: Path, env: dict[str, str]) -> None:
    project_file(repo, "oracle = 'anthropic:claude-opus-4'\nproposer = 'claude-fork:abc'\n")
    settings = load_settings(repo, env=env)
    assert settings.oracle == "anthropic:claude-opus-4"
    assert settings.proposer == "claude-fork:abc"
    assert "unknown critic backend 'human'" in config_error(repo, {"CONTEND_ORACLE": "human"})
    assert "unknown proposer backend 'static'" in config_error(repo, {"CONTEND_PROPOSER": "static"})
    assert parse_proposer_spec("none") == AgentSpec("none", None)
    with pytest.raises(ValueError, match="takes no argument"):
        parse_proposer_spec("human:bob")


# --- limits, prices, providers --------------------------------------------------------------


def test_price_entry_must_be_complete(repo: Path, env: dict[str, str]) -> None:
    path = project_file(repo, '[prices."gpt-4.1"]\ninput_per_mtok = 2.0\n')
    assert config_error(repo, env) == (f"{path}: 'prices.\"gpt-4.1\".output_per_mtok' is required")


def test_price_must_not_be_negative(repo: Path, env: dict[str, str]) -> None:
    path = project_file(repo, "[prices.m]\ninput_per_mtok = -1\noutput_per_mtok = 1\n")
    assert config_error(repo, env) == f"{path}: 'prices.m.input_per_mtok' must be >= 0, got -1"


def test_inline_api_key_is_rejected(repo: Path, env: dict[str, str]) -> None:
    path = project_file(repo, "[providers.openai]\napi_key = 'sk-secret'\n")
    message = config_error(repo, env)
    assert message.startswith(f"{path}: unknown key 'providers.openai.api_key': ")
    assert "set 'api_key_env' to the NAME of the environment variable" in message
    assert "sk-secret" not in message  # the key itself is never echoed


def test_api_key_env_must_be_a_variable_name(repo: Path, env: dict[str, str]) -> None:
    path = project_file(repo, "[providers.anthropic]\napi_key_env = 'sk-ant-123'\n")
    assert config_error(repo, env) == (
        f"{path}: 'providers.anthropic.api_key_env': must be the NAME of an environment "
        "variable (letters, digits, _), not the key itself"
    )


def test_provider_settings(repo: Path, env: dict[str, str]) -> None:
    project_file(
        repo,
        "[providers.openai-compatible]\nbase_url = 'http://127.0.0.1:1234/v1'\n"
        "api_key_env = 'LMSTUDIO_KEY'\n"
        "extra_headers = { X-Title = 'contend', HTTP-Referer = 'https://example.org' }\n",
    )
    provider = load_settings(repo, env=env).providers.openai_compatible
    assert provider.base_url == "http://127.0.0.1:1234/v1"
    assert provider.api_key_env == "LMSTUDIO_KEY"
    assert provider.extra_headers == {"X-Title": "contend", "HTTP-Referer": "https://example.org"}


def test_extra_header_values_must_be_strings(repo: Path, env: dict[str, str]) -> None:
    path = project_file(repo, "[providers.gemini]\nextra_headers = { X-Retries = 3 }\n")
    assert config_error(repo, env) == (
        f"{path}: 'providers.gemini.extra_headers.X-Retries' must be a string, got 3"
    )


def test_settings_are_frozen(repo: Path, env: dict[str, str]) -> None:
    settings = load_settings(repo, env=env)
    with pytest.raises(ValueError, match="frozen"):
        settings.max_rounds = 10
    assert isinstance(settings, Settings)


# --- contend config show / path -------------------------------------------------------------


@pytest.fixture
def git_repo(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for name in [name for name in os.environ if name.startswith("CONTEND_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("CONTEND_CONFIG_HOME", str(repo.parent / "user-config"))
    monkeypatch.chdir(repo)
    return repo.resolve()


def test_config_show_prints_values_and_sources(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = project_file(git_repo, "max_rounds = 5\n")
    monkeypatch.setenv("CONTEND_PARALLELISM", "2")
    result = CliRunner().invoke(config, ["show"], standalone_mode=False)
    assert result.exception is None, result.output
    lines = result.output.splitlines()
    assert any(
        re.fullmatch(rf"max_rounds += 5  # project config {re.escape(str(path))}", x) for x in lines
    )
    assert any(re.fullmatch(r"parallelism += 2  # env CONTEND_PARALLELISM", x) for x in lines)
    assert any(re.fullmatch(r'format += "text"  # default', x) for x in lines)
    assert any(re.fullmatch(r"base += \(none\)  # default", x) for x in lines)
    assert "at base revision" in path


def test_config_show_ignores_the_working_tree_config(git_repo: Path) -> None:
    project_file(git_repo, "max_rounds = 5\n")
    (git_repo / "contend.toml").write_text("max_rounds = 1\n")
    result = CliRunner().invoke(config, ["show"], standalone_mode=False)
    assert result.exception is None, result.output
    [line] = [x for x in result.output.splitlines() if x.startswith("max_rounds")]
    assert re.fullmatch(
        r"max_rounds += 5  # project config contend.toml at base revision \w+", line
    )
    assert "# project config read at base revision" in result.output


def test_config_show_json(git_repo: Path) -> None:
    result = CliRunner().invoke(config, ["show", "--json"], standalone_mode=False)
    assert result.exception is None, result.output
    document = json.loads(result.output)
    assert document["schema"] == "contend.config/v1"
    assert document["repo_root"] == str(git_repo)
    entry = {"key": "critics", "value": ["static"], "source": "default"}
    assert entry in document["settings"]


def test_config_show_reports_a_bad_config_as_config_error(git_repo: Path) -> None:
    project_file(git_repo, "max_round = 5\n")
    result = CliRunner().invoke(config, ["show"], standalone_mode=False)
    assert isinstance(result.exception, ConfigError)
    assert "unknown key 'max_round'" in str(result.exception)


def test_config_path(git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONTEND_STATE_DIR", "state")
    result = CliRunner().invoke(config, ["path"], standalone_mode=False)
    assert result.exception is None, result.output
    user = git_repo.parent / "user-config" / "config.toml"
    assert result.output.splitlines() == [
        f"user config:    {user} (not found)",
        f"project config: none (write {git_repo / 'contend.toml'} to add one)",
        f"state dir:      {git_repo / 'state'}",
    ]


def test_config_path_outside_a_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outside = tmp_path / "plain"
    outside.mkdir()
    monkeypatch.chdir(outside)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    result = CliRunner().invoke(config, ["path"], standalone_mode=False)
    assert result.exception is None, result.output
    assert result.output.splitlines()[1] == "project config: none (not inside a git repository)"
    explicit = CliRunner().invoke(config, ["path", str(outside)], standalone_mode=False)
    assert isinstance(explicit.exception, NotAGitRepository)


def test_committed_symlink_config_is_reported(repo: Path, env: dict[str, str]) -> None:
    (repo / "contend.toml").symlink_to(repo / "missing.toml")
    git(repo, "add", "contend.toml")
    git(repo, "commit", "-q", "-m", "link")
    sha = git(repo, "rev-parse", "HEAD")
    git(repo, "commit", "-q", "--allow-empty", "-m", "change")
    assert config_error(repo, env) == (
        f"contend.toml at base revision {sha[:12]}: not a regular file (git mode 120000)"
    )


# --- the reference page stays in step with the model ----------------------------------------

DOCS = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"


def test_docs_name_every_key_and_variable() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for var, (path, _) in env_var_table().items():
        if path[0] == "providers":
            assert f"`{path[-1]}`" in text
            generic = "CONTEND_PROVIDERS_<NAME>_" + path[-1].upper()
            assert generic in text, generic
        else:
            assert f"`{var}`" in text, var
            assert f"| `{path[-1]}` |" in text, path
    for key in ("extra_headers", "input_per_mtok", "output_per_mtok", "CONTEND_CONFIG_HOME"):
        assert f"`{key}`" in text
    for name in CRITIC_BACKENDS:
        assert f"`{name}`" in text, name
