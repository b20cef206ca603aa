"""The attack state machine: who may take which action from which status, and where it leads.

One table, RULES (DESIGN §10), is the whole of it: the fold checks every transition of a
ledger against it and the recorder checks every event before it is written, so a ledger
in which the author withdraws a critic's objection is refused, never folded. An illegal
transition raises IllegalTransition; the engine never ignores one.

`resolved` flips to True only through RESOLVING_ACTIONS (critic accept or withdraw,
human overrule or waive). Counts, votes or other critics never touch it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from contend.errors import IllegalTransition, ProtocolError
from contend.protocol.model import (
    CRITIC_ACTIONS,
    ENGINE_ACTIONS,
    HUMAN_ACTIONS,
    PROPOSER_ACTIONS,
    RESOLVING_ACTIONS,
    Action,
    Actor,
    Attack,
    Status,
)

# Statuses in which the attack awaits an answer from the author side.
AWAITING_ANSWER = frozenset(
    {Status.OPEN, Status.RE_ATTACKED, Status.UNRESOLVED, Status.UPHELD, Status.DEADLOCKED}
)
# Statuses in which the author has answered and the critic has not yet judged.
AWAITING_JUDGEMENT = frozenset({Status.FIXED, Status.CONCEDED, Status.DEFENDED})
# Statuses in which an unresolved attack stands as it is when its thread ends: a deadlock,
# a concession nobody accepted (conceded-unfixed), or an attack already marked unresolved.
STANDING = frozenset({Status.DEADLOCKED, Status.CONCEDED, Status.UNRESOLVED})


@dataclass(frozen=True, slots=True)
class Rule:
    """Who may take one action, from which status to which, and whether it resolves."""

    actors: frozenset[Actor]
    moves: Mapping[Status, Status]
    resolves: bool
    # A deadlock is between two positions: only an attack defended at some point has one.
    needs_defence: bool = False


def _each(statuses: frozenset[Status], to: Status) -> dict[Status, Status]:
    return dict.fromkeys(statuses, to)


_ROLES: tuple[tuple[Actor, frozenset[Action]], ...] = (
    (Actor.PROPOSER, PROPOSER_ACTIONS),
    (Actor.CRITIC, CRITIC_ACTIONS),
    (Actor.ENGINE, ENGINE_ACTIONS),
    (Actor.HUMAN, HUMAN_ACTIONS),
)
# Besides the critic, the engine withdraws: when the reviewed diff is empty (the author
# withdrew the change), every open dispute is about code that is no longer part of it.
_ALSO = {Action.WITHDRAW: frozenset({Actor.ENGINE})}


def _rule(action: Action, moves: dict[Status, Status], *, needs_defence: bool = False) -> Rule:
    actors = frozenset(actor for actor, actions in _ROLES if action in actions)
    return Rule(
        actors | _ALSO.get(action, frozenset()),
        moves,
        action in RESOLVING_ACTIONS,
        needs_defence,
    )


_ANY = frozenset(Status)  # with the check below that the attack is not resolved yet

# An accepted answer keeps the word for how it was resolved: a verified fix stays "fixed",
# an accepted concession (an evidence-bound waiver) stays "conceded", a defense "accepted".
RULES: Mapping[Action, Rule] = {
    # the author answers an attack that waits for an answer
    Action.FIX: _rule(Action.FIX, _each(AWAITING_ANSWER, Status.FIXED)),
    Action.CONCEDE: _rule(Action.CONCEDE, _each(AWAITING_ANSWER, Status.CONCEDED)),
    Action.DEFEND: _rule(Action.DEFEND, _each(AWAITING_ANSWER, Status.DEFENDED)),
    # the critic judges an answer, or withdraws its objection at any point
    Action.ACCEPT: _rule(
        Action.ACCEPT,
        {
            Status.FIXED: Status.FIXED,
            Status.CONCEDED: Status.CONCEDED,
            Status.DEFENDED: Status.ACCEPTED,
        },
    ),
    Action.RE_ATTACK: _rule(Action.RE_ATTACK, _each(AWAITING_JUDGEMENT, Status.RE_ATTACKED)),
    Action.WITHDRAW: _rule(Action.WITHDRAW, _each(_ANY, Status.WITHDRAWN)),
    # the engine closes a thread with what is left open
    Action.MARK_UNRESOLVED: _rule(
        Action.MARK_UNRESOLVED,
        {
            **_each(AWAITING_ANSWER | {Status.FIXED, Status.DEFENDED}, Status.UNRESOLVED),
            # A concession nobody accepted stands as conceded-unfixed.
            Status.CONCEDED: Status.CONCEDED,
        },
    ),
    Action.DEADLOCK: _rule(
        Action.DEADLOCK,
        _each(frozenset({Status.DEFENDED, Status.RE_ATTACKED}), Status.DEADLOCKED),
        needs_defence=True,
    ),
    # a person decides, at any point
    Action.UPHOLD: _rule(Action.UPHOLD, _each(_ANY, Status.UPHELD)),
    Action.OVERRULE: _rule(Action.OVERRULE, _each(_ANY, Status.OVERRULED)),
    Action.WAIVE: _rule(Action.WAIVE, _each(_ANY, Status.WAIVED)),
}


def may_take(actor: Actor, action: Action) -> bool:
    """Whether `actor` may ever take `action` (whatever the attack's status)."""
    return actor in RULES[action].actors


def next_status(attack: Attack, action: Action, actor: Actor | None = None) -> tuple[Status, bool]:
    """Return (new status, resolved) for `action` on `attack`, or raise IllegalTransition.

    `actor` None checks the status alone (a question about the table, never an append:
    the fold and the recorder always name the actor)."""
    refusal = _refusal(attack, action, actor)
    if refusal is not None:
        raise IllegalTransition(refusal)
    rule = RULES[action]
    return rule.moves[attack.status], rule.resolves


def allowed(attack: Attack, action: Action, actor: Actor) -> bool:
    """Whether `actor` may take `action` on `attack` now."""
    return _refusal(attack, action, actor) is None


def _refusal(attack: Attack, action: Action, actor: Actor | None) -> str | None:
    status = attack.status
    if attack.resolved:
        return f"attack {attack.id} is already resolved ({status}); {action} is not allowed"
    rule = RULES[action]
    if actor is not None and actor not in rule.actors:
        who = " or ".join(sorted(rule.actors))
        return f"attack {attack.id}: {actor} may not {action} (only the {who} may)"
    if status not in rule.moves or (rule.needs_defence and attack.defended_count == 0):
        return f"attack {attack.id}: {action} is not allowed from status {status}"
    return None


def apply_action(attack: Attack, action: Action, actor: Actor | None = None) -> None:
    """Move `attack` through `action` in place (the fold owns the attack objects)."""
    status, resolved = next_status(attack, action, actor)
    if action is Action.RE_ATTACK:
        attack.re_attacked = True
    if action is Action.DEFEND:
        attack.defended_count += 1
    attack.status = status
    if resolved and not attack.resolved:
        attack.freeze_survival()
    attack.resolved = resolved


# --- who acted, in ledgers written before transitions named their actor ------------------

_ACTORS = {str(a): a for a in Actor}
# The words `by` has been written with; each names one actor.
_BY_WORDS = {
    "author": Actor.PROPOSER,
    "proposer": Actor.PROPOSER,
    "critic": Actor.CRITIC,
    "static": Actor.CRITIC,
    "engine": Actor.ENGINE,
    "human": Actor.HUMAN,
    "oracle": Actor.ORACLE,
}


def actor_of(data: Mapping[str, Any], attack: Attack) -> Actor:
    """The actor of a transition on `attack`: its `actor` field, else the one its `by`
    names without doubt (a role word, the attack's own critic, or the person recorded on
    it). Anything else is refused: a ledger must say who acted, and say it once."""
    by = data.get("by")
    # The role word first, without a call: this runs once per transition of every fold.
    named = _BY_WORDS.get(by) if isinstance(by, str) else None
    if named is None and isinstance(by, str):
        named = _by_actor(by, data, attack)
    declared = data.get("actor")
    if declared is None:
        if named is None:
            raise ProtocolError(
                f"transition on attack {attack.id}: cannot tell who acted (by {by!r}, no actor)"
            )
        return named
    actor = _ACTORS.get(declared) if isinstance(declared, str) else None
    if actor is None:
        raise ProtocolError(f"transition on attack {attack.id}: unknown actor {declared!r}")
    if named is not None and named is not actor:
        raise ProtocolError(
            f"transition on attack {attack.id}: actor {actor} contradicts by {by!r} ({named})"
        )
    return actor


def _by_actor(by: str, data: Mapping[str, Any], attack: Attack) -> Actor | None:
    word = _BY_WORDS.get(by)
    if word is not None:
        return word
    if by and by == attack.critic:
        return Actor.CRITIC
    person = data.get("person")
    if by and isinstance(person, dict) and person.get("name") == by:
        return Actor.HUMAN
    return None
