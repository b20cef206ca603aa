"""The one backend registry: contend's own backends and installed packages' entry points are
declared alike, configuration validates against it, factories get a context, capabilities
are held against the role (issue 11).

A third-party package is written to disk with its dist-info (METADATA, entry_points.txt) and
put on sys.path — in-process, or through PYTHONPATH for a real `contend review` process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from contend import backends
from contend.agents.base import AgentRequest, BackendContext
from contend.agents.claude_code import create
from contend.agents.claude_sessions import claude_home, project_dir_name
from contend.agents.registry import resolve
from contend.config import Settings, load_settings
from contend.errors import ConfigError, UserError
from contend.ledger.verify import verify
from contend.protocol.state import fold
from contend.review.engine import ReviewRequest, review
from review_helpers import APP_CHANGED, make_repo, write_script

CONTEND = Path(sys.executable).parent / "contend"

# A deterministic critic: it objects to every division by a length in app.py, in round 1.
# Its argument picks what it says it can do, so one package serves every capability case.
PLUGIN_AGENT = '''
"""lintbot: a third-party contend backend (a test package, not part of contend)."""

from __future__ import annotations

import json

from contend.agents.base import AgentReply, AgentRequest, BackendContext, Capabilities, Usage


class LintBot:
    backend = "lintbot"
    family = "lintbot-family"

    def __init__(self, arg: str | None, ctx: BackendContext) -> None:
        # The reviewed repository reaches the factory through its context.
        self.model = f"lintbot{':' + arg if arg else ''}@{ctx.repo_root.name}"
        self.capabilities = Capabilities(
            structured_output=arg != "freeform",
            can_fix=arg == "writer",
            read_only_enforced=arg != "writer",
            needs_network=False,
        )

    async def run(self, request: AgentRequest) -> AgentReply:
        if request.role == "proposer":
            output = {"answers": []}
        else:
            objections = []
            if request.round == 1:
                lines = (request.worktree / "app.py").read_text().split("\\n")
                for number, line in enumerate(lines, start=1):
                    if "/ len(" in line:
                        objections.append(
                            {
                                "severity": "major",
                                "path": "app.py",
                                "start_line": number,
                                "end_line": number,
                                "claim": "divides by the length, which may be zero",
                                "evidence": line.strip(),
                                "expected": "reject an empty input first",
                            }
                        )
            output = {
                "topic": "division by a length",
                "no_defect_found": not objections,
                "objections": objections,
                "judgements": [],
            }
        text = json.dumps(output)
        return AgentReply(
            output=output,
            raw_text=text,
            usage=Usage(tokens_in=len(request.prompt) // 4, tokens_out=len(text) // 4),
            exchange={"prompt": request.prompt, "response": text},
        )


def create(arg: str | None, ctx: BackendContext) -> LintBot:
    return LintBot(arg, ctx)
'''

PLUGIN_DECLARATION = """
from contend.backends import Backend

BACKEND = Backend(
    "lintbot",
    frozenset({"critic", "oracle", "proposer"}),
    "contend_lintbot.agent:create",
    summary="a deterministic critic of divisions by a length",
)
NOT_A_BACKEND = "just a string"
"""


def write_package(
    site: Path, dist: str, module: str, files: dict[str, str], entry_points: dict[str, str]
) -> None:
    """An installed distribution: its module files and a dist-info with entry points."""
    for name, text in files.items():
        path = site / module / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    info = site / f"{dist.replace('-', '_')}-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1.0\n")
    lines = "".join(f"{name} = {value}\n" for name, value in entry_points.items())
    (info / "entry_points.txt").write_text(f"[{backends.GROUP}]\n{lines}")


def write_lintbot(site: Path) -> Path:
    write_package(
        site,
        "contend-lintbot",
        "contend_lintbot",
        {"__init__.py": PLUGIN_DECLARATION, "agent.py": PLUGIN_AGENT},
        {"lintbot": "contend_lintbot:BACKEND"},
    )
    return site


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The lintbot package installed in this process (a fresh look at the registry)."""
    site = write_lintbot(tmp_path / "site")
    monkeypatch.syspath_prepend(str(site))
    backends.refresh()
    yield site
    monkeypatch.undo()
    for name in [m for m in sys.modules if m.startswith("contend_")]:
        del sys.modules[name]
    backends.refresh()


# --- configuration validates against the registry ---------------------------------------------


def test_a_plugin_backend_is_a_valid_critic_oracle_and_proposer(
    installed: Path, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path)
    flags = {"critics": ["static", "lintbot"], "oracle": "lintbot", "proposer": "lintbot:x"}
    settings = load_settings(repo, flags=flags)
    assert settings.critics == ["static", "lintbot"]


def test_an_unknown_backend_names_the_registrys_choices_plugins_included(
    installed: Path, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path)
    with pytest.raises(ConfigError) as caught:
        load_settings(repo, flags={"critics": ["lintbott"]})
    valid = ", ".join(sorted([*backends.builtin_names("critic"), "lintbot"]))
    assert f"unknown critic backend 'lintbott' in 'lintbott'; valid backends: {valid}" in str(
        caught.value
    )


def test_config_accepts_every_static_selection_the_static_critics_accept(tmp_path: Path) -> None:
    secret = 'AWS_KEY = "AKIA' + "Q7XK2MZP4RW9BT3L" + '"\n'
    repo = make_repo(tmp_path, change={"app.py": APP_CHANGED + secret})
    settings = load_settings(repo, flags={"critics": ["static:secrets,security"]})
    result = review(ReviewRequest(path=repo), settings)
    state = fold(verify(result.run_dir / "ledger.jsonl", keep_entries=True).entries)
    assert {a.topic for a in state.attacks.values()} == {"secrets"}
    assert {t.topic for t in state.threads.values()} == {"secrets", "security"}


def test_roles_are_checked_against_the_declaration(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    with pytest.raises(ConfigError, match="unknown critic backend 'static' for the oracle"):
        load_settings(repo, flags={"oracle": "static"})
    with pytest.raises(ConfigError, match=r"'claude-fork' can only be: proposer"):
        load_settings(repo, flags={"critics": ["claude-fork"]})


# --- a real `contend review` with the plugin ---------------------------------------------------


@pytest.mark.slow
def test_a_plugin_backend_runs_a_real_review_through_the_entry_point(tmp_path: Path) -> None:
    site = write_lintbot(tmp_path / "site")
    repo = make_repo(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(site)}
    command = [str(CONTEND), "review", str(repo), "--critic", "lintbot", "--out", str(out)]
    run = {"cwd": elsewhere, "env": env, "capture_output": True, "text": True, "timeout": 120}
    done = subprocess.run([*command, "--format", "json"], check=False, **run)
    assert done.returncode == 1, done.stderr
    report = json.loads((out / "report.json").read_text())
    assert report["verdict"] == "fail"
    [dispute] = report["disputes"]
    assert (dispute["critic"], dispute["family"]) == ("lintbot", "lintbot-family")
    assert dispute["location"]["path"] == "app.py" and dispute["location"]["start_line"] == 12
    ledger = next((repo / ".contend" / "runs").glob("*/ledger.jsonl"))
    state = fold(verify(ledger, keep_entries=True).entries)
    # The factory was told the reviewed repository, not the directory contend ran in.
    assert [t.model for t in state.threads.values()] == [f"lintbot@{repo.name}"]


# --- capabilities at resolve time -------------------------------------------------------------


def test_a_critic_that_can_write_is_refused(installed: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    settings = load_settings(repo, flags={"critics": ["lintbot:writer"]})
    with pytest.raises(UserError, match=r"lintbot:writer cannot be the critic: it can edit files"):
        review(ReviewRequest(path=repo), settings)
    assert not (repo / ".contend" / "runs").exists()  # refused before anything was written


def test_a_critic_without_schema_enforcement_and_a_proposer_that_cannot_edit_are_adapted(
    installed: Path, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path)
    flags = {"critics": ["lintbot:freeform"], "proposer": "lintbot"}
    result = review(ReviewRequest(path=repo), load_settings(repo, flags=flags))
    schema_note, edit_note = (
        "lintbot:freeform cannot enforce the reply's JSON Schema: the schema goes into its "
        "prompt and contend validates the reply itself",
        "proposer lintbot cannot edit files: it can concede or defend",
    )
    assert any(n.startswith(schema_note) for n in result.notes), result.notes
    assert any(n.startswith(edit_note) for n in result.notes), result.notes
    entries = verify(result.run_dir / "ledger.jsonl", keep_entries=True).entries
    [started] = [e["data"] for e in entries if e["kind"] == "run_started"]
    assert any(n.startswith(schema_note) for n in started["notes"])


def test_a_scripted_critic_is_read_only_and_a_scripted_proposer_can_fix(tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", critic=[], proposer=[])
    critic = resolve(script, BackendContext(tmp_path, Settings(), "critic"))
    proposer = resolve(script, BackendContext(tmp_path, Settings(), "proposer"))
    assert critic.capabilities.read_only_enforced and not critic.capabilities.can_fix
    assert proposer.capabilities.can_fix


def test_resolve_refuses_a_spec_its_role_cannot_take() -> None:
    ctx = BackendContext(Path("."), Settings(), "proposer")
    with pytest.raises(UserError, match="unknown proposer backend 'gemini'"):
        resolve("gemini", ctx)
    with pytest.raises(UserError, match="names no agent to build"):
        resolve("none", ctx)


def test_a_fork_built_from_a_context_looks_in_the_reviewed_repository(tmp_path: Path) -> None:
    # The worktree is outside any repository: only the context says which one is reviewed.
    reviewed, worktree = tmp_path / "reviewed", tmp_path / "worktree"
    reviewed.mkdir()
    worktree.mkdir()
    sessions = claude_home() / "projects" / project_dir_name(reviewed)
    sessions.mkdir(parents=True)
    (sessions / "author-session.jsonl").write_text("{}\n")
    agent = create(None, BackendContext(reviewed, Settings(), "proposer"))
    request = AgentRequest(
        role="proposer",
        thread="C1",
        round=1,
        system="",
        prompt="",
        schema={},
        worktree=worktree,
        timeout_s=1.0,
    )
    assert agent.session_to_fork(request) == "author-session"


# --- broken or ambiguous installations are named, never picked silently -------------------------


def test_a_package_that_takes_a_built_in_name_is_an_error_when_that_name_is_used(
    installed: Path,
) -> None:
    write_package(
        installed, "contend-impostor", "contend_impostor", {"__init__.py": ""}, {"claude": "x:y"}
    )
    backends.refresh()
    with pytest.raises(UserError, match=r"'claude' is contend's own.*contend-impostor"):
        backends.parse_spec("claude", "critic")
    assert backends.parse_spec("lintbot", "critic")[1].name == "lintbot"


def test_two_packages_with_one_name_are_an_error_when_that_name_is_used(installed: Path) -> None:
    write_package(
        installed, "contend-twin", "contend_twin", {"__init__.py": ""}, {"lintbot": "x:y"}
    )
    backends.refresh()
    with pytest.raises(UserError, match=r"more than one installed package \(contend-lintbot, c"):
        backends.parse_spec("lintbot", "critic")


def test_a_broken_declaration_names_the_package(installed: Path) -> None:
    write_package(
        installed,
        "contend-broken",
        "contend_broken",
        {"__init__.py": "VALUE = 'not a backend'\n"},
        {"brokenbot": "contend_broken:VALUE", "missingbot": "contend_missing_module:X"},
    )
    backends.refresh()
    with pytest.raises(UserError, match=r"'brokenbot' of contend-broken .* is a str, not"):
        backends.lookup("brokenbot")
    with pytest.raises(UserError, match=r"'missingbot' of contend-broken .* could not be"):
        backends.lookup("missingbot")


# --- the docs hold what the registry holds ------------------------------------------------------

DOCS = Path(__file__).resolve().parents[1] / "docs" / "backends.md"


def test_the_roles_table_in_the_docs_is_the_registrys() -> None:
    rows = [
        line.split("|")[1:3]
        for line in DOCS.read_text(encoding="utf-8")
        .split("## Roles and arguments")[1]
        .split("\n\n")[1]
        .splitlines()[2:]
    ]
    documented = {
        name.strip(" `"): frozenset(r.strip() for r in roles.split(","))
        for names, roles in rows
        for name in names.split(",")
    }
    declared = {
        name: backend.roles
        for name in backends.BUILTIN_NAMES
        if (backend := backends.lookup(name)) is not None
    }
    assert documented == declared
