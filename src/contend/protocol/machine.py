"""The attack state machine: which action is legal from which status, and where it leads.

An illegal transition raises IllegalTransition; the engine never ignores one.

`resolved` flips to True only through RESOLVING_ACTIONS (critic accept or withdraw,
human overrule or waive). Counts, votes or other critics never touch it.
"""

from __future__ import annotations

from contend.errors import IllegalTransition
from contend.protocol.model import Action, Attack, Status

# Statuses in which the attack awaits an answer from the author side.
_AWAITING_ANSWER = frozenset(
    {Status.OPEN, Status.RE_ATTACKED, Status.UNRESOLVED, Status.UPHELD, Status.DEADLOCKED}
)
# Statuses in which the author has answered and the critic has not yet judged.
_AWAITING_JUDGEMENT = frozenset({Status.FIXED, Status.CONCEDED, Status.DEFENDED})

_ON_ANSWER = {
    Action.FIX: Status.FIXED,
    Action.CONCEDE: Status.CONCEDED,
    Action.DEFEND: Status.DEFENDED,
}
# An accepted answer keeps the word for how it was resolved: a verified fix stays "fixed",
# an accepted concession (an evidence-bound waiver) stays "conceded", a defense "accepted".
_ON_ACCEPT = {
    Status.FIXED: Status.FIXED,
    Status.CONCEDED: Status.CONCEDED,
    Status.DEFENDED: Status.ACCEPTED,
}


def next_status(attack: Attack, action: Action) -> tuple[Status, bool]:
    """Return (new status, resolved) for `action` on `attack`, or raise IllegalTransition."""
    status = attack.status
    if attack.resolved:
        raise IllegalTransition(
            f"attack {attack.id} is already resolved ({status}); {action} is not allowed"
        )
    if action in _ON_ANSWER:
        if status in _AWAITING_ANSWER:
            return _ON_ANSWER[action], False
    elif action is Action.ACCEPT:
        if status in _AWAITING_JUDGEMENT:
            return _ON_ACCEPT[status], True
    elif action is Action.RE_ATTACK:
        if status in _AWAITING_JUDGEMENT:
            return Status.RE_ATTACKED, False
    elif action is Action.WITHDRAW:
        return Status.WITHDRAWN, True
    elif action is Action.MARK_UNRESOLVED:
        if status in _AWAITING_ANSWER or status in (Status.FIXED, Status.DEFENDED):
            return Status.UNRESOLVED, False
        if status is Status.CONCEDED:
            # A concession nobody accepted stands as conceded-unfixed.
            return Status.CONCEDED, False
    elif action is Action.DEADLOCK:
        if status in (Status.DEFENDED, Status.RE_ATTACKED) and attack.defended_count > 0:
            return Status.DEADLOCKED, False
    elif action is Action.UPHOLD:
        return Status.UPHELD, False
    elif action is Action.OVERRULE:
        return Status.OVERRULED, True
    elif action is Action.WAIVE:
        return Status.WAIVED, True
    raise IllegalTransition(f"attack {attack.id}: {action} is not allowed from status {status}")


def apply_action(attack: Attack, action: Action) -> None:
    """Move `attack` through `action` in place (the fold owns the attack objects)."""
    status, resolved = next_status(attack, action)
    if action is Action.RE_ATTACK:
        attack.re_attacked = True
    if action is Action.DEFEND:
        attack.defended_count += 1
    attack.status = status
    if resolved and not attack.resolved:
        attack.freeze_survival()
    attack.resolved = resolved
