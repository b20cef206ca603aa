"""The I/O edge of claim rounds: the round planner (claims/rounds.py) on the one driver
(review/driver.Drive), which performs what it requests and plans again from the fold of its
events (claims/fold.py), until the planner asks for nothing more or for a person.

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
from contend.claims.fold import ClaimRecording
from contend.claims.load import LoadedCard, LoadResult
from contend.claims.prompts import (
    META_JUDGE_SYSTEM,
    PROPONENT_SYSTEM,
    axis_prompt,
    axis_system,
    render_context,
)
from contend.claims.replay import RecordedReplies
from contend.claims.report import (
    ClaimResult,
    ClaimsReport,
    build_report,
)
from contend.claims.round_state import (
    AgentOutput,
    Reply,
    Request,
    Setup,
    State,
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
from contend.review.driver import PAUSE, Drive, Paused


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


async def perform(request: Request, claim_id: str, panel: Panel) -> TurnsReply | AgentOutput:
    """One planner request, performed: the fan-out of a round's turns (every seat at once,
    with the one context and the one prompt body; a `checks` axis is held by contend's
    deterministic checker, whose speaker reads the context and calls no agent), or the
    proponent's or the meta-judge's call."""
    cid = claim_id
    if request.kind == "turns":
        axes = list(request.axes)
        calls: list[Awaitable[AgentOutput]] = [
            panel.seats[axis].speak(
                _request(
                    "critic",
                    f"{cid}:{axis}",
                    request.round,
                    axis_system(axis),
                    axis_prompt(axis, request.context),
                    TURN_SCHEMA,
                    panel,
                    web=axis in request.web_access,
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
        return await panel.proponent.speak(
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
    return await panel.meta_judge.speak(
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
    state: State,
    panel: Panel,
    sink: Sink = _discard,
    *,
    recorded: Sequence[events.Event] = (),
) -> tuple[State, list[events.Event]]:
    """Drive one claim's planner on the one driver (review/driver.Drive) until it ends, or
    pauses for a person; each step's events are folded (claims/fold.py: the planner plans
    from that fold) and go to `sink` as they come. Returns the fold and the new events.

    With `recorded` (the claim's events in the ledger of an interrupted run) the drive
    starts over from `state` and replays: each request the ledger holds a reply to is
    answered from it (replay.RecordedReplies: no agent is asked twice), the events the
    ledger holds already are folded but not written again, and the rest runs live. The
    ledger must hold a prefix of what the replay produces, else the card or evidence
    changed since the run (UserError)."""
    replies = RecordedReplies.of(recorded)
    done = [e for e in recorded if e[0] in PLANNER_KINDS]
    log: list[events.Event] = []
    rec = _Replaying(ClaimRecording(state, sink, log), done)
    cid = state.setup.claim_id

    async def act(request: Request) -> Reply | Paused:
        got = replies.reply_for(request)
        if got is not None:
            return got
        rec.caught_up()  # from here on, live: the ledger must hold no more of the claim
        if request.person:
            return PAUSE  # a person answers between invocations: `contend respond`
        return await perform(request, cid, panel)

    try:
        paused = await Drive[State, events.Event, Request, Reply](plan, rec).run(act)
    except ProtocolError as exc:
        if rec.live:  # not the replay's: a fault of the live rounds
            raise
        raise UserError(
            f"claim {cid}: its card or evidence changed since the run, so its rounds cannot "
            f"go on ({exc}); verify it again in a new run"
        ) from exc
    rec.caught_up()
    if paused is not None and not (log == [] and _awaiting(recorded, paused.round)):
        waiting = events.awaiting_proponent(
            claim_id=cid,
            round=paused.round,
            open_attacks=paused.context.get("this_round", []),
            context_sha256=paused.context_sha256,
        )
        rec.inner.record([waiting])
    return rec.state, log


def _awaiting(recorded: Sequence[events.Event], round_number: int) -> bool:
    """Whether the ledger already says the claim waits for the person in that round."""
    return any(
        kind == "claim_awaiting_proponent" and data.get("round") == round_number
        for kind, data in recorded
    )


def _event_key(event: events.Event) -> tuple[Any, ...]:
    kind, data = event
    return (kind, data.get("round"), data.get("axis"), data.get("context_sha256"))


class _Replaying:
    """A claim's recording while its ledger is replayed: the events the ledger holds
    already (`done`) are folded but not written again; what comes after them is."""

    def __init__(self, inner: ClaimRecording, done: Sequence[events.Event]) -> None:
        self.inner = inner
        self._done = list(done)
        self._seen: list[events.Event] = []
        self.live = False

    @property
    def state(self) -> State:
        return self.inner.state

    def record(self, new: Sequence[events.Event], /) -> None:
        cut = min(len(new), max(len(self._done) - len(self._seen), 0))
        if cut:
            self._seen.extend(new[:cut])
            self.inner.fold_only(new[:cut])
        self.inner.record(new[cut:])

    def caught_up(self) -> None:
        """Refuse to go on live unless the replay reproduced what the ledger holds."""
        self.live = True
        if len(self._seen) < len(self._done) or any(
            _event_key(a) != _event_key(b) for a, b in zip(self._done, self._seen, strict=False)
        ):
            cid = self.inner.state.setup.claim_id
            raise UserError(
                f"claim {cid}: the ledger's rounds do not match a replay of its card and "
                "recorded replies (its card or evidence changed since the run, or a round was "
                "cut off mid-write); verify it again in a new run"
            )


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
        person_proponent=isinstance(panel.proponent, PersonProponent),
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
    goes on where it stopped: each claim's recorded rounds are replayed on the driver
    (`run_rounds`: no agent is asked again for a recorded reply, a person's answer to a
    pause included), only the events the ledger does not hold yet are written, and the
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
        state, _ = await run_rounds(first, panel, emit, recorded=old)
        result = rounds_result(card, prepared, assignment.reasons, regions, panel, state)
        results.append(result)
        if len(log) > before or _verdict_due(old):
            emit([events.verdict(cid, result.verdict, result.reasons)])
    report = build_report(results, [card_error_log(e) for e in loaded.errors])
    if recorded is None:  # a resumed run's verdict is the caller's, over all of its claims
        emit([events.run_finished(report.verdict, report.exit_code)])
    return report, log
