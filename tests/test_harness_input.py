"""`contend run` on bad input and per topology: clear outcomes, nothing merged, nothing of
the user's lost; critics see the spec and the diff only; focus areas; seed 004's config."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from contend.agents import registry
from contend.agents.base import AgentReply, AgentRequest, BackendContext, Capabilities
from contend.config import load_settings
from contend.errors import UserError
from contend.harness.config import HarnessConfig, parse_harness_config
from contend.harness.slice import SliceRequest, run_slice
from harness_helpers import (
    FIXED,
    NAIVE,
    SPEC,
    attack,
    clean,
    critic,
    implement,
    main_repo,
    run,
    script,
    spec_file,
)
from review_helpers import APP_BASE, git

# These tests are about the harness's input, not about which static findings may block: the change
# they plant as the one that fails (a broad `except Exception: return 0`) is a `swallowing-handler`,
# which the default earned policy lists as minor. They let static findings block at each rule's own
# severity, as a user can (`static.blocking = "rule"`).
pytestmark = pytest.mark.usefixtures("static_blocking_rule")


def no_slice_branches(repo: Path) -> bool:
    return git(repo, "branch", "--list", "contend/run/*") == ""


@pytest.mark.parametrize("text", [None, "", "  \n\t\n"])
def test_missing_or_empty_spec_is_refused_before_anything_is_made(
    tmp_path: Path, text: str | None
) -> None:
    repo = main_repo(tmp_path)
    spec = tmp_path / "SPEC.md"
    if text is not None:
        spec.write_text(text)
    with pytest.raises(UserError, match="does not exist" if text is None else "is empty"):
        run(tmp_path, repo, implementer=implement(FIXED), critics=[critic(clean())], spec=spec)
    assert no_slice_branches(repo)


def test_dirty_main_tree_is_refused_and_kept(tmp_path: Path) -> None:
    repo = main_repo(tmp_path)
    (repo / "app.py").write_text(APP_BASE + "# my unsaved work\n")
    with pytest.raises(UserError, match="uncommitted changes"):
        run(tmp_path, repo, implementer=implement(FIXED), critics=[critic(clean())])
    assert (repo / "app.py").read_text().endswith("# my unsaved work\n")
    assert no_slice_branches(repo)


def test_implementer_without_change_escalates(tmp_path: Path) -> None:
    repo = main_repo(tmp_path)
    result = run(tmp_path, repo, implementer=implement(None), critics=[critic(clean())])
    assert result.outcome.verdict == "escalate" and not result.outcome.ready
    assert result.outcome.reason == "the implementer produced no change"
    assert result.record["reviews"] == 0


class OutsideWriter:
    """An implementer that edits its worktree and also the user's main tree."""

    backend, model, family = "test", "outside", "fam-a"
    capabilities = Capabilities(can_fix=True, needs_network=False)

    def __init__(self, main: Path) -> None:
        self.main = main

    async def run(self, request: AgentRequest) -> AgentReply:
        (request.worktree / "app.py").write_text(FIXED)
        (self.main / "app.py").write_text("clobbered\n")
        (self.main / "stray.txt").write_text("stray\n")
        return AgentReply(output={"summary": "done"}, raw_text="{}")


def factory_with(repo: Path, implementer: Any, record: list[AgentRequest] | None = None) -> Any:
    settings = load_settings(repo)

    def make(spec: str, role: str) -> Any:
        if role == "proposer":
            return implementer
        agent = registry.resolve(spec, BackendContext(repo, settings, role))  # type: ignore[arg-type]
        return Recording(agent, record) if record is not None else agent

    return make


class Recording:
    def __init__(self, inner: Any, record: list[AgentRequest]) -> None:
        self.inner, self.record = inner, record
        self.backend, self.model, self.family = inner.backend, inner.model, inner.family
        self.capabilities = inner.capabilities

    async def run(self, request: AgentRequest) -> AgentReply:
        self.record.append(request)
        reply: AgentReply = await self.inner.run(request)
        return reply


def test_writes_outside_the_worktree_are_refused_and_reverted(tmp_path: Path) -> None:
    repo = main_repo(tmp_path)
    result = run_slice(
        SliceRequest(
            repo=repo,
            spec_path=spec_file(tmp_path),
            implementer="outside-writer",
            critics=[script(tmp_path / "c.json", **critic(clean()))],
            config=HarnessConfig(topology="C", static=False),
            agent_factory=factory_with(repo, OutsideWriter(repo)),
        )
    )
    assert result.outcome.verdict == "fail" and not result.outcome.ready
    assert "wrote outside its worktree (app.py, stray.txt)" in result.outcome.reason
    assert (repo / "app.py").read_text() == APP_BASE  # reverted
    assert not (repo / "stray.txt").exists()
    assert git(repo, "status", "--porcelain") == ""
    # The refused pass left nothing on the slice's branch either.
    assert git(repo, "rev-parse", result.branch) == git(repo, "rev-parse", "main")
    assert result.record["reviews"] == 0


def test_critics_see_the_spec_and_diff_only_with_their_focus_areas(tmp_path: Path) -> None:
    repo = main_repo(tmp_path)
    seen: list[AgentRequest] = []
    impl = {
        **implement(FIXED),
        "proposer": [
            {"output": {"summary": "REASONING-7731 I cut a corner"}, "edits": {"app.py": FIXED}}
        ],
    }
    critic_spec = script(tmp_path / "c.json", **critic(clean()))
    from contend.agents.scripted import ScriptedAgent

    implementer = ScriptedAgent(impl, role="proposer")
    result = run_slice(
        SliceRequest(
            repo=repo,
            spec_path=spec_file(tmp_path),
            implementer="scripted-implementer",
            critics=[critic_spec],
            config=HarnessConfig(topology="C", static=False, risky={"*.py": ("security",)}),
            agent_factory=factory_with(repo, implementer, seen),
        )
    )
    assert result.outcome.ready
    assert len(seen) == 1
    request = seen[0]
    text = request.system + request.prompt
    assert SPEC.strip() in request.prompt
    assert "raise ValueError('average of no amounts')" in request.prompt  # the diff
    assert "REASONING-7731" not in text  # never the implementer's reasoning
    assert "You implement a task spec" not in text  # nor its instructions
    assert "Your ONLY job is to find failures" in request.system
    for area in ("Correctness:", "Spec compliance:", "Security:"):
        assert area in request.system
    assert "Performance:" not in request.system


def test_topology_a_is_the_implementer_reviewing_itself(tmp_path: Path) -> None:
    repo = main_repo(tmp_path)
    self_review = {**implement(NAIVE), "critic": [clean()]}
    result = run(tmp_path, repo, implementer=self_review, topology="A")
    # Its own session waves its naive diff through: the baseline seed 001 measures.
    assert result.outcome.verdict == "pass"
    assert result.record["critics"] == [f"scripted:{tmp_path / 'implementer.json'}"]
    with pytest.raises(UserError, match="topology A"):
        run(tmp_path, repo, implementer=self_review, critics=[critic(clean())], topology="A")


def test_topology_b_is_a_fresh_session_of_the_same_model(tmp_path: Path) -> None:
    repo = main_repo(tmp_path)
    same = {**implement(NAIVE, FIXED), "critic": [attack(), clean()]}
    result = run(tmp_path, repo, implementer=same, topology="B")
    assert result.outcome.verdict == "pass" and result.record["fix_rounds"] == 1
    with pytest.raises(UserError, match="topology B"):
        run(tmp_path, repo, implementer=implement(FIXED), critics=[critic(clean())], topology="B")


def test_topology_c_and_d_need_another_family_and_d_an_oracle(tmp_path: Path) -> None:
    repo = main_repo(tmp_path)
    with pytest.raises(UserError, match="another model family"):
        run(tmp_path, repo, implementer=implement(FIXED), critics=[critic(clean(), family="fam-a")])
    with pytest.raises(UserError, match="needs a model critic"):
        run(tmp_path, repo, implementer=implement(FIXED), critics=[])
    with pytest.raises(UserError, match="needs an oracle"):
        run(tmp_path, repo, implementer=implement(FIXED), critics=[critic(clean())], topology="D")
    assert no_slice_branches(repo)


SILENT = APP_BASE + (
    "\n\ndef average(items):\n"
    "    try:\n"
    "        return total(items) / len(items)\n"
    "    except Exception:\n"
    "        return 0\n"
)


def test_static_critics_join_and_are_counted_apart(tmp_path: Path) -> None:
    repo = main_repo(tmp_path)
    result = run(
        tmp_path,
        repo,
        implementer=implement(SILENT, FIXED),
        critics=[critic(clean(), clean())],
        static=True,
    )
    assert result.outcome.ready, result.outcome.reason
    caught = result.record["caught"]
    assert caught["static"] >= 1 and caught["model"] == 0
    assert caught["by_topic"].get("silent-fallback", 0) >= 1
    assert result.record["critics"][0] == "static"
    assert result.record["fix_rounds"] == 1


def test_seed_004_config_is_accepted_as_is() -> None:
    seed = json.loads(
        '{"critics": {"focus_areas": ["correctness", "spec_compliance"], "max_attack_rounds": 2}}'
    )
    fields = parse_harness_config(seed, source="harness.json")
    config = HarnessConfig(**fields)
    assert config.max_attack_rounds == 2
    assert config.focus_areas == ("correctness", "spec_compliance")
    with_security = HarnessConfig(
        **parse_harness_config(
            {"critics": {"focus_areas": ["security", "correctness"]}}, source="x"
        )
    )
    assert with_security.focus_areas == ("correctness", "security")
    for bad, message in [
        ({"critics": {"max_attack_round": 2}}, "unknown key critics.max_attack_round"),
        ({"critics": {"focus_areas": ["style"]}}, "unknown focus area 'style'"),
        ({"critics": {"max_attack_rounds": -1}}, "integer >= 0"),
        ({"gates": []}, "unknown key 'gates'"),
    ]:
        with pytest.raises(UserError, match=message):
            parse_harness_config(bad, source="x")


def test_cli_implementers_are_fresh_sessions_confined_to_the_worktree(tmp_path: Path) -> None:
    from contend.harness.implementers import (
        ClaudeCodeImplementer,
        CodexImplementer,
        cli_implementer,
    )

    repo = main_repo(tmp_path)
    ctx = BackendContext(repo, load_settings(repo), "proposer")
    claude = cli_implementer("claude", "opus", ctx)
    codex = cli_implementer("codex", None, ctx)
    assert isinstance(claude, ClaudeCodeImplementer) and isinstance(codex, CodexImplementer)
    assert claude.capabilities.can_fix and codex.capabilities.can_fix
    request = AgentRequest(
        role="proposer", thread="implementer", round=1, system="S", prompt="P",
        schema={"type": "object"}, worktree=tmp_path, timeout_s=5.0,
    )  # fmt: skip
    argv = claude.argv(request, None)
    tools = argv[argv.index("--tools") + 1].split(",")
    assert tools == ["Read", "Grep", "Glob", "Edit", "Write"]
    assert "Bash" in argv[argv.index("--disallowedTools") + 1]
    assert "--resume" not in argv and "--fork-session" not in argv
    assert argv[argv.index("--model") + 1] == "opus"
    assert "--no-session-persistence" in argv and "--strict-mcp-config" in argv
    cargv = codex.argv(request, tmp_path / "schema.json", None)
    assert cargv[cargv.index("--sandbox") + 1] == "workspace-write"
    assert "fork" not in cargv and "--ignore-rules" in cargv
    assert "sandbox_workspace_write.exclude_slash_tmp=true" in cargv
