"""PNG figures of the experiments and the simulator (matplotlib, Agg backend: no display).

Draws `framework.Figure` data; computes nothing.
"""

from __future__ import annotations

from pathlib import Path

from contend.experiments.framework import Figure


def draw(figure: Figure, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=110)
    try:
        if figure.kind == "stacked":
            _stacked(ax, figure)
        else:
            for s in figure.series:
                # a style with its own marker ("o-") must not get a second one
                fmt = s.style if "o" in s.style else s.style + "o"
                ax.plot(s.x, s.y, fmt, label=s.label, markersize=3)
            if figure.kind == "roc":
                ax.plot([0, 1], [0, 1], ":", color="grey", label="chance")
                ax.set_xlim(0, 1)
                ax.set_ylim(0, 1.02)
        ax.set_title(figure.title, fontsize=10)
        ax.set_xlabel(figure.xlabel)
        ax.set_ylabel(figure.ylabel)
        ax.grid(alpha=0.3)
        if figure.series:
            ax.legend(fontsize=7)
        fig.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path)
    finally:
        plt.close(fig)
    return path


def _stacked(ax: object, figure: Figure) -> None:
    """One group of stacked bars per variant, side by side at each category."""
    variants = sorted({s.label.split(": ")[0] for s in figure.series})
    width = 0.8 / max(len(variants), 1)
    positions = list(range(len(figure.categories)))
    for vi, variant in enumerate(variants):
        bottom = [0.0] * len(positions)
        for s in (s for s in figure.series if s.label.startswith(variant + ": ")):
            xs = [p + vi * width for p in positions]
            ax.bar(xs, s.y, width, bottom=bottom, label=s.label)  # type: ignore[attr-defined]
            bottom = [b + y for b, y in zip(bottom, s.y, strict=True)]
    ax.set_xticks([p + width * (len(variants) - 1) / 2 for p in positions])  # type: ignore[attr-defined]
    ax.set_xticklabels(figure.categories)  # type: ignore[attr-defined]
