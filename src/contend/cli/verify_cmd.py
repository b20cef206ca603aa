"""`contend verify CARDS…`: verify claim cards — the entry gate, the evidence precheck and the
deterministic internal-fact critic, end to end, with a hash-chained ledger and reports.

Claims are documents, so this works outside a git repository: a run lives in `--out DIR`,
else in the user state directory (`$CONTEND_STATE_DIR` when absolute, else
`$XDG_STATE_HOME/contend`, else `~/.local/state/contend`) under `runs/<run-id>/`:
ledger.jsonl (+ ledger.head), report.json (`contend.claims/v1`), report.md, and for each
level-3 claim the evaluator artifact set in `claims/<claim-id>/`.

Exit codes: 0 every claim accepted, 1 any reject, 2 a card or file could not be read (and
nothing was rejected) or bad usage, 3 any escalate.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import click

from contend.claims import events as claim_events
from contend.claims.artifacts import evaluator_artifacts
from contend.claims.axes import AxisPolicy, axis_policy
from contend.claims.driver import verify_with_agents
from contend.claims.events import run_finished, run_started
from contend.claims.load import LoadResult, load_card_files
from contend.claims.panel import (
    PERSON,
    AgentChoice,
    check_coverage,
    panel_factory,
    parse_choice,
)
from contend.claims.render import render_markdown
from contend.claims.report import ClaimsReport, build_report
from contend.claims.resume import read_reply, waiting_claims
from contend.claims.run import CRITICS, verify_loaded
from contend.config import Settings, load_settings
from contend.errors import UserError
from contend.gitio.base import git_optional
from contend.gitio.git import find_repo_root
from contend.ledger.runs import LEDGER_FILE, new_run_id, runs_dir
from contend.ledger.store import Ledger, read_head, write_atomic
from contend.protocol.claims_event_types import ClaimReplyData
from contend.redaction import redact_json_text, redact_text
from contend.report.escape import visible

CARD_SUFFIXES = (".yaml", ".yml", ".json")
_OUTPUTS = ("ledger.jsonl", "ledger.head", "report.json", "report.md", "claims")


def user_state_dir(env: os._Environ[str] | dict[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    configured = env.get("CONTEND_STATE_DIR", "")
    if configured and Path(configured).expanduser().is_absolute():
        return Path(configured).expanduser()
    xdg = env.get("XDG_STATE_HOME", "")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "contend"
    return Path.home() / ".local" / "state" / "contend"


def card_files(paths: Sequence[Path]) -> list[Path]:
    """The card files named, a directory standing for the card files below it."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(
                p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in CARD_SUFFIXES
            )
        elif path.is_file():
            found.append(path)
        else:
            raise UserError(f"{path}: no such file or directory")
    if not found:
        shown = ", ".join(str(p) for p in paths)
        raise UserError(f"no claim-card files ({', '.join(CARD_SUFFIXES)}) in {shown}")
    return found


def verify_settings() -> Settings:
    """The settings of a claims run: the user config and `CONTEND_*`, and inside a git
    repository its project config as committed at HEAD (a claims run has no change under
    review; uncommitted edits configure nothing, as for review — DESIGN §9)."""
    root = find_repo_root(Path.cwd())
    if root is None:
        return load_settings(None)
    head = git_optional(root, ["rev-parse", "--verify", "-q", "HEAD^{commit}"])
    return load_settings(root, project_rev=head.strip() if head else None)


def axes_of(settings: Settings) -> AxisPolicy:
    return axis_policy(settings.verify.domain_axes, settings.verify.extra_axes_order)


def _state_dir(settings: Settings) -> Path:
    """Where runs live without `--out`: `[verify] state_dir`, else the user state dir."""
    configured = settings.verify.state_dir
    return Path(configured).expanduser() if configured else user_state_dir()


def _run_dir(out: Path | None, run_id: str, state_dir: Path) -> Path:
    if out is None:
        path = runs_dir(state_dir) / run_id
    else:
        path = out
        if path.exists() and not path.is_dir():
            raise UserError(f"--out {path} exists and is not a directory")
        if path.is_dir():
            foreign = sorted(p.name for p in path.iterdir() if p.name not in _OUTPUTS)
            if foreign:
                raise UserError(
                    f"--out {path} holds files contend did not write ({', '.join(foreign[:3])}); "
                    "choose an empty or new directory"
                )
            if (path / LEDGER_FILE).exists():
                raise UserError(
                    f"--out {path} already holds a run's ledger; choose a new directory"
                )
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create the run directory {path}: {exc.strerror or exc}") from exc
    return path


def _summary(report: ClaimsReport) -> str:
    lines = []
    for claim in report.claims:
        lines.append(
            visible(f"{claim.claim_id}  {claim.verdict}  {claim.summary}", single_line=True)
        )
    for error in report.card_errors:
        where = f"card {error.card}" if error.card else "file"
        if error.line is not None:
            where += f" (line {error.line})"
        lines.append(visible(f"{error.file} {where}: {error.message}", single_line=True))
    lines.append(f"verdict: {report.verdict} (exit {report.exit_code})")
    return "\n".join(lines) + "\n"


@click.command("verify")
@click.argument("cards", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    help="Run directory (default: the user state directory, runs/<run-id>).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "markdown"]),
    default="text",
    show_default=True,
    help="What to print on stdout; report.json and report.md are written either way.",
)
@click.option(
    "--agent",
    "agents",
    multiple=True,
    metavar="[AXIS=]SPEC",
    help="Run the adversarial rounds with this agent on every axis (SPEC), or on one axis "
    "(AXIS=SPEC; internal-fact defaults to the deterministic checker). Repeatable.",
)
@click.option("--proposer", metavar="SPEC", help="The proponent between rounds (default none).")
@click.option(
    "--meta-judge", "meta_judge", metavar="SPEC", help="The meta-judge at deadlock (an oracle)."
)
@click.option(
    "--web-access",
    is_flag=True,
    help="Let the axis agents search and read the web where their backend allows it "
    "(claude: WebSearch/WebFetch; codex: live web search), still without write access; "
    'others keep the claim marked "unverified echo (official docs only)".',
)
@click.option(
    "--resume",
    "resume_dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="Continue the run in this directory: a run cut off mid-rounds (Ctrl-C, a crash) "
    "goes on where its ledger stops, and claims a person answered (`contend respond CLAIM "
    "--run DIR --reply FILE`) go on; give --agent again.",
)
def verify(
    cards: tuple[Path, ...],
    out: Path | None,
    fmt: str,
    agents: tuple[str, ...],
    proposer: str | None,
    meta_judge: str | None,
    web_access: bool,
    resume_dir: Path | None,
) -> int:
    """Verify claim cards (YAML or JSON files, or directories of them).

    Runs the entry gate and the evidence precheck of every card, then the deterministic
    internal-fact critic: each number, quote and named entity of a claim against the page
    and region of its local evidence. Without --agent the other axes are listed as not
    run; with --agent every assigned axis gets an agent and the adversarial rounds run
    (convergence, the proponent between rounds, the meta-judge at deadlock).

    \b
    Exit codes: 0 all accepted, 1 any reject, 2 unreadable card or usage error,
    3 any escalate.
    """
    if (proposer or meta_judge or web_access) and not agents:
        raise UserError(
            "--proposer, --meta-judge and --web-access take part in rounds: give --agent too"
        )
    choice = parse_choice(agents, proposer, meta_judge, web_access=web_access) if agents else None
    if resume_dir is not None:
        if cards or out is not None:
            raise UserError("--resume continues a run: give neither cards nor --out")
        if choice is None:
            raise UserError("--resume needs the run's agents again (--agent …)")
        return _resume(resume_dir, choice, fmt)
    if not cards:
        raise UserError("give claim-card files or directories (or --resume RUN_DIR)")
    done = run_verify(cards, out, choice)
    report, run_id, run_dir, texts = done.report, done.run_id, done.run_dir, done.texts
    click.echo(texts[fmt], nl=False)
    click.echo(f"contend: run {run_id} → {run_dir}", err=True)
    return report.exit_code


@dataclass(frozen=True)
class VerifyRun:
    """A finished `contend verify`: the report, where the run lives, the rendered texts."""

    report: ClaimsReport
    run_id: str
    run_dir: Path
    texts: dict[str, str]


def run_verify(
    cards: Sequence[Path], out: Path | None, choice: AgentChoice | None = None
) -> VerifyRun:
    """Verify the card files (or directories) `cards` into `out` (else the user state
    directory), with agents when `choice` is given. The command and `contend.verify` call
    this."""
    files = card_files(cards)
    settings = verify_settings()
    axes = axes_of(settings)
    loaded = load_card_files(files)
    if choice is not None:
        check_coverage(choice, loaded, axes)
    run_id = new_run_id()
    run_dir = _run_dir(out, run_id, _state_dir(settings))
    # Absolute: `--resume` reads the cards again from wherever it is run.
    card_paths = [str(f.resolve()) for f in files]
    with Ledger(run_dir / LEDGER_FILE, run_id) as ledger:
        if choice is None:
            report, events = verify_loaded(loaded, axes=axes)
            ledger.append_many([run_started(card_paths, CRITICS), *events])
        else:
            ledger.append_many([run_started(card_paths, [*CRITICS, *choice.specs])])
            ledger.checkpoint()

            def to_ledger(new: Sequence[tuple[str, dict[str, Any]]]) -> None:
                # Rounds with agents take long: each step reaches the ledger as it happens.
                if new:
                    ledger.append_many(new)
                    ledger.checkpoint()

            panel_for = panel_factory(choice, settings, timeout_s=settings.agent_timeout)
            with _resumable(run_dir, choice):
                report, events = asyncio.run(
                    verify_with_agents(loaded, panel_for, sink=to_ledger, axes=axes)
                )
        ledger.checkpoint()
    texts = _write_outputs(run_dir, report, loaded, events)
    return VerifyRun(report, run_id, run_dir, texts)


def _write_outputs(
    run_dir: Path,
    report: ClaimsReport,
    loaded: LoadResult,
    events: Sequence[tuple[str, dict[str, Any]]],
    only: Collection[str] | None = None,
) -> dict[str, str]:
    """report.json, report.md and the level-3 artifact sets (of the claims in `only`, when
    given); the texts for stdout."""
    # Every rendered output passes redaction on its way to disk or stdout, as review's do:
    # a card or its evidence may carry a secret the ledger already redacted.
    texts = {
        "json": redact_json_text(report.to_json()),
        "markdown": redact_text(render_markdown(report)),
        "text": redact_text(_summary(report)),
    }
    write_atomic(run_dir / "report.json", texts["json"].encode("utf-8"))
    write_atomic(run_dir / "report.md", texts["markdown"].encode("utf-8"))
    by_id = {c.card.claim_id: c.card for c in loaded.cards}
    for claim in report.claims:
        if claim.level != 3 or (only is not None and claim.claim_id not in only):
            continue
        trace = [
            {"kind": kind, "data": data}
            for kind, data in events
            if data.get("claim_id") == claim.claim_id
        ]
        target = run_dir / "claims" / claim.claim_id
        target.mkdir(parents=True, exist_ok=True)
        for name, text in evaluator_artifacts(by_id[claim.claim_id], claim, trace).items():
            safe = redact_json_text(text) if name.endswith(".json") else redact_text(text)
            write_atomic(target / name, safe.encode("utf-8"))
    return texts


@contextmanager
def _resumable(run_dir: Path, choice: AgentChoice) -> Iterator[None]:
    """Ctrl-C during the rounds: the command that goes on, for the interrupt message
    (cli/main.py prints it)."""
    try:
        yield
    except KeyboardInterrupt:
        raise KeyboardInterrupt(resume_command(run_dir, choice)) from None


def resume_command(run_dir: Path, choice: AgentChoice) -> str:
    words = ["contend verify --resume", str(run_dir)]
    words += [f"--agent {spec}" for spec in choice.specs]
    if choice.proposer:
        words.append(f"--proposer {choice.proposer}")
    if choice.meta_judge:
        words.append(f"--meta-judge {choice.meta_judge}")
    if choice.web_access:
        words.append("--web-access")
    return " ".join(words)


def _verified_entries(run_dir: Path) -> tuple[str, list[dict[str, Any]]]:
    from contend.ledger.verify import verify as verify_ledger

    ledger_path = run_dir / LEDGER_FILE
    head = read_head(ledger_path) if ledger_path.is_file() else None
    if head is None or head.run is None:
        raise UserError(f"{run_dir} is no `contend verify` run (no ledger head)")
    checked = verify_ledger(ledger_path, keep_entries=True, run=head.run)
    if not checked.ok:
        raise UserError(f"{ledger_path}: {checked.message} — contend will not continue this run")
    if not checked.entries or checked.entries[0]["kind"] != "claims_run_started":
        raise UserError(f"{run_dir} is no `contend verify` run (its ledger is another kind)")
    return head.run, checked.entries


# Appended to a finished run later; they do not make it unfinished.
_AFTERWARDS = frozenset({"claim_proponent_reply", "claim_decided"})


def _interrupted(entries: Sequence[dict[str, Any]]) -> bool:
    """Whether the run was cut off: its last event (beyond a person's later answers and
    decisions) is not the run's closing one."""
    for entry in reversed(entries):
        if entry["kind"] not in _AFTERWARDS:
            return bool(entry["kind"] != "claims_run_finished")
    return True


def _resume(run_dir: Path, choice: AgentChoice, fmt: str) -> int:
    """`contend verify --resume RUN_DIR --agent …`: a run cut off mid-rounds (Ctrl-C, a
    crash) goes on where its ledger stops, and the claims a person answered go on."""
    run_id, entries = _verified_entries(run_dir)
    answered = [c for c, w in waiting_claims(entries).items() if w.reply is not None]
    if not answered and not _interrupted(entries):
        raise UserError(
            f"nothing to continue in {run_dir}: the run finished, and no claim has a person's "
            "answer to go on with (answer with `contend respond CLAIM --run DIR --reply FILE`)"
        )
    files = card_files([Path(f) for f in entries[0]["data"]["files"]])
    settings = verify_settings()
    axes = axes_of(settings)
    loaded = load_card_files(files)
    check_coverage(choice, loaded, axes)
    report_path = run_dir / "report.json"
    old = (
        ClaimsReport.model_validate_json(report_path.read_text(encoding="utf-8"))
        if report_path.is_file()
        else None
    )
    history = [(str(e["kind"]), dict(e["data"])) for e in entries]
    panel_for = panel_factory(choice, settings, timeout_s=settings.agent_timeout)
    with Ledger.open(run_dir / LEDGER_FILE, run_id) as ledger:

        def to_ledger(new: Sequence[tuple[str, dict[str, Any]]]) -> None:
            if new:
                ledger.append_many(new)
                ledger.checkpoint()

        with _resumable(run_dir, choice):
            rebuilt, events = asyncio.run(
                verify_with_agents(loaded, panel_for, sink=to_ledger, recorded=history, axes=axes)
            )
        touched = {d["claim_id"] for _, d in events if isinstance(d.get("claim_id"), str)}
        # A claim this invocation did not move keeps its reported result (a person's
        # `contend decide` included); the others are rebuilt from the ledger.
        before = {c.claim_id: c for c in old.claims} if old is not None else {}
        claims = [c if c.claim_id in touched else before.get(c.claim_id, c) for c in rebuilt.claims]
        report = build_report(claims, rebuilt.card_errors)
        ledger.append_many([run_finished(report.verdict, report.exit_code)])
        ledger.checkpoint()
    # A run cut off before its reports were written gets all of them now.
    only = touched if old is not None else None
    texts = _write_outputs(run_dir, report, loaded, [*history, *events], only=only)
    click.echo(texts[fmt], nl=False)
    click.echo(f"contend: run {run_id} continued → {run_dir}", err=True)
    return report.exit_code


def respond_claim_cmd(run_dir: Path, claim_id: str, reply_file: Path) -> int:
    """`contend respond CLAIM --run DIR --reply FILE`: a person answers as the proponent."""
    run_id, entries = _verified_entries(run_dir)
    waiting = waiting_claims(entries).get(claim_id)
    if waiting is None:
        raise UserError(f"claim {claim_id} of {run_dir} does not wait for the proponent")
    if waiting.reply is not None:
        raise UserError(
            f"claim {claim_id} has its answer for round {waiting.round} already: continue with "
            f"`contend verify --resume {run_dir} --agent …`"
        )
    reply = read_reply(reply_file)
    with Ledger.open(run_dir / LEDGER_FILE, run_id) as ledger:
        record: ClaimReplyData = {"output": reply, "error": None, "raw_text": None}
        ledger.append(
            *claim_events.proponent_reply(
                claim_id=claim_id, round=waiting.round, by=PERSON, reply=record
            )
        )
        ledger.checkpoint()
    click.echo(
        visible(
            f"{claim_id}: the proponent's answer for round {waiting.round} is recorded; go on "
            f"with `contend verify --resume {run_dir} --agent …`",
            single_line=True,
        )
    )
    return 0


def decide_claim_cmd(run_dir: Path, claim_id: str, decision: str, note: str) -> int:
    """`contend decide CLAIM_ID --run DIR --uphold|--overrule --note …` on a claims run."""
    from contend.claims.decide import decide_claim

    if decision == "waive":
        raise UserError("a claim is accepted or rejected: use --overrule or --uphold, not --waive")
    verdict: Literal["accept", "reject"] = "reject" if decision == "uphold" else "accept"
    report = decide_claim(run_dir, claim_id, verdict, note)
    click.echo(
        visible(f"{claim_id}: {verdict}; run verdict now {report.verdict}", single_line=True)
    )
    return report.exit_code
