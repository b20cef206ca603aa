"""`contend stats`: whether the critics earn their keep, from the index of the ledgers."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

import click

from contend.errors import UserError
from contend.ledger.stats import BY_CHOICES, By

_DAYS = re.compile(r"(\d{1,5})d")


def parse_since(text: str, now: datetime | None = None) -> str:
    """`--since`: a date (2026-01-31), a UTC date and time (2026-01-31T12:00), or a number
    of days back (30d) → the UTC timestamp the index's `started` is compared with."""
    days = _DAYS.fullmatch(text.strip())
    if days:
        moment = (now or datetime.now(UTC)) - timedelta(days=int(days.group(1)))
    else:
        try:
            moment = datetime.fromisoformat(text.strip())
        except ValueError:
            raise UserError(
                f"--since {text!r}: give a date (2026-01-31), a UTC time (2026-01-31T12:00) "
                "or days back (30d)"
            ) from None
        moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}%"


def _num(value: float | None, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


_HEAD = (
    f"{'':24} {'runs':>4} {'raised':>6} {'found':>7} {'survive':>7} {'rounds':>6} "
    f"{'decided':>7} {'f.alarm':>7} {'escapes':>7} {'$/review':>9} {'s/review':>8}"
)


def _line(name: str, f: dict[str, Any]) -> str:
    shown = name if len(name) <= 24 else name[:23] + "…"
    return (
        f"{shown:24} {f['runs']:>4} {f['raised']:>6} {_pct(f['found_rate']):>7} "
        f"{_pct(f['survival_rate']):>7} {_num(f['rounds_to_resolution_mean'], '.2f'):>6} "
        f"{f['decided']:>7} {_pct(f['false_alarm_rate']):>7} {f['escapes']:>7} "
        f"{_num(f['cost_per_review'], '.4f'):>9} {_num(f['time_per_review_s'], '.1f'):>8}"
    )


def render_text(data: dict[str, Any]) -> str:
    from contend.report.escape import visible

    lines = [_HEAD, _line("all reviews", data["totals"])]
    for by, groups in data["by"].items():
        lines += ["", f"by {by}:"]
        lines += [visible(_line(name, f), single_line=True) for name, f in groups.items()]
        if not groups:
            lines.append("  (none)")
    if data["escapes"]:
        lines += ["", "escapes:"]
        for e in data["escapes"]:
            where = f" {e['path']}" + (f":{e['line']}" if e["line"] else "") if e["path"] else ""
            topic = f" [{e['topic']}]" if e["topic"] else ""
            lines.append(
                visible(f"  {e['run']}{where}{topic} {e['note']} ({e['person']})", single_line=True)
            )
    lines += [
        "",
        "found: fixed or conceded by the author ÷ raised; survive: reached a person ÷ raised;",
        "rounds: mean closed rounds open before resolution; f.alarm: overruled ÷ decided by people",
    ]
    return "\n".join(lines) + "\n"


def write_chart(data: dict[str, Any], groups: dict[str, dict[str, Any]], path: Path) -> None:
    """Grouped bars per critic: found rate, survival rate and false-alarm rate."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise UserError(
            f"--chart needs matplotlib: pip install 'contend[experiment]' ({exc})"
        ) from exc
    names = list(groups)
    series = (
        ("found (fixed or conceded)", "found_rate"),
        ("survived to a person", "survival_rate"),
        ("false alarm (overruled ÷ decided)", "false_alarm_rate"),
    )
    fig, ax = plt.subplots(figsize=(max(6.0, 1.2 * len(names) + 2), 4.0))
    width = 0.8 / len(series)
    for i, (label, key) in enumerate(series):
        values = [(groups[n][key] or 0.0) * 100 for n in names]
        xs = [j + (i - 1) * width for j in range(len(names))]
        ax.bar(xs, values, width, label=label)
    ax.set_xticks(range(len(names)), names, rotation=20, ha="right")
    ax.set_ylabel("% of attacks (false alarm: % of decided)")
    ax.set_ylim(0, 100)
    total = data["totals"]
    ax.set_title(f"contend stats per critic — {total['runs']} reviews, {total['raised']} attacks")
    ax.legend(fontsize="small")
    fig.tight_layout()
    try:
        fig.savefig(path, format="png", dpi=100)
    except OSError as exc:
        raise UserError(f"--chart {path}: {exc.strerror or exc}") from exc
    finally:
        plt.close(fig)


@click.command("stats")
@click.option(
    "-C", "path", type=click.Path(path_type=Path), default=".", help="Repository (default: here)."
)
@click.option("--since", default=None, help="Only reviews started since: 2026-01-31, or 30d.")
@click.option(
    "--by",
    "by",
    type=click.Choice((*BY_CHOICES, "topology")),
    default=None,
    help="One grouping (default: by topic and by model family); topology: the `contend run` "
    "slices, seed 001's comparison.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON (schema contend.stats/v1).")
@click.option(
    "--chart",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Also write a PNG bar chart of the per-critic figures (needs matplotlib).",
)
def stats(
    path: Path,
    since: str | None,
    by: By | Literal["topology"] | None,
    as_json: bool,
    chart: Path | None,
) -> int:
    """Whether the critics earn their keep: per topic, model family, critic or branch.

    Found rate (fixed or conceded by the author ÷ raised), survival rate (reached a person
    ÷ raised), rounds to resolution, cost and time per review, false-alarm rate as decided
    by people (overruled ÷ decided) and escapes (`contend escape`). From the index, which
    is refreshed from the ledgers first; tampered runs are named and not counted.
    """
    from contend.config import load_settings
    from contend.gitio.git import repo_root
    from contend.ledger.index import refresh, stats_rows
    from contend.ledger.stats import compute
    from contend.review.state_dir import open_state_dir

    cutoff = parse_since(since) if since is not None else ""
    root = repo_root(path)
    settings = load_settings(root)
    state_dir = open_state_dir(root, settings)
    if by == "topology":
        return _slice_stats(state_dir, cutoff, as_json, chart)
    refreshed = refresh(state_dir, min_families=settings.min_families)
    rows = stats_rows(state_dir, cutoff)
    data = compute(rows, (by,) if by is not None else ("topic", "family"))
    data["since"] = cutoff or None
    data["not_counted"] = refreshed.problems
    if chart is not None:
        per_critic = data["by"].get("critic") or compute(rows, ("critic",))["by"]["critic"]
        write_chart(data, per_critic, chart)
    if as_json:
        click.echo(json.dumps(data, indent=2))
    else:
        click.echo(render_text(data), nl=False)
        if chart is not None:
            click.echo(f"chart: {chart}")
    for problem in refreshed.problems:
        click.echo(f"contend: not intact, not counted: {problem}", err=True)
    return 0


def _slice_stats(state_dir: Path, cutoff: str, as_json: bool, chart: Path | None) -> int:
    """`--by topology`: the `contend run` slices of the same index (contend.harness.metrics)."""
    from contend.harness.metrics import render_topologies, topology_stats

    if chart is not None:
        raise UserError("--chart draws the per-critic figures; it does not go with --by topology")
    table = topology_stats(state_dir, cutoff or None)
    if as_json:
        data = {"schema": "contend.slice-stats/v1", "since": cutoff or None, "topologies": table}
        click.echo(json.dumps(data, indent=2))
    else:
        click.echo(render_topologies(table), nl=False)
    return 0
