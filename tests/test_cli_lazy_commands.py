"""The top-level command group loads a command's module only when that command runs."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest

from contend.cli.main import _COMMANDS, cli, main


def test_every_listed_command_resolves_to_itself() -> None:
    with click.Context(cli) as ctx:
        for name in cli.list_commands(ctx):
            command = cli.get_command(ctx, name)
            assert command is not None and command.name == name
    assert sorted(_COMMANDS) == cli.list_commands(click.Context(cli))


def test_an_unknown_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["no-such-command"]) == 2
    assert "No such command 'no-such-command'" in capsys.readouterr().err


def test_review_help_does_not_import_the_other_workflows() -> None:
    # A fresh interpreter: the test session has imported everything already.
    probe = (
        "import sys\n"
        "from contend.cli.main import main\n"
        "code = main(['review', '--help'])\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[:2] in "
        "(['contend', 'claims'], ['contend', 'harness'], ['contend', 'web'], "
        "['contend', 'experiments']))\n"
        "print(code, loaded)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip().splitlines()[-1] == "0 []"


def test_the_review_engine_loads_the_agent_side_only_for_agent_critics() -> None:
    probe = (
        "import sys\n"
        "import contend.cli.review_cmd, contend.review.engine\n"
        "print(sorted(m for m in sys.modules if m in "
        "('contend.review.agent_thread', 'contend.protocol.turns', 'jsonschema')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip().splitlines()[-1] == "[]"
