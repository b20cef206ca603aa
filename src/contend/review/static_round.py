"""One round of the deterministic critics in author mode, as pure event planning.

The author is the proposer across invocations: between two `contend review` runs they
edit code. This module compares what a static topic finds now with the attacks of its
thread so far and plans the events of the new round.

Grouping. Repeated findings of one rule in one file (at one severity) are ONE attack: one
dispute for the person to read, with every location listed and the enclosing function or
class named. A group's identity is its key (rule, path, severity) plus the fingerprints of
its members (`Attack.members`, one per location, as a multiset: identical lines in two
functions are two members). Across invocations, an attack keeps every current finding of
its key whose fingerprint it holds:

- findings still present keep the attack open (its contention grows with the round
  close); if the author had defended it in words, the critic presses it again (re_attack):
  a static finding is answered in code — fixed, or waived in code with a reason;
- new occurrences of the same rule in the same file join the open attack of that key;
- when some occurrences are fixed the group shrinks, when none is left it is resolved by
  fix (fix + accept) — unless its file could not be read this time (skipped), which proves
  nothing, or its file left the diff altogether, which is a withdrawal of that part of the
  change (the critic withdraws, `change_withdrawn: true`), not a fix;
- whenever the places change (shrunk, grown, lines moved) an `attack_relocated` event
  records them, so the report follows the code;
- a waiver concedes exactly the occurrences it sits on: waived occurrences leave the open
  group and form one conceded attack (concede by the author with the reasons, accept by the
  critic); an open attack whose every occurrence is now waived is itself conceded;
- decisions carry: an attack a person waived or overruled (`contend decide`) keeps claiming
  its findings, and so does an in-code concession while its waivers stay, so neither comes
  back under a new id;
- whatever no attack claims is raised, one attack per key.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from contend.critics.static.base import Finding, Topic
from contend.protocol import events as ev
from contend.protocol.events import Event
from contend.protocol.machine import AWAITING_ANSWER
from contend.protocol.model import Action, Actor, Attack, Location, Severity, Status
from contend.protocol.state import RunState

AUTHOR = "author"
STATIC_FAMILY = "static"

_PREFIX = {
    Topic.SILENT_FALLBACK: "SF",
    Topic.TEST_WEAKENING: "TW",
    Topic.BOUNDARY_TYPING: "BT",
    Topic.CONCURRENCY: "CC",
    Topic.SECURITY: "SE",
    Topic.SECRETS: "SK",
}
# Resolutions that hold for as long as the finding is in the code: a person's decision.
_DECIDED = frozenset({Status.WAIVED, Status.OVERRULED})

Key = tuple[str, str, Severity]  # rule, path, severity


def thread_name(topic: Topic) -> str:
    return f"static:{topic}"


def group_fingerprint(topic: str, key: Key) -> str:
    """The identity of a group: topic, rule, path and severity, not its lines."""
    rule, path, severity = key
    raw = f"group\0{topic}\0{rule}\0{path}\0{severity}"
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


def _key_of_finding(f: Finding) -> Key:
    return (f.rule, f.path, f.severity)


def _key_of_attack(a: Attack) -> Key:
    return (a.rule, a.location.path, a.severity)


def _members(a: Attack) -> tuple[str, ...]:
    # Attacks raised before grouping hold one finding: their fingerprint is its member.
    if a.members:
        return a.members
    return (a.fingerprint,) if a.fingerprint else ()


def _places(a: Attack) -> tuple[Location, ...]:
    return a.locations or (a.location,)


@dataclass
class _Pool:
    """Current findings not yet claimed. Each finding's fingerprint is computed once; a
    finding is found by (key, fingerprint, waived) in O(1), in line order."""

    fingerprints: dict[int, str] = field(default_factory=dict)
    _slots: dict[tuple[Key, str, bool], deque[Finding]] = field(
        default_factory=lambda: defaultdict(deque)
    )
    _order: list[Finding] = field(default_factory=list)
    _by_key: dict[Key, list[Finding]] = field(default_factory=lambda: defaultdict(list))
    _taken: set[int] = field(default_factory=set)

    @classmethod
    def of(cls, findings: Iterable[Finding]) -> _Pool:
        pool = cls()
        pool._order = sorted(findings, key=lambda f: (f.path, f.start_line, f.end_line))
        for f in pool._order:
            fp = f.fingerprint()
            pool.fingerprints[id(f)] = fp
            pool._slots[(_key_of_finding(f), fp, f.waived)].append(f)
            pool._by_key[_key_of_finding(f)].append(f)
        return pool

    def fp(self, f: Finding) -> str:
        return self.fingerprints[id(f)]

    def _live(self, slot: tuple[Key, str, bool]) -> deque[Finding] | None:
        # Findings claimed by take_rest stay in their queue until they reach its front.
        queue = self._slots.get(slot)
        while queue and id(queue[0]) in self._taken:
            queue.popleft()
        return queue or None

    def _pop(self, key: Key, member: str, waived: bool | None) -> Finding | None:
        queues = [
            q
            for w in ((False, True) if waived is None else (waived,))
            if (q := self._live((key, member, w)))
        ]
        if not queues:
            return None
        found = min((q[0] for q in queues), key=lambda f: f.start_line)
        next(q for q in queues if q[0] is found).popleft()
        self._taken.add(id(found))
        return found

    def take(self, attack: Attack, *, waived: bool | None) -> list[Finding]:
        """Remove and return the findings of `attack`'s members (one per member), only
        waived or only unwaived ones, or either (None)."""
        key = _key_of_attack(attack)
        taken = [f for m in _members(attack) if (f := self._pop(key, m, waived)) is not None]
        return sorted(taken, key=lambda f: f.start_line)

    def take_rest(self, key: Key, *, waived: bool) -> list[Finding]:
        rest = [
            f for f in self._by_key.get(key, []) if id(f) not in self._taken and f.waived == waived
        ]
        self._taken.update(id(f) for f in rest)
        return rest

    def leftovers(self) -> list[list[Finding]]:
        """Unclaimed findings as groups: per key, the unwaived ones, then the waived ones."""
        groups: dict[tuple[Key, bool], list[Finding]] = {}
        for f in self._order:
            if id(f) not in self._taken:
                groups.setdefault((_key_of_finding(f), f.waived), []).append(f)
        return sorted(groups.values(), key=lambda g: (g[0].path, g[0].start_line))


def plan_static_round(
    state: RunState,
    topic: Topic,
    findings: Sequence[Finding],
    *,
    skipped_paths: Iterable[str],
    model: str,
    wall_s: float,
    changed_paths: Iterable[str] | None = None,
) -> list[Event]:
    """The events of one round of `topic`'s static critic. `changed_paths` are the files
    in the reviewed diff (None: not known, so no attack is read as withdrawn)."""
    name = thread_name(topic)
    out: list[Event] = _round_header(state, topic, name, model, wall_s, len(findings))
    thread = state.threads.get(name)
    rnd = 1 if thread is None else thread.round + 1
    skipped = set(skipped_paths)
    in_diff = set(changed_paths) if changed_paths is not None else None
    pool = _Pool.of(findings)
    mine = [a for a in state.attacks.values() if a.thread == name]

    for attack in mine:
        if attack.resolved and attack.status in _DECIDED:
            out += _relocated(attack, pool.take(attack, waived=None), pool)
        elif attack.resolved and attack.status is Status.CONCEDED:
            out += _relocated(attack, pool.take(attack, waived=True), pool)

    present: list[tuple[Attack, list[Finding]]] = []
    for attack in (a for a in mine if not a.resolved):
        still = pool.take(attack, waived=False)
        if still:
            present.append((attack, still))
            continue
        waived = pool.take(attack, waived=True)
        if waived:
            out += _relocated(attack, waived, pool)
            out += _waiver_events(attack, waived)
        elif attack.location.path in skipped:
            continue  # not read this time: its absence proves nothing
        elif in_diff is not None and attack.location.path not in in_diff:
            out += _withdrawn_with_file(attack)
        else:
            out += _gone(attack)

    for attack, still in present:
        joined = sorted(
            still + pool.take_rest(_key_of_attack(attack), waived=False),
            key=lambda f: f.start_line,
        )
        out += _relocated(attack, joined, pool)
        out += _still_present(attack, joined[0])

    counter = len(mine)
    for group in pool.leftovers():
        counter += 1
        attack_id = f"{_PREFIX[topic]}-{counter}"
        out.append(ev.attack_raised(_attack_of(group, attack_id, name, rnd, counter, pool)))
        if group[0].waived:
            out += _waiver_accepted(attack_id, group)
    out.append(ev.round_closed(thread=name, round=rnd))
    out.append(ev.thread_ended(thread=name, reason="awaiting_author"))
    return out


def plan_change_withdrawn(state: RunState) -> list[Event]:
    """The reviewed diff is empty: the author withdrew the change. Every dispute still open
    is about code that is no longer part of it, so each is resolved by that withdrawal —
    recorded as such, never read as a fix and never skipped by a shortcut."""
    return [
        ev.transition(
            a.id,
            Action.WITHDRAW,
            by="engine",
            actor=Actor.ENGINE,
            text="the reviewed diff is empty: the author withdrew the change",
            change_withdrawn=True,
        )
        for a in state.unresolved()
    ]


def _round_header(
    state: RunState, topic: Topic, name: str, model: str, wall_s: float, found: int
) -> list[Event]:
    thread = state.threads.get(name)
    out: list[Event] = [
        ev.thread_started(
            thread=name,
            critic=name,
            family=STATIC_FAMILY,
            model=model,
            backend="static",
        )
    ]
    if thread is None:
        out.append(ev.topic_declared(thread=name, topic=str(topic)))
    rnd = 1 if thread is None else thread.round + 1
    out.append(ev.round_started(thread=name, round=rnd))
    out.append(
        ev.agent_call(
            thread=name,
            role="critic",
            backend="static",
            model=model,
            family=STATIC_FAMILY,
            tokens_in=0,
            tokens_out=0,
            cost=0.0,
            wall_s=round(wall_s, 6),
            usable=True,
            findings=found,
        )
    )
    return out


def _location(f: Finding) -> Location:
    return Location(f.path, f.start_line, f.end_line, f.symbol)


def _old_evidence(f: Finding) -> str | None:
    return f.old_evidence if f.old_evidence else None


def _attack_of(
    group: Sequence[Finding], attack_id: str, thread: str, rnd: int, seq: int, pool: _Pool
) -> Attack:
    first = group[0]
    return Attack(
        id=attack_id,
        thread=thread,
        critic=thread,
        family=STATIC_FAMILY,
        topic=str(first.topic),
        rule=first.rule,
        severity=first.severity,
        location=_location(first),
        claim=first.claim,
        evidence=first.evidence,
        raised_round=rnd,
        raised_seq=seq,
        fingerprint=group_fingerprint(str(first.topic), _key_of_finding(first)),
        ways_out=tuple(w.replace("<topic>", str(first.topic)) for w in first.ways_out),
        confidence=str(first.confidence),
        old_evidence=_old_evidence(first),
        locations=tuple(_location(f) for f in group),
        members=tuple(pool.fp(f) for f in group),
    )


def _relocated(attack: Attack, found: Sequence[Finding], pool: _Pool) -> list[Event]:
    """Record where the attack is now, when that differs from what the fold knows."""
    if not found:
        return []
    places = tuple(_location(f) for f in found)
    members = tuple(pool.fp(f) for f in found)
    first = found[0]
    if (
        places == _places(attack)
        and members == _members(attack)
        and first.claim == attack.claim
        and first.evidence == attack.evidence
        and _old_evidence(first) == attack.old_evidence
    ):
        return []
    return [
        ev.attack_relocated(
            attack.id,
            list(places),
            list(members),
            claim=first.claim,
            evidence=first.evidence,
            old_evidence=_old_evidence(first),
        )
    ]


def _reasons(found: Sequence[Finding]) -> str:
    reasons = dict.fromkeys(f.waiver_reason or "" for f in found)
    return "; ".join(r for r in reasons if r)


def _waiver_accepted(attack_id: str, found: Sequence[Finding]) -> list[Event]:
    reason = _reasons(found)
    topic = found[0].topic
    return [
        ev.transition(
            attack_id,
            Action.CONCEDE,
            by=AUTHOR,
            actor=Actor.PROPOSER,
            text=reason,
            in_source=True,
            evidence="\n".join(
                f"{f.path}:{f.start_line}: # contend: allow {topic} -- {f.waiver_reason or ''}"
                for f in found
            ),
        ),
        ev.transition(
            attack_id,
            Action.ACCEPT,
            by="static",
            actor=Actor.CRITIC,
            text="an in-code waiver with a reason is an evidence-bound concession",
        ),
    ]


def _waiver_events(attack: Attack, found: Sequence[Finding]) -> list[Event]:
    if attack.status in AWAITING_ANSWER:
        return _waiver_accepted(attack.id, found)
    return [
        ev.transition(
            attack.id,
            Action.ACCEPT,
            by="static",
            actor=Actor.CRITIC,
            text=f"waived in code: {_reasons(found)}",
        )
    ]


def _still_present(attack: Attack, finding: Finding) -> list[Event]:
    if attack.status in (Status.DEFENDED, Status.FIXED):
        return [
            ev.transition(
                attack.id,
                Action.RE_ATTACK,
                by="static",
                actor=Actor.CRITIC,
                text="still present in the code: a static finding is answered in code — fix it, "
                "or waive it in code with a reason",
                evidence=finding.evidence,
            )
        ]
    return []


def _withdrawn_with_file(attack: Attack) -> list[Event]:
    return [
        ev.transition(
            attack.id,
            Action.WITHDRAW,
            by="static",
            actor=Actor.CRITIC,
            text=f"{attack.location.path} is no longer part of the reviewed diff",
            change_withdrawn=True,
        )
    ]


def _gone(attack: Attack) -> list[Event]:
    if attack.status in AWAITING_ANSWER:
        return [
            ev.transition(
                attack.id,
                Action.FIX,
                by=AUTHOR,
                actor=Actor.PROPOSER,
                text="the code no longer contains it",
            ),
            ev.transition(
                attack.id,
                Action.ACCEPT,
                by="static",
                actor=Actor.CRITIC,
                text="verified: a re-run of the critic no longer finds it",
            ),
        ]
    return [
        ev.transition(
            attack.id,
            Action.WITHDRAW,
            by="static",
            actor=Actor.CRITIC,
            text="no longer present in the code",
        )
    ]
