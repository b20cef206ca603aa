"""The I/O edge of claim rounds: performs what the planner (claims/rounds.py) requests and
feeds the replies back, until the planner asks for nothing more.

    verify_with_agents(loaded, panel_for, read) -> (ClaimsReport, events)

Per card, Step 0 and Step 1 run as without agents (claims/run.py). An admitted card of
level 2 or 3 gets one agent per assigned axis (`panel_for`, refused in code if two share an
axis: axes.seat_agents) and the rounds run: every seated agent is called concurrently with
the same round context; a backend failure or unusable output becomes the planner's input
as such (a protocol error there), never a default turn. The internal-fact axis defaults to
contend's deterministic checker, which speaks in the same turn schema: it raises each
finding once, withdraws one that the narrowed claim no longer carries, and otherwise
declares no attack point. Who speaks is claims/speakers.py; the report's view of a claim
decided in rounds is claims/rounds_result.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from contend.agents.base import AgentRequest
from contend.claims import events
from contend.claims.axes import DEFAULT_POLICY, AxisPolicy, seat_agents
from contend.claims.deadlock import DeadlockReport
from contend.claims.events import PLANNER_KINDS
from contend.claims.evidence import read_evidence
from contend.claims.load import LoadedCard, LoadResult
from contend.claims.prompts import (
    META_JUDGE_SYSTEM,
    PROPONENT_SYSTEM,
    axis_prompt,
    axis_system,
    render_context,
)
from contend.claims.replay import replay_events
from contend.claims.report import (
    ClaimResult,
    ClaimsReport,
    build_report,
)
from contend.claims.round_state import (
    AgentOutput,
    Request,
    Setup,
    State,
    Step,
    TurnsReply,
    start,
)
from contend.claims.rounds import plan
from contend.claims.rounds_result import rounds_result
from contend.claims.run import (
    Reader,
    _locator,
    card_error_log,
    prepare_card,
    web_unchecked,
)
from contend.claims.speakers import (
    Panel,
    PanelFor,
    PersonProponent,
    Speaker,
)
from contend.claims.turns import PROPONENT_SCHEMA, TURN_SCHEMA
from contend.errors import ProtocolError, UserError


def _request(
    role: str,
    thread: str,
    rnd: int,
    system: str,
    prompt: str,
    schema: dict[str, Any],
    panel: Panel,
    *,
    web: bool = False,
) -> AgentRequest:
    return AgentRequest(
        role=role,  # type: ignore[arg-type]
        thread=thread,
        round=rnd,
        system=system,
        prompt=prompt,
        schema=schema,
        worktree=panel.worktree,
        timeout_s=panel.timeout_s,
        web_access=web,
    )


async def _ask(speaker: Speaker, request: AgentRequest, context: Mapping[str, Any]) -> AgentOutput:
    return await speaker.speak(request, context)


async def perform(request: Request, state: State, panel: Panel) -> TurnsReply | AgentOutput:
    """One planner request, performed."""
    cid = state.setup.claim_id
    if request.kind == "turns":
        axes = list(request.axes)
        calls: list[Awaitable[AgentOutput]] = [
            _ask(
                panel.seats[axis],
                _request(
                    "critic",
                    f"{cid}:{axis}",
                    request.round,
                    axis_system(axis),
                    axis_prompt(axis, request.context),
                    TURN_SCHEMA,
                    panel,
                    web=axis in panel.web_access,
                ),
                request.context,
            )
            for axis in axes
        ]
        outputs = await asyncio.gather(*calls)
        return TurnsReply(
            request.round, request.context_sha256, dict(zip(axes, outputs, strict=True))
        )
    if request.kind == "proponent":
        assert panel.proponent is not None
        return await _ask(
            panel.proponent,
            _request(
                "proposer",
                f"{cid}:proponent",
                request.round,
                PROPONENT_SYSTEM,
                render_context(request.context),
                PROPONENT_SCHEMA,
                panel,
            ),
            request.context,
        )
    assert panel.meta_judge is not None
    return await _ask(
        panel.meta_judge,
        _request(
            "oracle",
            f"{cid}:meta-judge",
            1,  # the meta-judge is called once per claim: its first turn
            META_JUDGE_SYSTEM,
            render_context(request.context),
            meta_judge_schema(),
            panel,
        ),
        request.context,
    )


def meta_judge_schema() -> dict[str, Any]:
    schema = DeadlockReport.model_json_schema()
    props = dict(schema["properties"])
    props.pop("written_by", None)
    schema["properties"] = props
    schema["required"] = [r for r in schema.get("required", list(props)) if r != "written_by"]
    return schema


Sink = Callable[[Sequence[events.Event]], None]


def _discard(_: Sequence[events.Event]) -> None:
    """The default sink: the caller takes the events from the return value."""


async def run_rounds(
    state: State, panel: Panel, sink: Sink = _discard, *, step: Step | None = None
) -> tuple[State, list[events.Event]]:
    """Drive one claim's planner until it ends, or pauses for a person; each step's events
    go to `sink` as they come. `step` continues a replayed claim (replay.replay)."""
    log: list[events.Event] = []
    step = plan(state, None) if step is None else step
    while True:
        log.extend(step.events)
        sink(step.events)
        if step.request is None:
            return step.state, log
        if step.request.kind == "proponent" and isinstance(panel.proponent, PersonProponent):
            paused: list[events.Event] = [
                events.awaiting_proponent(
                    claim_id=step.state.setup.claim_id,
                    round=step.request.round,
                    open_attacks=step.request.context.get("this_round", []),
                    context_sha256=step.request.context_sha256,
                )
            ]
            log.extend(paused)
            sink(paused)
            return step.state, log
        reply = await perform(step.request, step.state, panel)
        step = plan(step.state, reply)


# --- a whole run ---------------------------------------------------------------------------


def setup_for(
    loaded: LoadedCard, seats: Mapping[str, Speaker], panel: Panel, kept: Sequence[str]
) -> Setup:
    card = loaded.card
    locators = {
        eid: _locator(item)
        for eid, item in zip(card.evidence_ids(), card.evidence_list, strict=True)
        if eid in kept
    }
    return Setup(
        claim_id=card.claim_id,
        claim_text=card.claim_text,
        card=card.model_dump(mode="json", by_alias=True, exclude_none=True),
        evidence=locators,
        seats={axis: speaker.name for axis, speaker in seats.items()},
        consensus=card.consensus_rule,
        weights=card.consensus_weights,
        proponent=panel.proponent.name if panel.proponent is not None else None,
        meta_judge=panel.meta_judge.name if panel.meta_judge is not None else None,
        web_access=panel.web_access,
        web_asked=panel.web_asked,
        external_tool=any(d.strip().lower() == "external-tool" for d in card.domain_axes),
        **({"cap": panel.cap} if panel.cap is not None else {}),
    )


def _by_claim(recorded: Sequence[events.Event]) -> dict[str, list[events.Event]]:
    out: dict[str, list[events.Event]] = {}
    for kind, data in recorded:
        cid = data.get("claim_id")
        if isinstance(cid, str):
            out.setdefault(cid, []).append((kind, data))
    return out


def _verdict_due(old: Sequence[events.Event]) -> bool:
    """Whether the ledger lacks the claim's verdict for what it recorded last: none yet, or
    round events after its last verdict (a run cut off before it)."""
    for kind, _ in reversed(old):
        if kind == "claim_verdict":
            return False
        if kind in PLANNER_KINDS or kind == "claim_awaiting_proponent":
            return True
    return True


async def verify_with_agents(
    loaded: LoadResult,
    panel_for: PanelFor,
    *,
    read: Reader = read_evidence,
    sink: Sink = _discard,
    recorded: Sequence[events.Event] | None = None,
    axes: AxisPolicy = DEFAULT_POLICY,
) -> tuple[ClaimsReport, list[events.Event]]:
    """The claims run with agents: Steps 0–1 per card, then the rounds for admitted cards of
    level 2 and 3. `panel_for` seats the agents of one card (given its assigned axes).
    Every event goes to `sink` as soon as it exists (the ledger, so an interrupted run keeps
    what happened), and all of them are returned too.

    With `recorded` (the events of the run's ledger, `contend verify --resume`), the run
    goes on where it stopped: each claim's recorded rounds are replayed through the planner
    (replay.replay_events: no agent is asked again for a recorded reply, a person's answer
    to a pause included), only the events the ledger does not hold yet are written, and the
    claim continues live from there. A finished claim is rebuilt from its record alone. The
    run's closing event is then the caller's, over all of its claims."""
    log: list[events.Event] = []

    def emit(new: Sequence[events.Event]) -> None:
        log.extend(new)
        sink(new)

    history = _by_claim(recorded or [])
    if recorded is None or len(recorded) <= 1:  # nothing beyond `claims_run_started`
        emit([events.card_error(e) for e in loaded.errors])
    results: list[ClaimResult] = []
    for card in loaded.cards:
        cid = card.card.claim_id
        old = history.get(cid, [])
        kinds = {kind for kind, _ in old}
        before = len(log)
        prepared = prepare_card(card, read, axes)
        if "claim_loaded" not in kinds:
            emit(prepared.log)
        if prepared.result is not None:
            results.append(prepared.result)
            continue
        assignment = axes.assign(card.card.verification_complexity, card.card.domain_axes)
        regions = [prepared.regions[e] for e in prepared.kept if e in prepared.regions]
        panel = panel_for(card, assignment.axes, regions, web_unchecked(card.card, prepared.kept))
        seat_agents(assignment.axes, [(a, s.name) for a, s in panel.seats.items()])  # type: ignore[misc]
        setup = setup_for(card, panel.seats, panel, prepared.kept)
        first = start(setup, card.card.assumptions or [])
        if "claim_axes" not in kinds:
            emit([events.axes(cid, assignment, list(panel.seats), panel.web_access)])
        step = _resumed(first, old) if old else None
        if step is not None and _still_paused(step, panel, old):
            state = step.state  # waits for the person still: nothing new to write
        else:
            state, _ = await run_rounds(first, panel, emit, step=step)
        result = rounds_result(card, prepared, assignment.reasons, regions, panel, state)
        results.append(result)
        if len(log) > before or _verdict_due(old):
            emit([events.verdict(cid, result.verdict, result.reasons)])
    report = build_report(results, [card_error_log(e) for e in loaded.errors])
    if recorded is None:  # a resumed run's verdict is the caller's, over all of its claims
        emit([events.run_finished(report.verdict, report.exit_code)])
    return report, log


def _still_paused(step: Step, panel: Panel, old: Sequence[events.Event]) -> bool:
    request = step.request
    return (
        request is not None
        and request.kind == "proponent"
        and isinstance(panel.proponent, PersonProponent)
        and not step.events
        and any(
            kind == "claim_awaiting_proponent" and data.get("round") == request.round
            for kind, data in old
        )
    )


def _event_key(event: events.Event) -> tuple[Any, ...]:
    kind, data = event
    return (kind, data.get("round"), data.get("axis"), data.get("context_sha256"))


def _resumed(first: State, old: Sequence[events.Event]) -> Step:
    """The step a recorded claim had reached, carrying only the events its ledger does not
    hold yet (the ledger holds a prefix of what the replay produces)."""
    cid = first.setup.claim_id
    try:
        step, produced = replay_events(first, old)
    except ProtocolError as exc:
        raise UserError(
            f"claim {cid}: its card or evidence changed since the run, so its rounds cannot "
            f"go on ({exc}); verify it again in a new run"
        ) from exc
    done = [e for e in old if e[0] in PLANNER_KINDS]
    if len(done) > len(produced) or any(
        _event_key(a) != _event_key(b) for a, b in zip(done, produced, strict=False)
    ):
        raise UserError(
            f"claim {cid}: the ledger's rounds do not match a replay of its card and recorded "
            "replies (its card or evidence changed since the run, or a round was cut off "
            "mid-write); verify it again in a new run"
        )
    return Step(step.state, produced[len(done) :], step.request)
