"""`contend config show` and `contend config path`: the effective settings and their files.

Read-only: it loads configuration exactly as every other command does and prints it; a bad
config file fails here with the same one-line ConfigError.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from contend.cli.context import cwd_repo_root
from contend.config import explain_settings, load_settings, user_config_path
from contend.config.files import read_project_layer, read_project_layer_at
from contend.gitio.git import repo_root

_SCHEMA = "contend.config/v1"


def _root(path: Path | None) -> Path | None:
    """The repository to read project config from. An explicit PATH must be a repository;
    the cwd may not be one, and then there is no project config (and the output says so)."""
    return repo_root(path) if path is not None else cwd_repo_root()


@click.group("config")
def config() -> None:
    """Show the effective configuration and where each value comes from."""


@config.command("show")
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def show(path: Path | None, as_json: bool) -> int:
    """Print every setting, its effective value and its source.

    Sources, lowest precedence first: default, user config, project config (read from git at
    the base revision a plain `contend review` compares with, never from the working tree),
    env, flag.
    """
    root = _root(path)
    rows = explain_settings(root)
    project_rev = load_settings(root).origin.project_rev if root is not None else None
    if as_json:
        document = {
            "schema": _SCHEMA,
            "repo_root": None if root is None else str(root),
            "project_rev": project_rev,
            "settings": [{"key": k, "value": v, "source": s} for k, v, s in rows],
        }
        click.echo(json.dumps(document, indent=2))
        return 0
    if root is None:
        click.echo("# not inside a git repository: no project config")
    elif project_rev is None:
        click.echo("# the repository has no commit yet: no base revision, no project config")
    else:
        click.echo(
            f"# project config read at base revision {project_rev[:12]} (the base a plain "
            "`contend review` compares with), not from the working tree"
        )
    width = max(len(key) for key, _, _ in rows)
    for key, value, source in rows:
        shown = "(none)" if value is None else json.dumps(value)  # TOML has no null
        click.echo(f"{key:<{width}} = {shown}  # {source}")
    return 0


@config.command("path")
@click.argument("path", required=False, type=click.Path(path_type=Path))
def path_cmd(path: Path | None) -> int:
    """Print where the user and project config files and the state directory are."""
    root = _root(path)
    user = user_config_path(os.environ)
    if user is None:
        click.echo("user config:    none (HOME is unset and CONTEND_CONFIG_HOME is not set)")
    else:
        click.echo(f"user config:    {user} ({'exists' if user.is_file() else 'not found'})")
    if root is None:
        click.echo("project config: none (not inside a git repository)")
        return 0
    settings = load_settings(root)
    rev = settings.origin.project_rev
    project = read_project_layer_at(root, rev) if rev is not None else None
    if project is None:
        click.echo(f"project config: none (write {root / 'contend.toml'} to add one)")
    else:
        click.echo(f"project config: {project.source}")
    working = read_project_layer(root)
    if working is not None and (project is None or working.data != project.data):
        click.echo(
            f"                (the working tree's {working.source} differs: it governs "
            "reviews once it is committed at the base)"
        )
    click.echo(f"state dir:      {settings.state_path(root)}")
    return 0
