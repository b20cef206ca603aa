"""`contend experiment`: the research probe — list, run, report, simulate.

    contend experiment list
    contend experiment run 01 [02 ...] --agent SPEC [--agent SPEC ...] [--dir DIR] [--resume]
    contend experiment report [--dir DIR]
    contend experiment simulate --p 0.3,0.5,0.6 [--rho R] [--trials N] [--json] [--sweep]

Exit codes: 0 done; 2 bad input (one line); 3 a grid that did not finish (a cap stopped it:
rerun with --resume). numpy and matplotlib come with the extra contend[experiment];
a missing one is one error line naming the extra.
"""

from __future__ import annotations

import importlib
import json
import math
from pathlib import Path
from typing import Any

import click

from contend.errors import UserError

DEFAULT_DIR = Path(".contend") / "experiments"


def _need_extra() -> None:
    for module in ("numpy", "matplotlib"):
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise UserError(
                f"contend experiment needs {module}: pip install 'contend[experiment]' ({exc})"
            ) from exc


@click.group("experiment")
def experiment() -> None:
    """The research probe: does adversarial verification beat aggregation when agents fail
    together? Experiments 01-07 on small versioned banks, with real agents through the same
    backends as `contend review`, and a simulator of correlated critics. See
    docs/experiments.md."""


@experiment.command("list")
def list_cmd() -> int:
    """Every experiment, its built-in bank (id, version, items) and the bank's file."""
    _need_extra()
    from contend.experiments.catalogue import EXPERIMENTS

    for e in EXPERIMENTS.values():
        bank = e.bank()
        click.echo(
            f"{e.id}  {e.title:38} bank {bank.label:32} {len(bank.items):3} items  "
            f"{Path(bank.path).name}"
        )
    return 0


def _floats(text: str, what: str) -> list[float]:
    try:
        values = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise UserError(f"--{what} must be comma-separated numbers, got {text!r}") from None
    if not values:
        raise UserError(f"--{what} needs at least one number")
    return values


def _params(pairs: tuple[str, ...]) -> dict[str, Any]:
    import yaml

    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UserError(f"--param must be KEY=VALUE, got {pair!r}")
        try:
            out[key.strip()] = yaml.safe_load(value)
        except yaml.YAMLError:
            raise UserError(f"--param {key}: {value!r} is not a YAML value") from None
    return out


def _check_agents(agents: tuple[str, ...], role: str = "critic") -> None:
    from contend.backends import parse_spec

    for spec in agents:
        try:
            _, backend = parse_spec(spec, role)  # type: ignore[arg-type]
        except ValueError as exc:
            raise UserError(str(exc)) from None
        if backend.kind != "agent":
            raise UserError(f"--agent {spec!r} names no agent (backend kind {backend.kind!r})")


@experiment.command("run")
@click.argument("names", nargs=-1, required=True)
@click.option(
    "--agent",
    "agents",
    multiple=True,
    required=True,
    help="An agent spec (repeatable): claude, codex:MODEL, openai:MODEL, scripted:FILE, ...",
)
@click.option(
    "--dir",
    "suite",
    type=click.Path(path_type=Path),
    default=DEFAULT_DIR,
    show_default=True,
    help="Suite directory; each experiment runs in DIR/<id>-<name>/.",
)
@click.option(
    "--bank",
    type=click.Path(path_type=Path),
    default=None,
    help="A bank file instead of the built-in one (one experiment only).",
)
@click.option(
    "--resume", is_flag=True, help="Continue the grid in DIR; finished cells are never rerun."
)
@click.option(
    "--executor",
    type=click.Choice(["local", "process", "ray"]),
    default="local",
    show_default=True,
    help="Where cells run.",
)
@click.option(
    "--ray-address",
    default=None,
    help="A Ray cluster to run on (e.g. ray://head:10001 or auto); default: a local Ray.",
)
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=4,
    show_default=True,
    help="Cells in flight at once.",
)
@click.option(
    "--max-cost", type=float, default=None, help="Stop starting cells at this spend (USD)."
)
@click.option(
    "--max-tokens", type=int, default=None, help="Stop starting cells at this many tokens."
)
@click.option(
    "--replicates",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Repetitions of every cell.",
)
@click.option(
    "--param",
    "params",
    multiple=True,
    help="Override a bank default, KEY=VALUE (YAML value), e.g. ensemble_sizes=[3,5].",
)
@click.option("--byzantine", default=None, help="02: the agent spec of the Byzantine slots.")
@click.option(
    "--proposer", default="none", show_default=True, help="07: the proposer of the adversarial arm."
)
@click.option(
    "--budget-tokens",
    type=click.IntRange(min=1),
    default=None,
    help="07: each item's token budget for both arms (default: what review spent).",
)
@click.option(
    "--timeout",
    "timeout_s",
    type=float,
    default=300.0,
    show_default=True,
    help="Seconds per agent call.",
)
def run_cmd(
    names: tuple[str, ...],
    agents: tuple[str, ...],
    suite: Path,
    bank: Path | None,
    resume: bool,
    executor: str,
    ray_address: str | None,
    concurrency: int,
    max_cost: float | None,
    max_tokens: int | None,
    replicates: int,
    params: tuple[str, ...],
    byzantine: str | None,
    proposer: str,
    budget_tokens: int | None,
    timeout_s: float,
) -> int:
    """Run experiments' grids: each cell's record is appended to DIR/<id>-<name>/records.jsonl
    as soon as it finishes; the report is written at the end (also when a cap stops it)."""
    _need_extra()
    from contend.config import load_settings
    from contend.executor import Caps
    from contend.experiments.agents import settings_payload
    from contend.experiments.catalogue import experiment as find
    from contend.experiments.framework import RunConfig
    from contend.experiments.runner import RunOptions, run_experiment

    chosen = [find(n) for n in names]
    if bank is not None and len(chosen) != 1:
        raise UserError("--bank applies to one experiment; name exactly one")
    if max_cost is not None and (not math.isfinite(max_cost) or max_cost <= 0):
        raise UserError(f"--max-cost must be a positive amount, got {max_cost:g}")
    if max_tokens is not None and max_tokens <= 0:
        raise UserError(f"--max-tokens must be positive, got {max_tokens}")
    if not timeout_s > 0:
        raise UserError(f"--timeout must be positive, got {timeout_s:g}")
    _check_agents(agents)
    if byzantine:
        _check_agents((byzantine,))
    if proposer != "none":
        _check_agents((proposer,), "proposer")
    extra = _params(params)
    settings = settings_payload(load_settings(None))
    opts = RunOptions(
        suite=suite,
        executor=executor,
        ray_address=ray_address,
        concurrency=concurrency,
        caps=Caps(max_cost, max_tokens),
        resume=resume,
    )
    incomplete = False
    for exp in chosen:
        loaded = exp.bank(bank)
        merged = {**loaded.defaults, **extra}
        if byzantine:
            merged["byzantine_agent"] = byzantine
        cfg = RunConfig(
            agents=agents,
            replicates=replicates,
            params=merged,
            settings=settings,
            timeout_s=timeout_s,
            proposer=proposer,
            budget_tokens=budget_tokens,
        )
        done = run_experiment(exp, loaded, cfg, opts, on_record=_progress)
        o = done.outcome
        click.echo(
            f"{exp.id} {exp.title}: {o.ran} cells run, {o.already_done} already done, "
            f"{o.errors} errors, {o.tokens} tokens, ${o.cost:.4f} -> {done.folder}"
        )
        if o.discarded_torn_bytes:
            click.echo(
                f"  (cut a torn last record of {o.discarded_torn_bytes} bytes; that cell ran again)"
            )
        if not o.complete:
            incomplete = True
            click.echo(
                f"  stopped at {o.stopped}: {o.not_run} cells not run; continue with --resume "
                "and a higher cap",
                err=True,
            )
        click.echo(f"  finding: {done.finding}")
        click.echo(f"  summary: {done.summary}")
    return 3 if incomplete else 0


def _progress(record: dict[str, Any]) -> None:
    mark = "ok" if record.get("status") == "ok" else f"ERROR {record.get('error')}"
    click.echo(f"  cell {record['cell']}: {mark}", err=True)


@experiment.command("report")
@click.option(
    "--dir",
    "suite",
    type=click.Path(path_type=Path),
    default=DEFAULT_DIR,
    show_default=True,
    help="Suite directory written by `contend experiment run`.",
)
def report_cmd(suite: Path) -> int:
    """Rebuild every experiment's report and DIR/report.md from the records (no agent calls)."""
    _need_extra()
    from contend.experiments.bank import load_bank
    from contend.experiments.catalogue import experiment as find
    from contend.experiments.framework import RunConfig
    from contend.experiments.report import write_summary
    from contend.experiments.runner import GRID, report_again

    grids = sorted(suite.glob(f"*/{GRID}"))
    if not grids:
        raise UserError(f"no experiment grid in {suite} (run `contend experiment run` first)")
    for grid_file in grids:
        grid = json.loads(grid_file.read_text(encoding="utf-8"))
        exp = find(str(grid["experiment"]))
        bank = load_bank(Path(grid["bank"]["path"]), experiment=exp.id)
        exp.module.check_bank(bank)
        c = grid["config"]
        cfg = RunConfig(
            agents=tuple(c["agents"]),
            replicates=int(c["replicates"]),
            params=dict(c["params"]),
            proposer=str(c["proposer"]),
            budget_tokens=c.get("budget_tokens"),
        )
        click.echo(f"{exp.id} {exp.title}: {report_again(exp, bank, cfg, grid_file.parent)}")
    click.echo(f"summary: {write_summary(suite)}")
    return 0


@experiment.command("simulate")
@click.option(
    "--p", "p_text", default=None, help="Per-critic catch probabilities, e.g. 0.3,0.5,0.6."
)
@click.option(
    "--c", "c_text", default=None, help="Per-critic chance to pick the relevant axis (with --d)."
)
@click.option(
    "--d", "d_text", default=None, help="Per-critic chance to turn it into an objection (with --c)."
)
@click.option(
    "--rho",
    type=float,
    default=None,
    help="Pairwise latent correlation (default: calibrated from Kim et al. 2025).",
)
@click.option("--trials", type=int, default=1_000_000, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--sweep", is_flag=True, help="Survival vs number of critics k, across rho.")
@click.option("--k-max", type=click.IntRange(min=1, max=99), default=9, show_default=True)
@click.option("--rhos", default=None, help="--sweep: rho values (default 0,0.3,calibrated,0.9).")
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=None,
    help="--sweep: write sweep.json, sweep.md and sweep.png here.",
)
@click.option("--calibrate", is_flag=True, help="Show how the default rho is calibrated.")
def simulate_cmd(
    p_text: str | None,
    c_text: str | None,
    d_text: str | None,
    rho: float | None,
    trials: int,
    seed: int,
    as_json: bool,
    sweep: bool,
    k_max: int,
    rhos: str | None,
    out: Path | None,
    calibrate: bool,
) -> int:
    """Survival of a flaw past k correlated critics under majority vote and under adversarial
    verification (one upheld objection suffices), by Monte Carlo with standard errors,
    beside the closed forms where they exist."""
    _need_extra()
    from contend.experiments import calibration
    from contend.experiments.simulate import SimulationInputError, simulate

    if calibrate:
        return _calibration(as_json)
    p = _probabilities(p_text, c_text, d_text)
    r = calibration.DEFAULT_RHO if rho is None else rho
    try:
        if sweep:
            return _sweep(p, rhos, k_max, trials, seed, out, as_json)
        result = simulate(p, r, trials, seed=seed)
    except SimulationInputError as exc:
        raise UserError(str(exc)) from None
    result["rho_source"] = "flag" if rho is not None else "calibrated (Kim et al. 2025)"
    if as_json:
        click.echo(json.dumps(result))
        return 0
    click.echo(
        f"k={result['k']} critics, p={result['p']}, rho={r:g} ({result['rho_source']}), "
        f"{trials} trials"
    )
    for rule in ("adversarial", "majority"):
        exact = result.get(f"closed_form_{rule}", result.get(f"quadrature_{rule}"))
        ref = "" if exact is None else f"   exact {exact:.6f} ({result['reference']})"
        click.echo(
            f"  {rule:11} survival {result[f'{rule}_survival']:.6f} "
            f"± {result['stderr'][rule]:.6f}{ref}"
        )
    return 0


def _probabilities(p_text: str | None, c_text: str | None, d_text: str | None) -> list[float]:
    if p_text is not None:
        if c_text is not None or d_text is not None:
            raise UserError("give either --p or --c with --d, not both")
        return _floats(p_text, "p")
    if c_text is None or d_text is None:
        raise UserError("give --p, or --c and --d (p_i = c_i * d_i)")
    c, d = _floats(c_text, "c"), _floats(d_text, "d")
    if len(c) != len(d):
        raise UserError(f"--c has {len(c)} values and --d {len(d)}: one pair per critic")
    for value in (*c, *d):
        if not 0 <= value <= 1:
            raise UserError(f"--c and --d must lie in [0, 1], got {value:g}")
    return [ci * di for ci, di in zip(c, d, strict=True)]


def _sweep(
    p: list[float],
    rhos: str | None,
    k_max: int,
    trials: int,
    seed: int,
    out: Path | None,
    as_json: bool,
) -> int:
    from contend.experiments.calibration import DEFAULT_RHO
    from contend.experiments.simulate import sweep
    from contend.experiments.sweep_report import write_sweep

    if len(set(p)) != 1:
        raise UserError("--sweep takes one p (every critic alike), e.g. --p 0.5")
    rho_list = _floats(rhos, "rhos") if rhos else [0.0, 0.3, DEFAULT_RHO, 0.9]
    rows = sweep(p[0], rho_list, k_max, trials, seed=seed)
    if out is not None:
        write_sweep(out, p[0], rows)
    if as_json:
        click.echo(json.dumps({"schema": "contend.sweep/v1", "p": p[0], "rows": rows}))
        return 0
    for row in rows:
        click.echo(
            f"rho={row['rho']:<5g} k={row['k']:<2} adversarial {row['adversarial_survival']:.4f}"
            f"  majority {row['majority_survival']:.4f}"
        )
    if out is not None:
        click.echo(f"curves: {out / 'sweep.png'}")
    return 0


def _calibration(as_json: bool) -> int:
    from contend.experiments import calibration as cal

    fitted = cal.calibrate()
    table = {f"{r:.2f}": cal.agreement(r) for r in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)}
    data = {
        "source": "Kim et al., Correlated Errors in Large Language Models, ICML 2025",
        "target_same_wrong_answer": cal.KIM_2025_SAME_WRONG_ANSWER,
        "wrong_options": cal.KIM_2025_WRONG_OPTIONS,
        "rho": fitted,
        "default_rho": cal.DEFAULT_RHO,
        "agreement_by_rho": table,
    }
    if as_json:
        click.echo(json.dumps(data))
        return 0
    click.echo(
        f"target: two models both wrong pick the same wrong answer "
        f"{cal.KIM_2025_SAME_WRONG_ANSWER:.0%} of the time ({cal.KIM_2025_WRONG_OPTIONS} "
        f"wrong options; chance {1 / cal.KIM_2025_WRONG_OPTIONS:.0%})"
    )
    for r, a in table.items():
        click.echo(f"  rho {r}: same wrong answer {a:.3f}")
    click.echo(f"calibrated rho = {fitted:.4f} (default {cal.DEFAULT_RHO})")
    return 0
