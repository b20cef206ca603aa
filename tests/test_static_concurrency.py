"""The `concurrency` static critic: each rule caught at its line, benign edits left alone."""

from __future__ import annotations

import textwrap

from contend.critics.static.base import Finding, Skipped, Topic
from contend.critics.static.concurrency import CRITIC
from contend.critics.static.runner import run_static
from contend.critics.static.testing import change_from_texts
from contend.protocol.model import Severity


def _src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _run(old: str | None, new: str | None, path: str = "src/app/worker.py") -> list[Finding]:
    change = change_from_texts(
        path, _src(old) if old is not None else None, _src(new) if new else None
    )
    results = list(CRITIC.check([change]))
    assert all(isinstance(r, Finding) for r in results), results
    return [r for r in results if isinstance(r, Finding)]


def _rules(findings: list[Finding]) -> list[tuple[str, int]]:
    return [(f.rule, f.start_line) for f in findings]


LOCKED = """
import threading

class Counter:
    def __init__(self):
        self._lock = threading.Lock()
        self.value = 0
        self.seen = {}

    def bump(self, key):
        with self._lock:
            self.value += 1
            self.seen[key] = self.value
        return key
"""


def test_critic_declares_topic_and_language() -> None:
    assert CRITIC.topic is Topic.CONCURRENCY
    assert frozenset({"python"}) == CRITIC.languages


def test_lock_removed_around_mutation_is_major() -> None:
    new = """
    import threading

    class Counter:
        def __init__(self):
            self._lock = threading.Lock()
            self.value = 0
            self.seen = {}

        def bump(self, key):
            self.value += 1
            self.seen[key] = self.value
            return key
    """
    findings = _run(LOCKED, new)
    assert _rules(findings) == [("lock-removed", 10)]
    finding = findings[0]
    assert finding.severity is Severity.MAJOR
    assert "`Counter.bump`" in finding.claim and "`self.value`" in finding.claim
    assert "`self._lock`" in finding.claim
    assert finding.evidence == "        self.value += 1"
    assert finding.old_evidence == (
        "        with self._lock:\n"
        "            self.value += 1\n"
        "            self.seen[key] = self.value"
    )


def test_lock_removed_around_module_level_state() -> None:
    old = """
    import threading

    _lock = threading.RLock()
    _registry = {}

    def register(name, klass):
        with _lock:
            _registry[name.lower()] = klass
    """
    new = """
    import threading

    _lock = threading.RLock()
    _registry = {}

    def register(name, klass):
        _registry[name.lower()] = klass
    """
    findings = _run(old, new)
    assert _rules(findings) == [("lock-removed", 7)]
    assert "`_registry`" in findings[0].claim and "`_lock`" in findings[0].claim


def test_lock_removed_and_body_edited_is_caught() -> None:
    new = """
    import threading

    class Counter:
        def __init__(self):
            self._lock = threading.Lock()
            self.value = 0
            self.seen = {}

        def bump(self, name):
            self.value = self.value + 1
            self.seen[name] = self.value
            return name
    """
    findings = _run(LOCKED, new)
    assert _rules(findings) == [("lock-removed", 10)]
    assert "`self.value`" in findings[0].claim


def test_await_dropped_from_asyncio_sleep_is_reported_once() -> None:
    old = """
    import asyncio

    async def pause():
        await asyncio.sleep(1)
    """
    new = """
    import asyncio

    async def pause():
        asyncio.sleep(1)
    """
    assert _rules(_run(old, new)) == [("await-dropped", 4)]


def test_lock_removed_around_a_call_is_caught() -> None:
    old = """
    class Queue:
        def get(self):
            with self._rlock:
                res = self._recv_bytes()
            self._sem.release()
            return res
    """
    new = """
    class Queue:
        def get(self):
            res = self._recv_bytes()
            self._sem.release()
            return res
    """
    findings = _run(old, new)
    assert _rules(findings) == [("lock-removed", 3)]
    assert "runs `res = self._recv_bytes()` without holding `self._rlock`" in findings[0].claim


def test_async_lock_removed_around_global_mutation() -> None:
    old = """
    import asyncio

    _cache_mu = asyncio.Lock()
    CACHE = {}

    async def remember(key, value):
        global CACHE
        async with _cache_mu:
            CACHE[key] = value
    """
    new = """
    import asyncio

    _cache_mu = asyncio.Lock()
    CACHE = {}

    async def remember(key, value):
        global CACHE
        CACHE[key] = value
    """
    findings = _run(old, new)
    assert _rules(findings) == [("lock-removed", 8)]
    assert "`CACHE`" in findings[0].claim and "`_cache_mu`" in findings[0].claim


def test_check_then_act_across_await_stale_read() -> None:
    old = """
    class Wallet:
        async def withdraw(self, n):
            self.balance -= n
    """
    new = """
    class Wallet:
        async def withdraw(self, n):
            bal = self.balance
            await self.audit(n)
            self.balance = bal - n
    """
    findings = _run(old, new)
    assert _rules(findings) == [("check-then-act-across-await", 3)]
    finding = findings[0]
    assert finding.end_line == 5
    assert finding.severity is Severity.MAJOR
    assert "`Wallet.withdraw`" in finding.claim and "`self.balance`" in finding.claim
    assert finding.evidence == (
        "        bal = self.balance\n        await self.audit(n)\n        self.balance = bal - n"
    )


def test_check_then_act_lazy_init() -> None:
    new = """
    class Client:
        async def session(self):
            if self._session is None:
                self._session = await make_session()
            return self._session
    """
    findings = _run(None, new)
    assert _rules(findings) == [("check-then-act-across-await", 3)]
    assert findings[0].end_line == 4


def test_await_dropped_from_statement() -> None:
    old = """
    async def shutdown(conn):
        await conn.flush()
        await conn.close()
    """
    new = """
    async def shutdown(conn):
        conn.flush()
        await conn.close()
    """
    findings = _run(old, new)
    assert _rules(findings) == [("await-dropped", 2)]
    assert findings[0].severity is Severity.MAJOR
    assert "calls `conn.flush(...)` without the `await` it had before" in findings[0].claim
    assert findings[0].old_evidence == "    await conn.flush()"


def test_await_dropped_on_assignment() -> None:
    old = """
    async def fetch(client):
        data = await client.get("/x")
        return data
    """
    new = """
    async def fetch(client):
        data = client.get("/x")
        return data
    """
    assert _rules(_run(old, new)) == [("await-dropped", 2)]


def test_await_replaced_by_fire_and_forget_task() -> None:
    old = """
    import asyncio

    async def save(store, item):
        await store.write(item)
        return item
    """
    new = """
    import asyncio

    async def save(store, item):
        asyncio.ensure_future(store.write(item))
        return item
    """
    findings = _run(old, new)
    assert _rules(findings) == [("await-dropped", 4)]
    assert "hands `store.write(...)` to `asyncio.ensure_future`" in findings[0].claim


def test_await_replaced_by_a_kept_task_is_fine() -> None:
    old = """
    import asyncio

    async def save(store, item):
        await store.write(item)
        return item
    """
    new = """
    import asyncio

    async def save(store, item):
        task = asyncio.create_task(store.write(item))
        await task
        return item
    """
    assert _run(old, new) == []


def test_bare_asyncio_sleep_and_local_coroutine_calls() -> None:
    old = """
    import asyncio

    async def tick():
        return 1

    class Poller:
        async def poll(self):
            return 2

        async def run(self):
            return 3
    """
    new = """
    import asyncio

    async def tick():
        return 1

    class Poller:
        async def poll(self):
            return 2

        async def run(self):
            asyncio.sleep(1)
            tick()
            self.poll()
            return 3
    """
    findings = _run(old, new)
    assert _rules(findings) == [
        ("coroutine-not-awaited", 11),
        ("coroutine-not-awaited", 12),
        ("coroutine-not-awaited", 13),
    ]
    assert "`asyncio.sleep`" in findings[0].claim and "`Poller.run`" in findings[0].claim


def test_mutable_defaults_are_minor() -> None:
    new = """
    def a(x=[]):
        return x

    def b(x, *, seen={}, tags=set(), items=list()):
        return x

    def c(x=(), y=None, z=frozenset()):
        return x
    """
    findings = _run(None, new)
    assert _rules(findings) == [
        ("mutable-default-argument", 1),
        ("mutable-default-argument", 4),
        ("mutable-default-argument", 4),
        ("mutable-default-argument", 4),
    ]
    assert all(f.severity is Severity.MINOR for f in findings)
    assert "`a` parameter `x` defaults to `[]`" in findings[0].claim


# --- benign controls ---------------------------------------------------------------------


def test_lock_kept_with_reformatted_body_is_fine() -> None:
    new = """
    import threading

    class Counter:
        def __init__(self):
            self._lock = threading.Lock()
            self.value = 0
            self.seen = {}

        def bump(self, key):
            with self._lock:
                self.value = self.value + 1
                self.seen[key] = (
                    self.value
                )
            return key
    """
    assert _run(LOCKED, new) == []


def test_lock_replaced_by_another_lock_is_fine() -> None:
    for header in ("with self._state_guard:", "with self._rlock:", "with REGISTRY_MUTEX:"):
        new = f"""
        import threading

        class Counter:
            def __init__(self):
                self._lock = threading.Lock()
                self.value = 0
                self.seen = {{}}

            def bump(self, key):
                {header}
                    self.value += 1
                    self.seen[key] = self.value
                return key
        """
        assert _run(LOCKED, new) == [], header


def test_taking_an_unrelated_lock_by_hand_does_not_excuse_a_removal() -> None:
    old = """
    class Thread:
        def start(self):
            self._tstate_lock.acquire()
            if not self.daemon:
                with _shutdown_locks_lock:
                    _shutdown_locks.add(self._tstate_lock)
    """
    new = """
    class Thread:
        def start(self):
            self._tstate_lock.acquire()
            if not self.daemon:
                _shutdown_locks.add(self._tstate_lock)
    """
    findings = _run(old, new)
    assert _rules(findings) == [("lock-removed", 5)]
    assert "`_shutdown_locks`" in findings[0].claim


def test_lock_taken_by_hand_is_fine() -> None:
    new = """
    import threading

    class Counter:
        def __init__(self):
            self._lock = threading.Lock()
            self.value = 0
            self.seen = {}

        def bump(self, key):
            self._lock.acquire()
            try:
                self.value += 1
                self.seen[key] = self.value
            finally:
                self._lock.release()
            return key
    """
    assert _run(LOCKED, new) == []


def test_rename_and_docstring_around_lock_are_fine() -> None:
    new = '''
    import threading

    class Counter:
        def __init__(self):
            self._lock = threading.Lock()
            self.value = 0
            self.seen = {}

        def bump(self, name):
            """Count one more sighting of `name`."""
            with self._lock:
                self.value += 1
                self.seen[name] = self.value
            return name
    '''
    assert _run(LOCKED, new) == []


def test_await_kept_and_annotations_added_are_fine() -> None:
    old = """
    async def shutdown(conn):
        await conn.flush()
        await conn.close()
    """
    new = """
    async def shutdown(conn: Connection) -> None:
        await conn.flush()
        await conn.close()
    """
    assert _run(old, new) == []


def test_task_creation_is_not_a_missing_await() -> None:
    new = """
    import asyncio

    async def job():
        return 1

    async def main():
        task = asyncio.create_task(job())
        asyncio.ensure_future(job())
        await task
    """
    assert _run(None, new) == []


def test_read_write_without_await_between_is_fine() -> None:
    new = """
    class Wallet:
        async def withdraw(self, n):
            await self.audit(n)
            if self.balance >= n:
                self.balance -= n
            self.count = self.count + 1
    """
    assert _run(None, new) == []


def test_check_then_act_with_fresh_update_is_caught() -> None:
    new = """
    class Wallet:
        async def withdraw(self, n):
            if self.balance >= n:
                await self.audit(n)
                self.balance -= n
    """
    findings = _run(None, new)
    assert _rules(findings) == [("check-then-act-across-await", 3)]
    assert findings[0].end_line == 5


def test_threading_lock_does_not_hold_off_other_tasks() -> None:
    new = """
    class Client:
        async def session(self):
            with self._lock:
                if self._session is None:
                    self._session = await make_session()
            return self._session
    """
    assert _rules(_run(None, new)) == [("check-then-act-across-await", 4)]


def test_state_claimed_before_the_await_is_fine() -> None:
    new = """
    class Job:
        async def start(self):
            if self._state != "idle":
                return
            self._state = "starting"
            await self._spawn()
            self._state = "running"
    """
    assert _run(None, new) == []


def test_read_on_a_path_that_returned_is_fine() -> None:
    new = """
    class Cache:
        async def get(self, fresh):
            if fresh:
                return self._value
            value = await self._load()
            self._value = value
            return value
    """
    assert _run(None, new) == []


def test_clearing_an_awaited_future_is_fine() -> None:
    new = """
    class Server:
        async def serve_forever(self):
            self._serving_fut = self._loop.create_future()
            try:
                await self._serving_fut
            finally:
                self._serving_fut = None
    """
    assert _run(None, new) == []


def test_check_then_act_inside_async_lock_is_fine() -> None:
    new = """
    class Client:
        async def session(self):
            async with self._lock:
                if self._session is None:
                    self._session = await make_session()
            return self._session
    """
    assert _run(None, new) == []


def test_locally_created_object_is_not_shared_state() -> None:
    new = """
    async def build():
        box = Box()
        if box.value is None:
            box.value = await compute()
        return box
    """
    assert _run(None, new) == []


def test_existing_race_not_touched_by_the_change_is_not_reported() -> None:
    old = """
    class Client:
        async def session(self):
            if self._session is None:
                self._session = await make_session()
            return self._session
    """
    new = """
    class Client:
        async def session(self):
            if self._session is None:
                self._session = await make_session()
            return self._session  # the shared session
    """
    assert _run(old, new) == []


def test_race_in_a_renamed_or_copied_function_is_not_new() -> None:
    old = """
    class Client:
        async def session(self):
            if self._session is None:
                self._session = await make_session()
            return self._session
    """
    new = """
    class Client:
        async def get_session(self):
            if self._session is None:
                self._session = await make_session()
            return self._session

        async def session_again(self):
            if self._session is None:
                self._session = await make_session()
            return self._session
    """
    assert _run(old, new) == []


def test_mutable_default_already_there_or_renamed_is_fine() -> None:
    old = """
    def a(x=[]):
        return x
    """
    new = """
    def first(items=[]):
        return items
    """
    assert _run(old, new) == []


def test_unparsable_new_side_is_skipped_with_reason() -> None:
    change = change_from_texts("src/app/worker.py", None, "async def broken(:\n")
    results = list(CRITIC.check([change]))
    assert len(results) == 1
    skipped = results[0]
    assert isinstance(skipped, Skipped)
    assert skipped.topic is Topic.CONCURRENCY
    assert "does not parse" in skipped.reason


def test_deleted_file_gives_nothing() -> None:
    assert _run(LOCKED, None) == []


def test_unparsable_old_side_counts_as_absent() -> None:
    new = """
    def remember(x, seen=[]):
        seen.append(x)
        return seen
    """
    assert _rules(_run("def remember(x:\n", new)) == [("mutable-default-argument", 1)]


def test_runs_through_the_registry_with_other_topics_selected() -> None:
    new = _src(
        """
        import asyncio

        async def tick():
            asyncio.sleep(1)
        """
    )
    change = change_from_texts("src/app/worker.py", None, new)
    result = run_static([change], "static:concurrency,boundary-typing")
    assert [(f.topic, f.rule, f.start_line) for f in result.findings] == [
        (Topic.CONCURRENCY, "coroutine-not-awaited", 4)
    ]
    assert result.skipped == []


HAZARDS = """
import asyncio
import threading


class Cache:
    def __init__(self):
        self._lock = threading.Lock()

    async def session(self):
        if self._session is None:
            self._session = await make_session()
        return self._session

    def put(self, key, value, seen=[]):
        with self._lock:
            self._data[key] = value

    async def tick(self):
        asyncio.sleep(0)
"""


def test_code_moved_or_class_renamed_introduces_nothing() -> None:
    old = _src(HAZARDS)
    # the hazards are there to be found: added from scratch, each is reported
    as_new = _run(None, HAZARDS, path="src/app/cache.py")
    assert {f.rule for f in as_new} == {
        "check-then-act-across-await",
        "mutable-default-argument",
        "coroutine-not-awaited",
    }
    head, body = old.split("class Cache:\n")
    moved = head + "\n\ndef helper():\n    return 1\n\n\nclass Store:\n" + body
    change = change_from_texts("src/app/cache.py", old, moved)
    assert list(CRITIC.check([change])) == []
    methods = body.split("\n\n")
    reordered = head + "class Cache:\n" + "\n\n".join([methods[0], *reversed(methods[1:])])
    change = change_from_texts("src/app/cache.py", old, reordered + "\n")
    assert list(CRITIC.check([change])) == []


# --- issue 8: shared state mutated without the lock the rest of the code holds for it ------

POOL = """
import threading


class Pool:
    def __init__(self):
        self._lock = threading.Lock()
        self._conns = []
        self.size = 0

    def get(self):
        with self._lock:
            self.size -= 1
            return self._conns.pop()
"""


def test_mutation_without_the_lock_other_methods_hold_is_major() -> None:
    new = (
        POOL
        + "\n    def put(self, conn):\n        self._conns.append(conn)\n        self.size += 1\n"
    )
    findings = _run(POOL, new)
    assert _rules(findings) == [("unlocked-shared-mutation", 16)]
    [finding] = findings
    assert "`self._conns`, `self.size`" in finding.claim
    assert (finding.severity, finding.confidence.value) == (Severity.MAJOR, "high")
    assert finding.symbol == "Pool.put"
    assert "self._lock" in finding.claim and "Pool.get" in finding.claim


def test_mutation_in_the_constructor_or_under_the_lock_is_fine() -> None:
    locked = (
        POOL + "\n    def put(self, conn):\n        with self._lock:\n"
        "            self._conns.append(conn)\n"
    )
    assert _run(POOL, locked) == []
    built = POOL.replace(
        "        self.size = 0\n", "        self.size = 0\n        self._conns = [1]\n"
    )
    assert _run(POOL, built) == []


def test_helper_only_called_with_the_lock_held_is_fine() -> None:
    new = (
        POOL
        + "\n    def put(self, conn):\n        with self._lock:\n            self._add(conn)\n"
        + "\n    def _add(self, conn):\n        self._conns.append(conn)\n"
    )
    assert _run(POOL, new) == []


def test_unlocked_mutation_already_there_is_not_new() -> None:
    old = POOL + "\n    def put(self, conn):\n        self._conns.append(conn)\n"
    new = old.replace(
        "        self._conns.append(conn)\n",
        "        self._conns.append(conn)\n        log(conn)\n",
    )
    assert _run(old, new) == []


def test_state_never_locked_anywhere_is_not_reported() -> None:
    new = POOL + "\n    def note(self, text):\n        self.notes = text\n"
    assert _run(POOL, new) == []


def test_module_global_mutated_without_its_lock() -> None:
    old = """
    import threading

    _lock = threading.Lock()
    _cache = {}


    def remember(key, value):
        with _lock:
            _cache[key] = value
    """
    old = _src(old)
    new = old + "\n\ndef forget(key):\n    _cache.pop(key, None)\n"
    assert _rules(_run(old, new)) == [("unlocked-shared-mutation", 13)]


def test_async_methods_are_left_to_the_await_rules() -> None:
    new = POOL + "\n    async def put(self, conn):\n        self._conns.append(conn)\n"
    assert _run(POOL, new) == []


def test_await_dropped_inside_an_exception_expectation_is_not_reported() -> None:
    # trio: `await r.receive_nowait()` was the bug (the method is synchronous); were it a
    # coroutine, nothing would be raised and pytest.raises would fail the test loudly.
    old = """
    async def test_closed(r):
        with pytest.raises(ClosedResourceError):
            await r.receive_nowait()
        with pytest.raises(ClosedResourceError):
            await r.receive()
    """
    new = """
    async def test_closed(r):
        with pytest.raises(ClosedResourceError):
            r.receive_nowait()
        with pytest.raises(ClosedResourceError):
            r.receive()
    """
    assert _run(old, new, "tests/test_channel.py") == []


def test_await_dropped_from_a_nowait_method_is_not_reported() -> None:
    old = """
    async def drain(queue):
        item = await queue.get_nowait()
        await queue.join()
        return item
    """
    new = """
    async def drain(queue):
        item = queue.get_nowait()
        queue.join()
        return item
    """
    assert _rules(_run(old, new)) == [("await-dropped", 3)]
