"""`contend run`: hand contend a spec, get back a branch that survived review — or an
escalation. `contend run note` records what a person found out about a slice later;
`contend run stats --by topology` prints seed 001's comparison table from the slices'
records."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from contend.errors import UserError
from contend.harness.config import FOCUS_AREAS, TOPOLOGIES, HarnessConfig, load_harness_config


@click.group("run", invoke_without_command=True)
@click.option("--spec", "spec", type=click.Path(path_type=Path), help="The task spec (a file).")
@click.option("--batch", type=click.Path(path_type=Path), help="A folder of specs or a YAML list.")
@click.option(
    "--implementer", metavar="AGENT", help="The implementer (a backend that edits files)."
)
@click.option("--critic", "critics", multiple=True, metavar="AGENT", help="Critic (repeatable).")
@click.option("--oracle", metavar="AGENT", help="The oracle of topology D.")
@click.option("--topology", type=click.Choice(TOPOLOGIES), default="C", show_default=True)
@click.option("--gate", "gates", multiple=True, metavar="CMD", help="Gate command (repeatable).")
@click.option(
    "--harness-config",
    type=click.Path(path_type=Path),
    help='Seed 004\'s config as is: {"critics": {"focus_areas": [...], "max_attack_rounds": N}}.',
)
@click.option("--max-attack-rounds", type=click.IntRange(min=0), help="Fix rounds (default 3).")
@click.option("--focus", "focus", multiple=True, type=click.Choice(FOCUS_AREAS))
@click.option("--gate-cap", type=click.IntRange(min=0), help="Retries with gate output (3).")
@click.option("--gate-timeout", type=click.FloatRange(min=0, min_open=True), help="Seconds.")
@click.option("--no-static", is_flag=True, help="Leave the static critics out.")
@click.option("--events", type=click.Path(path_type=Path), help="Also append events here.")
@click.option("--executor", type=click.Choice(["local", "process", "ray"]), default="local")
@click.option("--concurrency", type=click.IntRange(min=1), default=2, show_default=True)
@click.option("--max-cost", type=float, help="Cost cap for a batch (USD).")
@click.option("--max-tokens", type=int, help="Token cap for a batch.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.option(
    "-C", "repo", type=click.Path(path_type=Path), default=".", help="The repository (default .)."
)
@click.pass_context
def run(ctx: click.Context, /, **opts: Any) -> int:
    """Implement SPEC on a new branch contend/run/<id> and verify it adversarially.

    \b
    implementer → gates → review (spec + diff only) → fix rounds → (D) oracle
    Topologies: A self-review, B fresh same model, C cross-family critic, D C + oracle.
    Result: a branch ready to merge (exit 0), or an escalation (3) / failure (1) with the
    reason. Nothing is merged into your branch.
    """
    if ctx.invoked_subcommand is not None:
        return 0
    if (opts["spec"] is None) == (opts["batch"] is None):
        raise click.UsageError("give exactly one of --spec FILE or --batch DIR|LIST")
    if not opts["implementer"]:
        raise click.UsageError("--implementer AGENT is required")
    config = _config(opts)
    if opts["batch"] is not None:
        return _batch(opts, config)
    from contend.harness.slice import SliceRequest, run_slice

    result = run_slice(
        SliceRequest(
            repo=opts["repo"],
            spec_path=opts["spec"],
            implementer=opts["implementer"],
            critics=list(opts["critics"]),
            oracle=opts["oracle"],
            gates=list(opts["gates"]),
            config=config,
            events_path=opts["events"],
        )
    )
    if opts["fmt"] == "json":
        click.echo(json.dumps(result.record, indent=2, sort_keys=True))
    else:
        o = result.outcome
        head = "ready to merge" if o.ready else "not ready"
        click.echo(f"slice {result.slice_id}: {o.verdict} — {head}: {o.reason}")
        click.echo(f"branch {result.branch} (nothing merged into your branch)")
        r = result.record
        click.echo(
            f"reviews {r['reviews']}, fix rounds {r['fix_rounds']}, oracle "
            f"{'used' if r['oracle_used'] else 'not used'}, findings {r['caught']['total']} "
            f"(static {r['caught']['static']}, model {r['caught']['model']}), "
            f"cost ${r['cost']:.4f}, {r['wall_s']:.1f}s"
        )
        click.echo(f"events: {result.events_path}")
    for error in result.event_errors:
        click.echo(
            f"contend: error: {error}; the slice's record is in {result.events_path.parent}",
            err=True,
        )
    return result.outcome.exit_code


def _config(opts: dict[str, Any]) -> HarnessConfig:
    fields: dict[str, Any] = {"topology": opts["topology"], "static": not opts["no_static"]}
    if opts["harness_config"] is not None:
        fields.update(load_harness_config(opts["harness_config"]))
    if opts["max_attack_rounds"] is not None:
        fields["max_attack_rounds"] = opts["max_attack_rounds"]
    if opts["focus"]:
        fields["focus_areas"] = tuple(a for a in FOCUS_AREAS if a in opts["focus"])
    if opts["gate_cap"] is not None:
        fields["gate_cap"] = opts["gate_cap"]
    if opts["gate_timeout"] is not None:
        fields["gate_timeout_s"] = opts["gate_timeout"]
    return HarnessConfig(**fields)


def _batch(opts: dict[str, Any], config: HarnessConfig) -> int:
    from contend.config import load_settings
    from contend.executor.factory import make_executor
    from contend.executor.grid import Caps, run_grid
    from contend.executor.journal import Journal
    from contend.gitio.git import repo_root
    from contend.harness.batch import batch_cells, batch_specs
    from contend.review.state_dir import open_state_dir

    root = repo_root(opts["repo"])
    source: Path = opts["batch"]
    specs = batch_specs(source)
    batch_id = source.stem if source.is_file() else source.resolve().name
    state_dir = open_state_dir(root, load_settings(root))
    journal = Journal(state_dir / "harness" / "batches" / batch_id / "journal.jsonl")
    cells = batch_cells(
        batch_id,
        specs,
        repo=root,
        implementer=opts["implementer"],
        critics=list(opts["critics"]),
        oracle=opts["oracle"],
        gates=list(opts["gates"]),
        config=config,
    )

    def show(record: dict[str, Any]) -> None:
        result = record.get("result") or {}
        if record["status"] == "ok":
            click.echo(f"{record['cell']}: {result['verdict']} — {result['reason']}")
        else:
            click.echo(f"{record['cell']}: error — {record['error']}")

    outcome = run_grid(
        cells,
        make_executor(opts["executor"]),
        journal,
        concurrency=opts["concurrency"],
        caps=Caps(max_cost=opts["max_cost"], max_tokens=opts["max_tokens"]),
        on_record=show,
    )
    records = {r["cell"]: r for r in journal.records}
    ready = sum(1 for r in records.values() if (r.get("result") or {}).get("ready"))
    click.echo(
        f"batch {batch_id}: {len(records)}/{outcome.cells} slices finished "
        f"({outcome.already_done} in earlier sessions), {ready} ready, {outcome.errors} errors, "
        f"cost ${outcome.cost:.4f}"
        + (f"; stopped at {outcome.stopped}, {outcome.not_run} not run" if outcome.stopped else "")
    )
    if outcome.errors or not outcome.complete:
        return 3
    return 0 if ready == outcome.cells else 3


@run.command("note")
@click.argument("slice_id", metavar="RUN")
@click.option("--review-minutes", type=float, help="Minutes a person spent reviewing it.")
@click.option(
    "--defect-escape/--no-defect-escape",
    default=None,
    help="Whether a defect escaped the slice's review (found by a person later).",
)
@click.option("-C", "repo", type=click.Path(path_type=Path), default=".")
def note(
    slice_id: str, review_minutes: float | None, defect_escape: bool | None, repo: Path
) -> int:
    """Record what a person found out about slice RUN after it ran."""
    from contend.harness.metrics import note_slice

    if review_minutes is None and defect_escape is None:
        raise click.UsageError("give --review-minutes N and/or --defect-escape/--no-defect-escape")
    note_slice(
        _state_dir(repo), slice_id, review_minutes=review_minutes, defect_escape=defect_escape
    )
    said = []
    if review_minutes is not None:
        said.append(f"review time {review_minutes:g} min")
    if defect_escape is not None:
        said.append("a defect escaped" if defect_escape else "no defect escaped")
    click.echo(f"slice {slice_id}: {', '.join(said)} recorded")
    return 0


@run.command("stats")
@click.option("--by", type=click.Choice(["topology"]), default="topology", show_default=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.option("-C", "repo", type=click.Path(path_type=Path), default=".")
def stats(by: str, fmt: str, repo: Path) -> int:
    """Alias of `contend stats --by topology`: seed 001's comparison of the slices."""
    from contend.harness.metrics import render_topologies, topology_stats

    table = topology_stats(_state_dir(repo))
    if fmt == "json":
        click.echo(json.dumps(table, indent=2))
    else:
        click.echo(render_topologies(table), nl=False)
    return 0


def _state_dir(repo: Path) -> Path:
    from contend.config import load_settings
    from contend.gitio.git import repo_root
    from contend.review.state_dir import locate_state_dir

    root = repo_root(repo)
    state_dir = locate_state_dir(root, load_settings(root))
    if not state_dir.is_dir():
        raise UserError(f"no contend state in {root}: no slice has run here")
    return state_dir
