"""The `concurrency` topic for Python: the change opens a race or loses a coroutine.

Rules (severity per base.py's mapping):
    lock-removed                  major  an old `with <lock>:` block is gone and the
                                         statements it guarded (mutations of shared state,
                                         calls) now run with no lock held
    check-then-act-across-await   major  an attribute read, then an `await`, then a write of
                                         that attribute with no write in between: the write
                                         acts on what was read before the suspension
    await-dropped                 major  `await f(...)` became `f(...)`, or a discarded
                                         `asyncio.ensure_future(f(...))`
    coroutine-not-awaited         major  a bare call to `asyncio.sleep` & co. or to an
                                         `async def` of the same file
    mutable-default-argument      minor  `def f(x=[])`: one object shared by every call

Removal rules compare the old and new version of the same function (by qualified name);
the others report only what sits on added lines and was not already in the old file.
This module owns the critic, the rule catalogue and each rule's findings; which `with`
blocks hold a lock is concurrency_locks', the check-then-act races concurrency_races'.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

from contend.critics.static import concurrency_locks as cl
from contend.critics.static import pyast
from contend.critics.static.base import (
    Confidence,
    FileChange,
    Finding,
    Language,
    Skipped,
    Topic,
)
from contend.critics.static.catalogue import PYTHON, RuleInfo, waiver_way
from contend.critics.static.concurrency_races import races
from contend.protocol.model import Severity

_ASYNCIO_COROUTINES = frozenset(
    {"sleep", "wait_for", "wait", "open_connection", "start_server", "to_thread"}
)
_TASK_WRAPPERS = frozenset(
    {
        "create_task",
        "ensure_future",
        "gather",
        "wait",
        "wait_for",
        "shield",
        "run",
        "run_coroutine_threadsafe",
        "run_until_complete",
        "as_completed",
        "start_soon",
        "spawn",
    }
)
_MUTABLE_CALLS = frozenset(
    {"list", "dict", "set", "bytearray", "defaultdict", "OrderedDict", "deque", "Counter"}
)
_MUTABLE_LITERALS = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)


_TOPIC = Topic.CONCURRENCY
_WAIVE = waiver_way(_TOPIC)
RULES: tuple[RuleInfo, ...] = (
    RuleInfo(
        "lock-removed",
        _TOPIC,
        Severity.MAJOR,
        Confidence.HIGH,
        PYTHON,
        "statements that ran with a lock held now run without it, so concurrent callers "
        "can interleave inside what was a critical section",
        ("restore the `with <lock>:` shown under 'before the change'", _WAIVE),
    ),
    RuleInfo(
        "check-then-act-across-await",
        _TOPIC,
        Severity.MAJOR,
        Confidence.HIGH,
        PYTHON,
        "state read before an `await` is written after it as if nothing had changed, but "
        "another task may have changed it while this one was suspended",
        (
            "re-read (or claim) the state after the await, or hold an asyncio.Lock across it",
            _WAIVE,
        ),
    ),
    RuleInfo(
        "await-dropped",
        _TOPIC,
        Severity.MAJOR,
        Confidence.HIGH,
        PYTHON,
        "a call that was awaited no longer is: the coroutine runs late or never, and its "
        "errors are lost",
        ("await the call again, or keep and await the task it is handed to", _WAIVE),
    ),
    RuleInfo(
        "coroutine-not-awaited",
        _TOPIC,
        Severity.MAJOR,
        Confidence.HIGH,
        PYTHON,
        "a coroutine function is called without `await`: it never runs",
        ("await the call", _WAIVE),
    ),
    RuleInfo(
        "mutable-default-argument",
        _TOPIC,
        Severity.MINOR,
        Confidence.MEDIUM,
        PYTHON,
        "a mutable default is created once and shared by every call; a mutation in one call "
        "shows up in the next",
        ("default to None and create the object inside the function", _WAIVE),
    ),
    cl.UNLOCKED_MUTATION,
)
_INFO = {info.rule: info for info in RULES}


class ConcurrencyCritic:
    topic = Topic.CONCURRENCY
    languages: frozenset[Language] = frozenset({"python"})

    def check(self, changes: Sequence[FileChange]) -> Iterable[Finding | Skipped]:
        return pyast.check_python_files(self.topic, changes, _check_file)


CRITIC = ConcurrencyCritic()


def _check_file(
    change: FileChange, new_tree: ast.Module, old_tree: ast.Module | None
) -> Iterator[Finding]:
    new_funcs = pyast.functions(new_tree)
    old_funcs = pyast.functions(old_tree) if old_tree is not None else {}
    locks = cl.Locks(old_tree, new_tree)
    dropped_lines: set[int] = set()
    unlocked: set[int] = set()
    for name, new_fn in new_funcs.items():
        old_fn = old_funcs.get(name)
        touched_new = change.touches(new_fn.start_line, new_fn.end_line)
        if old_fn is not None and (touched_new or _removed_from(change, old_fn)):
            for finding in _locks_removed(change, old_fn, new_fn, locks):
                unlocked.update(range(finding.start_line, finding.end_line + 1))
                yield finding
            for finding in _awaits_dropped(change, old_fn, new_fn):
                dropped_lines.add(finding.start_line)
                yield finding
        if isinstance(new_fn.node, ast.AsyncFunctionDef) and touched_new:
            twin = old_fn if old_fn is not None else _twin(new_fn, old_funcs)
            yield from _check_then_act(change, twin, new_fn, locks)
    # lock-removed is the more specific finding for a mutation that lost its lock
    yield from cl.unlocked_mutations(change, new_funcs, old_funcs, new_tree, locks, unlocked)
    yield from _unawaited(change, new_funcs, old_funcs, dropped_lines)
    yield from _mutable_defaults(change, new_funcs, old_funcs)


def _twin(fn: pyast.Function, old_funcs: dict[str, pyast.Function]) -> pyast.Function | None:
    """The old function a new one copies body for body (a rename or a duplicate): its
    hazards were already there, so the copy does not introduce them."""
    body = [pyast.dump(stmt) for stmt in fn.node.body]
    for old in old_funcs.values():
        if len(old.node.body) == len(body) and [pyast.dump(s) for s in old.node.body] == body:
            return old
    return None


def _removed_from(change: FileChange, fn: pyast.Function) -> bool:
    return any(n in change.removed_lines for n in range(fn.start_line, fn.end_line + 1))


def _finding(
    change: FileChange,
    rule: str,
    symbol: str,
    lines: tuple[int, int],
    claim: str,
    evidence: str | None = None,
    old_lines: tuple[int, int] | None = None,
) -> Finding:
    return _INFO[rule].finding(
        path=change.path,
        lines=lines,
        claim=claim,
        evidence=evidence if evidence is not None else change.new_lines(*lines),
        old_evidence=change.old_lines(*old_lines) if old_lines is not None else None,
        symbol=pyast.symbol_of(symbol),
    )


# --- lock-removed --------------------------------------------------------------------------


def _locks_removed(
    change: FileChange,
    old_fn: pyast.Function,
    new_fn: pyast.Function,
    locks: cl.Locks,
) -> Iterator[Finding]:
    """An old lock's `with` line was removed and statements it guarded now run unguarded."""
    removed_withs = [
        node
        for node in pyast.walk_within(old_fn.node)
        if isinstance(node, ast.With | ast.AsyncWith) and node.lineno in change.removed_lines
    ]
    if not removed_withs:
        return
    withs = [w for w in cl.lock_withs(old_fn.node, locks.old) if w in removed_withs]
    if not withs:
        return
    by_hand = frozenset(pyast.unparse(item.context_expr) for w in withs for item in w.items)
    unguarded = [
        stmt
        for stmt, guarded in cl.guarded_statements(new_fn.node, locks.new, by_hand)
        if not guarded and stmt.lineno in change.added_lines
    ]
    by_text: dict[str, ast.stmt] = {}
    for stmt in unguarded:
        by_text.setdefault(pyast.unparse(stmt), stmt)
    shared = cl.shared_names(new_fn.node)
    old_shared = cl.shared_names(old_fn.node)
    for lock in withs:
        moved = [by_text[t] for t in map(pyast.unparse, lock.body) if t in by_text]
        if not moved:
            # the body was edited too: match on the shared state it mutated instead
            guarded_keys = set(cl.mutations(lock.body, old_shared))
            simple = [s for s in unguarded if not hasattr(s, "body")]
            moved = [s for k, s in cl.mutations(simple, shared).items() if k in guarded_keys]
        if not moved:
            continue
        targets = [key for key in (cl.mutated(s, shared) for s in moved) if key is not None]
        head = pyast.unparse(moved[0]).splitlines()[0]
        what = f"mutates shared `{targets[0]}`" if targets else f"runs `{head[:60]}`"
        lock_text = ", ".join(pyast.unparse(item.context_expr) for item in lock.items)
        first = moved[0]
        yield _finding(
            change,
            "lock-removed",
            new_fn.qualname,
            pyast.span(first),
            f"`{new_fn.qualname}` now {what} without holding `{lock_text}`, which guarded "
            f"it before (old line {lock.lineno}); concurrent callers can interleave",
            old_lines=pyast.span(lock) if len(lock.body) <= 8 else (lock.lineno, lock.lineno),
        )


# --- check-then-act across an await (the races: concurrency_races.py) ----------------------


def _check_then_act(
    change: FileChange,
    old_fn: pyast.Function | None,
    new_fn: pyast.Function,
    locks: cl.Locks,
) -> Iterator[Finding]:
    before = {r.key for r in races(old_fn.node, locks)} if old_fn is not None else set()
    for race in races(new_fn.node, locks):
        lines = (race.read, race.suspend, race.write)
        if race.key in before or not any(n in change.added_lines for n in lines):
            continue
        evidence = "\n".join(change.new_lines(n, n) for n in sorted(set(lines)))
        yield _finding(
            change,
            "check-then-act-across-await",
            new_fn.qualname,
            (min(lines), max(lines)),
            f"`{new_fn.qualname}` reads `{race.key}` (line {race.read}), suspends at the await "
            f"on line {race.suspend}, then writes `{race.key}` (line {race.write}); another "
            "task can change it in between, so the write acts on a stale check",
            evidence,
        )


# --- dropped and missing awaits ------------------------------------------------------------


def _awaited(fn: pyast.FunctionNode) -> Counter[str]:
    return Counter(
        pyast.unparse(n.value.func)
        for n in pyast.walk_within(fn)
        if isinstance(n, ast.Await) and isinstance(n.value, ast.Call)
    )


def _unawaited_calls(fn: pyast.FunctionNode) -> list[tuple[ast.Call, str | None]]:
    """Calls that are not awaited, each with the task wrapper it was handed to when that
    wrapper's result is thrown away (`asyncio.ensure_future(f())` as a statement: nobody
    waits for it or sees its error). A wrapper whose task is kept is left alone."""
    skip: set[int] = set()
    discarded: dict[int, str] = {}
    calls: list[ast.Call] = []
    for node in pyast.walk_within(fn):
        if isinstance(node, ast.Await):
            skip.add(id(node.value))
        elif (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and pyast.callee_name(node.value) in _TASK_WRAPPERS
        ):
            wrapper = pyast.unparse(node.value.func)
            discarded.update((id(arg), wrapper) for arg in node.value.args)
        if isinstance(node, ast.Call):
            calls.append(node)
            if pyast.callee_name(node) in _TASK_WRAPPERS:
                skip.update(id(arg) for arg in node.args)
    return [
        (call, discarded.get(id(call)))
        for call in sorted(calls, key=lambda c: (c.lineno, c.col_offset))
        if id(call) not in skip or id(call) in discarded
    ]


def _awaits_dropped(
    change: FileChange, old_fn: pyast.Function, new_fn: pyast.Function
) -> Iterator[Finding]:
    old, new = _awaited(old_fn.node), _awaited(new_fn.node)
    budget = {callee: old[callee] - new[callee] for callee in old}
    if not any(count > 0 for count in budget.values()):
        return
    expecting = _under_expectation(new_fn.node)
    for call, wrapper in _unawaited_calls(new_fn.node):
        if call.lineno not in change.added_lines:
            continue
        callee = pyast.unparse(call.func)
        if budget.get(callee, 0) <= 0:
            continue
        if wrapper is None and (id(call) in expecting or callee.endswith(_SYNC_SUFFIXES)):
            continue
        budget[callee] -= 1
        how = (
            f"hands `{callee}(...)` to `{wrapper}` and drops the task instead of awaiting it"
            if wrapper is not None
            else f"calls `{callee}(...)` without the `await` it had before"
        )
        yield _finding(
            change,
            "await-dropped",
            new_fn.qualname,
            pyast.span(call),
            f"`{new_fn.qualname}` {how}: nothing waits for the work and its errors are lost",
            old_lines=_awaited_lines(old_fn.node, callee),
        )


# `get_nowait`, `put_nowait`, `receive_nowait`, `send_nowait`: asyncio's and trio's names for
# the synchronous twin of an awaitable method. Awaiting one was the bug; dropping the await
# is its fix.
_SYNC_SUFFIXES = ("_nowait",)
_EXPECTING = frozenset({"raises", "assertRaises", "assertRaisesRegex", "warns", "assertWarns"})


def _under_expectation(fn: pyast.FunctionNode) -> set[int]:
    """Ids of the calls inside a `with pytest.raises(...)` / `assertRaises` block: a call
    there whose await went missing cannot fail silently — no exception comes out of an
    unawaited coroutine, so the expectation itself fails the test."""
    found: set[int] = set()
    for node in pyast.walk_within(fn):
        if isinstance(node, ast.With | ast.AsyncWith) and any(
            isinstance(item.context_expr, ast.Call)
            and pyast.callee_name(item.context_expr) in _EXPECTING
            for item in node.items
        ):
            found.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return found


def _awaited_lines(fn: pyast.FunctionNode, callee: str) -> tuple[int, int]:
    for node in pyast.walk_within(fn):
        if (
            isinstance(node, ast.Await)
            and isinstance(node.value, ast.Call)
            and pyast.unparse(node.value.func) == callee
        ):
            return pyast.span(node)
    raise AssertionError(f"no await of {callee} in {fn.name}")


def _async_names(funcs: dict[str, pyast.Function]) -> frozenset[str]:
    return frozenset(q for q, f in funcs.items() if isinstance(f.node, ast.AsyncFunctionDef))


def _coroutine_callee(call: ast.Call, caller: str, async_names: frozenset[str]) -> bool:
    """`asyncio.sleep(...)` and friends, a module-level `async def`, or `self.m()` where the
    caller's class defines `async def m`."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in async_names
    if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Name):
        return False
    if func.value.id == "asyncio":
        return func.attr in _ASYNCIO_COROUTINES
    owner = caller.split(".", 1)[0]
    return func.value.id in ("self", "cls") and f"{owner}.{func.attr}" in async_names


def _bare_coroutine_calls(
    funcs: Iterable[pyast.Function], async_names: frozenset[str], added: frozenset[int] | None
) -> list[tuple[str, int, str]]:
    """(callee, line, caller) of coroutine calls used as bare expression statements; with
    `added`, only those on added lines."""
    found: list[tuple[str, int, str]] = []
    for fn in funcs:
        for node in pyast.walk_within(fn.node):
            if (
                isinstance(node, ast.Expr)
                and (added is None or node.lineno in added)
                and isinstance(node.value, ast.Call)
                and _coroutine_callee(node.value, fn.qualname, async_names)
            ):
                found.append((pyast.unparse(node.value.func), node.lineno, fn.qualname))
    return found


def _within_budget(
    hits: Sequence[tuple[str, int]], new: Counter[str], old: Counter[str]
) -> Iterator[tuple[str, int]]:
    """Hits (key, line), at most as many per key as the new file has more of than the old:
    a line that only moved or was renamed introduces nothing."""
    budget = {key: new[key] - old[key] for key in new}
    for key, line in sorted(set(hits), key=lambda hit: hit[1]):
        if budget.get(key, 0) > 0:
            budget[key] -= 1
            yield key, line


def _unawaited(
    change: FileChange,
    new_funcs: dict[str, pyast.Function],
    old_funcs: dict[str, pyast.Function],
    already: set[int],
) -> Iterator[Finding]:
    touched = [f for f in new_funcs.values() if change.touches(f.start_line, f.end_line)]
    new_async = _async_names(new_funcs)
    candidates = _bare_coroutine_calls(touched, new_async, change.added_lines)
    if not candidates:
        return
    callers = {line: caller for _, line, caller in candidates}
    new = Counter(c for c, _, _ in _bare_coroutine_calls(new_funcs.values(), new_async, None))
    old_async = _async_names(old_funcs)
    old = Counter(c for c, _, _ in _bare_coroutine_calls(old_funcs.values(), old_async, None))
    hits = [(callee, line) for callee, line, _ in candidates]
    for callee, line in _within_budget(hits, new, old):
        if line in already:
            continue
        yield _finding(
            change,
            "coroutine-not-awaited",
            callers[line],
            (line, line),
            f"`{callers[line]}` calls the coroutine function `{callee}` without `await`: it "
            "never runs and its errors are lost",
        )


# --- mutable defaults ----------------------------------------------------------------------


def _is_mutable(node: ast.expr) -> bool:
    if isinstance(node, _MUTABLE_LITERALS):
        return True
    return isinstance(node, ast.Call) and pyast.callee_name(node) in _MUTABLE_CALLS


def _mutable_default_sites(
    funcs: dict[str, pyast.Function],
) -> list[tuple[str, int, str, str]]:
    """(default source, line, function, parameter) of every mutable default."""
    found: list[tuple[str, int, str, str]] = []
    for qualname, fn in funcs.items():
        args = fn.node.args
        positional = [*args.posonlyargs, *args.args]
        pairs = list(
            zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True)
        )
        pairs += [
            (a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None
        ]
        for arg, default in pairs:
            if _is_mutable(default):
                found.append((pyast.unparse(default), default.lineno, qualname, arg.arg))
    return found


def _mutable_defaults(
    change: FileChange,
    new_funcs: dict[str, pyast.Function],
    old_funcs: dict[str, pyast.Function],
) -> Iterator[Finding]:
    sites = _mutable_default_sites(new_funcs)
    hits = [(default, line) for default, line, *_ in sites if line in change.added_lines]
    if not hits:
        return
    where = {(d, line): (q, p) for d, line, q, p in sites}
    new = Counter(default for default, *_ in sites)
    old = Counter(default for default, *_ in _mutable_default_sites(old_funcs))
    for default, line in _within_budget(hits, new, old):
        qualname, param = where[(default, line)]
        yield _finding(
            change,
            "mutable-default-argument",
            qualname,
            (line, line),
            f"`{qualname}` parameter `{param}` defaults to `{default}`: one object created at "
            "definition time and shared, with its mutations, by every call",
        )
