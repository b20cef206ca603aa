"""One review for the integrations (Python API, MCP server, agent stop hook).

Settings are resolved exactly as `contend review` resolves them — flags over environment
over the project config read at the review's base (DESIGN §9) over the user config — and
the engine is called through its public entry point with a `ReviewRequest`. Nothing here
decides anything about the review itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from contend.config import Settings
    from contend.protocol.state import RunState
    from contend.review.engine import ReviewResult

Listener = Callable[[dict[str, Any], "RunState"], None]


@dataclass(frozen=True)
class ReviewArgs:
    """What a caller may choose about one review; None / empty means "as configured"."""

    path: Path = Path(".")
    base: str | None = None
    head: str | None = None
    staged: bool = False
    commit_range: str | None = None
    spec: str | None = None
    spec_text: str | None = None  # the spec itself, for callers without a file
    transcript: Path | None = None
    critics: Sequence[str] = ()
    proposer: str | None = None
    oracle: str | None = None
    gates: Sequence[str] = ()
    max_rounds: int | None = None
    parallelism: int | None = None
    min_families: int | None = None
    trivial_diff_lines: int | None = None
    format: str | None = None  # the report format printed; None: as configured
    new: bool = False
    resume: bool = False
    out: Path | None = None
    force: bool = False
    wait_s: float = 0.0
    command: str = "contend review"


def flags_of(args: ReviewArgs) -> dict[str, object]:
    """The settings layer these arguments form (None: not given)."""
    return {
        "critics": list(args.critics) or None,
        "proposer": args.proposer,
        "oracle": args.oracle,
        "gates": list(args.gates) or None,
        "max_rounds": args.max_rounds,
        "parallelism": args.parallelism,
        "min_families": args.min_families,
        "trivial_diff_lines": args.trivial_diff_lines,
        "format": args.format,
        "base": args.base,
    }


def load_review_settings(args: ReviewArgs) -> Settings:
    """The effective settings of this review, the project config read at its base."""
    from contend.config import load_settings
    from contend.gitio.git import repo_root
    from contend.review.target import resolve_target

    root = repo_root(args.path)

    def base_of(configured: str | None, exclude: Sequence[str]) -> str | None:
        return resolve_target(
            args.path,
            base=None if args.commit_range is not None else configured,
            head=args.head,
            staged=args.staged,
            commit_range=args.commit_range,
            exclude=exclude,
        ).base

    return load_settings(root, flags=flags_of(args), base_of=base_of)


def run_review(
    args: ReviewArgs,
    *,
    listener: Listener | None = None,
    on_note: Callable[[str], None] | None = None,
    stdin: TextIO | None = None,
) -> tuple[ReviewResult, Settings]:
    """Run the review; returns the engine's result (run id, directory, outcome, texts)."""
    import io

    from contend.review.engine import ReviewRequest, review

    settings = load_review_settings(args)
    spec = args.spec
    if args.spec_text is not None:
        if spec is not None:
            from contend.errors import UserError

            raise UserError("give the spec as a file or as text, not both")
        spec, stdin = "-", io.StringIO(args.spec_text)
    request = ReviewRequest(
        path=args.path,
        base=None if args.commit_range is not None else settings.base,
        head=args.head,
        staged=args.staged,
        commit_range=args.commit_range,
        spec=spec,
        transcript=args.transcript,
        new=args.new,
        resume=args.resume,
        out=args.out,
        force=args.force,
        wait_s=args.wait_s,
        stdin=stdin if spec == "-" else None,
        command=args.command,
        on_note=on_note,
    )
    return review(request, settings, listener=listener), settings
