"""The README stays true: its quick start is what CI runs, and every command it names exists
and answers --help."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from contend.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_quick_start_second_line_is_what_ci_runs() -> None:
    block = README.split("## Quick start", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    lines = [line for line in block.strip().splitlines() if line.strip()]
    assert len(lines) == 2
    assert "contend review" in lines[0]
    assert lines[1] in (ROOT / ".ci" / "run").read_text()


@pytest.mark.parametrize(
    "command",
    sorted(set(re.findall(r"`contend ([a-z]+)", README))),
)
def test_every_command_the_readme_names_exists(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([command, "--help"]) == 0
    assert "Usage:" in capsys.readouterr().out


def test_every_linked_document_exists() -> None:
    for target in re.findall(r"\]\(([^)#]+)\)", README):
        if "://" not in target:
            assert (ROOT / target).exists(), target
