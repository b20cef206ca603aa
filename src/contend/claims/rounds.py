"""Steps 2–4.5 of seeds/002 as one pure planner (DESIGN §10):

    plan(state, reply) -> Step(state, events, request)

The state of one admitted claim and the parsed reply to the last request go in; the events
to append, the next state and the next request (or None: the claim is decided) come out.
No agent, file, clock or network here: the driver (claims/driver.py) performs each request
and feeds the reply back. The data it plans over is claims/round_state.py; the replay of a
recorded claim is claims/replay.py.

    turns       every seated axis agent speaks once against the same round context
                (one context per round, hashed into the ledger); silence or an
                unparseable turn is a protocol error (`claim_protocol_error`)
    proponent   when open attacks remain and a proponent is seated: its reply goes through
                the checkpoint (claims/checkpoint.py); deleted SSOT evidence or a changed
                schema escalates
    converge    convergence.converge on the rounds so far: accept / reject / escalate end
                the claim; partial runs another round; a repeated attack that carries a
                narrower claim narrows the surviving claim (the old one is retracted)
    meta-judge  at judge-deadlock (the 50-round cap included) the meta-judge writes the
                deadlock report; with it the verdict is `escalate-human`. It has no decision
                authority: a reply that decides, or no usable report, is a protocol error,
                and contend's mechanical report stands in with the verdict `escalate`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from contend.claims import events as ev
from contend.claims.checkpoint import checkpoint
from contend.claims.convergence import (
    Attack,
    Round,
    Turn,
    Verdict,
    check_concession,
    converge,
    on_repeat,
    open_attacks,
    positions,
    repeated_attacks,
    verdict_of,
)
from contend.claims.deadlock import mechanical_report, parse_deadlock_report
from contend.claims.events import Event
from contend.claims.round_state import (
    INTERNAL_FACT,
    AgentOutput,
    Reply,
    Request,
    State,
    Step,
    TurnsReply,
    attack_json,
    context_hash,
    reply_record,
    round_context,
)
from contend.claims.turns import ParsedTurn, parse_turn
from contend.errors import ProtocolError

# The reasons claims/checkpoint.py gives for switching a claim to `escalate`, as they begin.
_ESCALATION_REASONS = ("evidence deleted from the SSOT", "the schema/SSOT context changed")

# --- the planner ---------------------------------------------------------------------------


def plan(state: State, reply: Reply | None) -> Step:
    if state.phase == "done":
        return Step(state)
    if state.phase == "turns":
        if reply is None:
            return _ask_turns(state)
        if not isinstance(reply, TurnsReply):
            raise ProtocolError("the round planner expected the agents' turns")
        return _on_turns(state, reply)
    if not isinstance(reply, AgentOutput):
        raise ProtocolError(f"the round planner expected the {state.phase}'s reply")
    if state.phase == "proponent":
        return _on_proponent(state, reply)
    return _on_meta_judge(state, reply)


def _ask_turns(state: State) -> Step:
    number = len(state.rounds) + 1
    context = round_context(state)
    seats = state.setup.seats
    request = Request(
        "turns",
        number,
        context,
        tuple(seats),
        web_access=state.setup.web_access & frozenset(seats),
        checks=tuple(axis for axis, spec in seats.items() if spec == INTERNAL_FACT),
    )
    event: Event = ev.round_started(
        claim_id=state.setup.claim_id,
        round=number,
        context_sha256=request.context_sha256,
        surviving_claim=state.surviving,
        axes=list(state.setup.seats),
    )
    return Step(state, [event], request)


def _attacks_so_far(state: State, axis: str) -> int:
    return sum(
        len(t.attacks) + len(t.meta_attacks)
        for r in state.rounds
        for t in r.turns
        if t.axis == axis
    )


def _on_turns(state: State, reply: TurnsReply) -> Step:
    number = len(state.rounds) + 1
    cid = state.setup.claim_id
    if reply.round != number or reply.context_sha256 != context_hash(round_context(state)):
        raise ProtocolError(
            f"claim {cid}: the turns answer another round or context than round {number}'s"
        )
    seated = tuple(state.setup.seats)
    parsed: dict[str, ParsedTurn] = {}
    for axis in seated:
        got = reply.by_axis.get(axis)
        if got is None or got.silent:
            silence = "no reply" if got is None else got.error or "no turn"
            parsed[axis] = ParsedTurn(Turn(axis, "silent"), silence)
            continue
        parsed[axis] = parse_turn(
            axis,
            got.output,
            got.error,
            seated=seated,
            next_number=_attacks_so_far(state, axis) + 1,
        )
    events: list[Event] = []
    errors = list(state.protocol_errors)
    tools = list(state.external_tools)
    sources = list(state.community_sources)
    known = set(state.claim_rounds().evidence_ids)
    for axis, p in parsed.items():
        got = reply.by_axis.get(axis)
        agent = got.agent if got is not None else state.setup.seats[axis]
        events.append(_turn_event(cid, number, agent, p, got))
        if p.error is not None:
            message = f"round {number}: {axis} ({agent}) {p.turn.kind}: {p.error}"
            errors.append(message)
            events.append(
                ev.protocol_error(
                    claim_id=cid,
                    round=number,
                    axis=axis,
                    agent=agent,
                    kind=p.turn.kind,
                    error=p.error,
                )
            )
        own = {e for a in _own_attacks(state, axis, p.turn) for e in a.evidence}
        for c in p.turn.concessions:
            why = check_concession(c, own, known | own)
            if why is not None:
                events.append(
                    ev.concession_refused(
                        claim_id=cid,
                        round=number,
                        axis=axis,
                        text=c.text,
                        attack_id=c.attack_id,
                        reason=why,
                    )
                )
        tools += [t for t in p.external_tools if t not in tools]
        sources += [u for u in p.community_sources if u not in sources]
    turns = tuple(parsed[a].turn for a in seated)
    state = replace(
        state,
        protocol_errors=tuple(errors),
        external_tools=tuple(tools),
        community_sources=tuple(sources),
    )
    probe = state.claim_rounds([*state.rounds, Round(number, turns)])
    if state.setup.proponent is not None and open_attacks(probe):
        request = Request(
            "proponent",
            number,
            {**round_context(state), "this_round": [attack_json(a) for a in open_attacks(probe)]},
            person=state.setup.person_proponent,
        )
        return Step(replace(state, phase="proponent", pending=turns), events, request)
    step = _close_round(state, Round(number, turns))
    return Step(step.state, events + step.events, step.request)


def _own_attacks(state: State, axis: str, turn: Turn) -> list[Attack]:
    earlier = [
        a
        for r in state.rounds
        for t in r.turns
        if t.axis == axis
        for a in (*t.attacks, *t.meta_attacks)
    ]
    return [*earlier, *turn.attacks, *turn.meta_attacks]


def _turn_event(cid: str, number: int, agent: str, p: ParsedTurn, got: AgentOutput | None) -> Event:
    t = p.turn
    return ev.turn(
        claim_id=cid,
        round=number,
        axis=t.axis,
        agent=agent,
        kind=t.kind,
        position=t.position,
        attacks=[attack_json(a) for a in t.attacks],
        meta_attacks=[attack_json(a) for a in t.meta_attacks],
        withdrawn=list(t.withdrawn),
        concessions=[
            {
                "attack_id": c.attack_id,
                "text": c.text,
                "own_evidence": c.own_evidence,
                "defeated_by": c.defeated_by,
            }
            for c in t.concessions
        ],
        external_tools=list(p.external_tools),
        community_sources=list(p.community_sources),
        error=p.error,
        reply=reply_record(got),
    )


def _on_proponent(state: State, reply: AgentOutput) -> Step:
    number = len(state.rounds) + 1
    cid = state.setup.claim_id
    events: list[Event] = []
    if reply.output is None:
        # The seed: "If no response is available, the initial evidence stays fixed."
        events.append(
            ev.proponent(
                claim_id=cid,
                round=number,
                agent=reply.agent,
                answered=False,
                error=reply.error,
                reply=reply_record(reply),
            )
        )
        step = _close_round(replace(state, pending=()), Round(number, state.pending))
        return Step(step.state, events + step.events, step.request)
    turns = state.pending
    probe = state.claim_rounds([*state.rounds, Round(number, turns)])
    check = checkpoint(
        reply.output,
        round_number=number,
        surviving_claim=state.surviving,
        assumptions=state.assumptions,
        card_evidence=tuple(state.setup.evidence),
        open_attack_ids=[a.id for a in open_attacks(probe)],
        schema_context=state.setup.card.get("schema-context"),
    )
    events.append(
        ev.checkpoint(
            claim_id=cid,
            round=number,
            agent=reply.agent,
            reply=reply_record(reply),
            outcome=check.outcome,
            added=[{"id": e, "locator": loc} for e, loc in check.added],
            refused=list(check.refused),
            answers=list(check.reply.answers),
            ignored_answers=list(check.ignored_answers),
            narrowed_claim=check.reply.narrowed_claim,
            new_assumptions=list(check.new_assumptions),
            decision_relevant=check.reply.decision_relevant,
            reasons=list(check.reasons),
        )
    )
    state = replace(
        state,
        pending=(),
        added_evidence=(*state.added_evidence, *check.added),
        assumptions=(*state.assumptions, *check.new_assumptions),
    )
    if check.reply.narrowed_claim:
        state = replace(
            state,
            retracted=(*state.retracted, state.surviving),
            surviving=check.reply.narrowed_claim,
        )
    rnd = Round(number, turns, check.reply)
    if check.outcome == "escalate":
        state = replace(state, rounds=(*state.rounds, rnd))
        # Only the checkpoint's own escalation reasons: a line quoting the proponent's text
        # (an ignored answer id) may contain "SSOT" or "schema" too.
        reasons = tuple(r for r in check.reasons if r.startswith(_ESCALATION_REASONS))
        return _finish(state, "escalate", reasons, events)
    step = _close_round(state, rnd)
    return Step(step.state, events + step.events, step.request)


def _close_round(state: State, rnd: Round) -> Step:
    cid = state.setup.claim_id
    state = replace(state, rounds=(*state.rounds, rnd), phase="turns")
    rounds = state.claim_rounds()
    result = converge(rounds, state.surviving)
    events: list[Event] = [
        ev.convergence(
            claim_id=cid,
            round=rnd.number,
            kind=result.kind,
            reasons=list(result.reasons),
            open_attacks=[a.id for a in result.open_attacks],
            positions=dict(positions(rounds)),
        )
    ]
    state = replace(state, convergence=result)
    if result.kind == "partial":
        for attack in repeated_attacks(rounds):
            decision = on_repeat(attack, state.surviving)
            if decision.kind == "narrow" and decision.narrowed_claim:
                events.append(
                    ev.narrowed(
                        {
                            "claim_id": cid,
                            "round": rnd.number,
                            "attack_id": attack.id,
                            "from": state.surviving,
                            "to": decision.narrowed_claim,
                            "reason": decision.reason,
                        }
                    )
                )
                state = replace(
                    state,
                    retracted=(*state.retracted, state.surviving),
                    surviving=decision.narrowed_claim,
                )
        nxt = _ask_turns(state)
        return Step(nxt.state, events + nxt.events, nxt.request)
    if result.kind == "judge-deadlock":
        state = replace(state, phase="meta-judge")
        if state.setup.meta_judge is None:
            return _mechanical(state, "no meta-judge is configured", events)
        context = {
            **round_context(state),
            "deadlock_reason": list(result.reasons),
            "positions": dict(positions(rounds)),
        }
        return Step(state, events, Request("meta-judge", rnd.number, context))
    return _finish(
        state,
        verdict_of(result.kind, deadlock_reported=False) or "escalate",
        result.reasons,
        events,
    )


def _on_meta_judge(state: State, reply: AgentOutput) -> Step:
    cid = state.setup.claim_id
    data: Mapping[str, Any] | None = reply.output
    if data is None and reply.raw_text:
        # A reply the schema refused may still be a meta-judge trying to decide: name it.
        try:
            loaded = json.loads(reply.raw_text)
        except json.JSONDecodeError:
            loaded = None
        data = loaded if isinstance(loaded, dict) else None
    if data is None:
        why = f"meta-judge {reply.agent}: {reply.error or 'no report'}"
        return _mechanical(state, why, [], reply)
    try:
        report = parse_deadlock_report(data, written_by=reply.agent)
    except ProtocolError as exc:
        return _mechanical(state, str(exc), [], reply)
    events: list[Event] = [
        ev.deadlock_report(
            claim_id=cid,
            report=report.model_dump(mode="json"),
            sentences=report.sentences(),
            agent=reply.agent,
            reply=reply_record(reply),  # so an interrupted run replays it
        )
    ]
    state = replace(state, deadlock=report)
    reasons = (
        *(state.convergence.reasons if state.convergence else ()),
        *report.sentences(),
    )
    return _finish(state, "escalate-human", reasons, events)


def _mechanical(
    state: State, why: str, events: list[Event], reply: AgentOutput | None = None
) -> Step:
    """No usable meta-judge report: contend's own, marked so; the verdict stays `escalate`
    (a person still decides, but no meta-judge did its duty). `reply` is the meta-judge's
    unusable one, recorded with the protocol error so that a replay meets it again."""
    cid = state.setup.claim_id
    result = state.convergence
    open_now = result.open_attacks if result is not None else ()
    report = mechanical_report(
        reason="; ".join(result.reasons) if result is not None else why,
        open_attacks=[(a.id, a.text, a.evidence) for a in open_now],
        support_evidence=list(state.setup.evidence),
    )
    failed = state.setup.meta_judge is not None  # else none was configured: no error of its
    errors: list[Event] = [
        ev.protocol_error(
            claim_id=cid,
            round=len(state.rounds),
            axis="meta-judge",
            agent=state.setup.meta_judge,
            kind="no-deadlock-report",
            error=why,
            reply=reply_record(reply),
        )
    ]
    events = [
        *events,
        *(errors if failed else []),
        ev.deadlock_report(
            claim_id=cid,
            report=report.model_dump(mode="json"),
            sentences=report.sentences(),
        ),
    ]
    state = replace(
        state,
        deadlock=report,
        protocol_errors=(*state.protocol_errors, *([f"meta-judge: {why}"] if failed else [])),
    )
    reasons = (*(result.reasons if result else ()), f"no meta-judge report: {why}")
    return _finish(state, "escalate", reasons, events)


def _finish(state: State, verdict: Verdict, reasons: Sequence[str], events: list[Event]) -> Step:
    echo = state.unverified_echo
    why_echo: list[str] = []
    if echo:
        why_echo.append(f"unverified echo (official docs only): {', '.join(echo)}")
        if state.web_seated:
            why_echo.append("the agents with web access cited no community report")
        elif state.setup.web_asked:
            why_echo.append("web access was asked, but no seated agent's backend can read the web")
    all_reasons = (*reasons, *why_echo)
    state = replace(state, phase="done", verdict=verdict, reasons=tuple(all_reasons))
    events = [
        *events,
        ev.rounds_finished(
            claim_id=state.setup.claim_id,
            verdict=verdict,
            rounds=len(state.rounds),
            reasons=list(all_reasons),
            surviving_claim=state.surviving if verdict != "reject" else None,
            unverified_echo=list(echo),
        ),
    ]
    return Step(state, events, None)
