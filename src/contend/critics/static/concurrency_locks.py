"""Locks and shared state, for the concurrency rules: which objects are locks, which
statements run with one held, what shared state a statement mutates — and the rule that
needs no change to a lock at all:

    unlocked-shared-mutation      major  a synchronous function (threaded code: no `await`)
                                         mutates shared state — `self.x`, an item of it, a
                                         module global — that other code of the same class or
                                         module mutates only while holding a lock

Diff-aware: only mutations on lines the change added, that the old version of the same
function did not already make without the lock. Constructors (`__init__`, `__new__`,
`setUp`, ...) build the object before it is shared, and a helper every caller of which holds
the lock runs with it held: neither is reported.
"""

from __future__ import annotations

import ast
import functools
import re
from collections import Counter
from collections.abc import Iterable, Iterator

from contend.critics.static import pyast
from contend.critics.static.base import Confidence, FileChange, Finding, Topic
from contend.critics.static.catalogue import PYTHON, RuleInfo, waiver_way
from contend.protocol.model import Severity

LOCK_WORDS = frozenset(
    {"lock", "locks", "rlock", "mutex", "mu", "sem", "semaphore", "cv", "cond", "condition"}
)
WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
LOCK_TYPES = frozenset({"Lock", "RLock", "Semaphore", "BoundedSemaphore", "Condition"})
MUTATORS = frozenset(
    {
        "append",
        "extend",
        "insert",
        "pop",
        "popitem",
        "remove",
        "clear",
        "update",
        "add",
        "discard",
        "setdefault",
        "appendleft",
        "popleft",
        "put",
        "put_nowait",
        "sort",
        "reverse",
    }
)
NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


class Locks:
    """Lock objects assigned in each side's module, computed only when a rule needs them."""

    def __init__(self, old_tree: ast.Module | None, new_tree: ast.Module) -> None:
        self._old_tree, self._new_tree = old_tree, new_tree

    @functools.cached_property
    def old(self) -> frozenset[str]:
        return lock_objects(self._old_tree)

    @functools.cached_property
    def new(self) -> frozenset[str]:
        return lock_objects(self._new_tree)


def lock_objects(tree: ast.Module | None) -> frozenset[str]:
    """Names and attributes assigned a threading/asyncio lock anywhere in the module."""
    if tree is None:
        return frozenset()
    found: set[str] = set()
    for node in pyast.statements(tree):  # assignments are statements: no need to visit expressions
        value: ast.expr | None = None
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign):
            targets, value = [node.target], node.value
        if isinstance(value, ast.Call) and pyast.callee_name(value) in LOCK_TYPES:
            found.update(pyast.unparse(t) for t in targets)
    return frozenset(found)


def is_lock(expr: ast.expr, locks: frozenset[str]) -> bool:
    """A context expression that is a lock by its name, its constructor or its assignment."""
    if isinstance(expr, ast.Call):
        name = pyast.callee_name(expr)
        return name in LOCK_TYPES or is_lock_name(name)
    text = pyast.unparse(expr)
    return text in locks or is_lock_name(text.rsplit(".", 1)[-1])


def is_lock_name(name: str) -> bool:
    """`_lock`, `state_mutex`, `ImportLockContext`, `_cv`; not `block` or `clock`."""
    return any(word.lower() in LOCK_WORDS for word in WORD.findall(name))


def protects(expr: ast.expr, locks: frozenset[str]) -> bool:
    """On the new side any bare object used as a context manager (`with self._guard:`) counts
    as a lock too: a lock swapped for another, differently named one is not a removal."""
    return is_lock(expr, locks) or isinstance(expr, ast.Name | ast.Attribute)


def calls_on(node: ast.AST, method: str, receivers: frozenset[str]) -> bool:
    """`node` contains `<receiver>.<method>(...)` for one of `receivers`."""
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == method
        and pyast.unparse(n.func.value) in receivers
        for n in ast.walk(node)
    )


def guarded_statements(
    fn: pyast.FunctionNode, locks: frozenset[str], by_hand: frozenset[str]
) -> Iterator[tuple[ast.stmt, bool]]:
    """Every statement of a function with whether a lock guards it: inside a lock-like
    `with`, after a sibling `<lock>.acquire()`, or in a `try` whose `finally` releases
    `<lock>`, for the locks in `by_hand` (taking some other lock by hand guards nothing)."""

    def block(stmts: list[ast.stmt], guarded: bool) -> Iterator[tuple[ast.stmt, bool]]:
        for stmt in stmts:
            yield stmt, guarded
            if isinstance(stmt, NESTED):
                continue
            inner = guarded or (
                isinstance(stmt, ast.With | ast.AsyncWith)
                and any(protects(item.context_expr, locks) for item in stmt.items)
            )
            if isinstance(stmt, ast.Try) and any(
                calls_on(s, "release", by_hand) for s in stmt.finalbody
            ):
                yield from block(stmt.body, True)
                for handler in stmt.handlers:
                    yield from block(handler.body, inner)
                yield from block(stmt.orelse + stmt.finalbody, inner)
            else:
                for name in ("body", "orelse", "finalbody"):
                    yield from block(getattr(stmt, name, []), inner)
                for clause in getattr(stmt, "handlers", []) + getattr(stmt, "cases", []):
                    yield from block(clause.body, inner)
            if calls_on(stmt, "acquire", by_hand):
                guarded = True  # the rest of this block runs with the lock taken by hand

    yield from block(fn.body, False)


def lock_withs(fn: pyast.FunctionNode, locks: frozenset[str]) -> list[ast.With | ast.AsyncWith]:
    return sorted(
        (
            node
            for node in pyast.walk_within(fn)
            if isinstance(node, ast.With | ast.AsyncWith)
            and any(is_lock(item.context_expr, locks) for item in node.items)
        ),
        key=lambda node: node.lineno,
    )


def shared_names(fn: pyast.FunctionNode) -> frozenset[str]:
    """Names whose objects may be shared: self/cls, parameters, globals and module names;
    not locals the function created itself."""
    args = fn.args
    params = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    stored: set[str] = set()
    loaded: set[str] = set()
    declared: set[str] = set()
    for node in pyast.walk_within(fn):
        if isinstance(node, ast.Name):
            (stored if isinstance(node.ctx, ast.Store) else loaded).add(node.id)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            declared.update(node.names)
    return frozenset(params | declared | (loaded - stored))


def mutated(stmt: ast.stmt, shared: frozenset[str]) -> str | None:
    """The first shared object a statement stores into or mutates in place, e.g. `self.x`
    for `self.x = ...`, `self.d[k] = ...` or `self.items.append(...)`."""
    for node in ast.walk(stmt):
        target: ast.expr | None = None
        if isinstance(node, ast.Attribute | ast.Subscript) and isinstance(node.ctx, ast.Store):
            target = node
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            target = node.func.value if node.func.attr in MUTATORS else None
        while isinstance(target, ast.Subscript):
            target = target.value
        root = target
        while isinstance(root, ast.Attribute | ast.Subscript):
            root = root.value
        if target is not None and isinstance(root, ast.Name) and root.id in shared:
            return pyast.unparse(target)
    return None


def mutations(stmts: Iterable[ast.stmt], shared: frozenset[str]) -> dict[str, ast.stmt]:
    """Shared state mutated by the simple statements among `stmts` and all they nest, with
    the first statement mutating each."""
    found: dict[str, ast.stmt] = {}
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.stmt) and not hasattr(node, "body"):
                key = mutated(node, shared)
                if key is not None:
                    found.setdefault(key, node)
    return found


# --- unlocked-shared-mutation --------------------------------------------------------------

UNLOCKED_MUTATION = RuleInfo(
    "unlocked-shared-mutation",
    Topic.CONCURRENCY,
    Severity.MAJOR,
    Confidence.HIGH,
    PYTHON,
    "the rest of the code only changes this state while holding a lock; changed here without "
    "it, two threads can interleave and lose or corrupt an update",
    (
        "take the same lock around the mutation (`with <lock>:`)",
        "or, if this runs before the object is shared or with the lock already held, say so "
        "in the name (`_locked`) or in a waiver",
        waiver_way(Topic.CONCURRENCY),
    ),
)
_BUILDERS = frozenset(
    {
        "__init__",
        "__new__",
        "__post_init__",
        "__del__",
        "__setstate__",
        "__init_subclass__",
        "setUp",
        "setUpClass",
        "tearDown",
        "tearDownClass",
    }
)
_MODULE = "<module>"


def locked_statements(
    fn: pyast.FunctionNode, locks: frozenset[str]
) -> Iterator[tuple[ast.stmt, str | None]]:
    """Every statement of a function with the lock it runs under (its text), or None: inside
    a lock-like `with`, or after `<lock>.acquire()` in the same block."""

    def block(stmts: list[ast.stmt], held: str | None) -> Iterator[tuple[ast.stmt, str | None]]:
        for stmt in stmts:
            yield stmt, held
            if isinstance(stmt, NESTED):
                continue
            inner = held
            if isinstance(stmt, ast.With | ast.AsyncWith):
                for item in stmt.items:
                    if is_lock(item.context_expr, locks):
                        inner = pyast.unparse(item.context_expr)
            for name in ("body", "orelse", "finalbody"):
                yield from block(getattr(stmt, name, []), inner)
            for clause in getattr(stmt, "handlers", []) + getattr(stmt, "cases", []):
                yield from block(clause.body, inner)
            taken = _acquired(stmt, locks)
            if taken is not None:
                held = taken

    yield from block(fn.body, None)


def _acquired(stmt: ast.stmt, locks: frozenset[str]) -> str | None:
    if (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Attribute)
        and stmt.value.func.attr == "acquire"
        and is_lock(stmt.value.func.value, locks)
    ):
        return pyast.unparse(stmt.value.func.value)
    return None


def _owners(
    funcs: dict[str, pyast.Function], tree: ast.Module
) -> dict[str, list[tuple[pyast.Function, frozenset[str]]]]:
    """Functions grouped by what they share: the methods of each class (sharing `self`),
    and the module's functions (sharing its globals); each with the names it may share
    (for a module function, less the names it binds itself: see `_shared`)."""
    classes = {name for name in _class_names(tree)}
    module_names = _module_names(tree)
    found: dict[str, list[tuple[pyast.Function, frozenset[str]]]] = {}
    for qualname, fn in funcs.items():
        owner, _, _ = qualname.rpartition(".")
        if owner in classes:
            args = fn.node.args.posonlyargs + fn.node.args.args
            if args:
                found.setdefault(owner, []).append((fn, frozenset({args[0].arg})))
        elif not owner:
            found.setdefault(_MODULE, []).append((fn, module_names))
    return found


def _class_names(tree: ast.Module) -> Iterator[str]:
    stack: list[tuple[list[ast.stmt], str]] = [(tree.body, "")]
    while stack:
        body, prefix = stack.pop()
        for stmt in body:
            if isinstance(stmt, ast.ClassDef):
                yield prefix + stmt.name
                stack.append((stmt.body, f"{prefix}{stmt.name}."))


def _module_names(tree: ast.Module) -> frozenset[str]:
    names: set[str] = set()
    for stmt in tree.body:
        targets: list[ast.expr] = []
        if isinstance(stmt, ast.Assign):
            targets = list(stmt.targets)
        elif isinstance(stmt, ast.AnnAssign):
            targets = [stmt.target]
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return frozenset(names)


def _local_names(fn: pyast.FunctionNode) -> set[str]:
    """Names a function binds itself, unless it declares them global."""
    declared = {
        name
        for node in pyast.walk_within(fn)
        if isinstance(node, ast.Global)
        for name in node.names
    }
    stored = {
        n.id
        for n in pyast.walk_within(fn)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    args = fn.args
    params = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    return (stored | params) - declared


def _shared(owner: str, fn: pyast.Function, names: frozenset[str]) -> frozenset[str]:
    """What one member shares: `self` for a method; the module's names it does not bind
    itself for a module function (worked out only for the functions that need it)."""
    return frozenset(names - _local_names(fn.node)) if owner == _MODULE else names


def _normal(key: str, receiver: frozenset[str]) -> str:
    """`slf._items` and `self._items` name the same state."""
    head, dot, rest = key.partition(".")
    return f"self.{rest}" if dot and head in receiver else key


def unlocked_mutations(
    change: FileChange,
    new_funcs: dict[str, pyast.Function],
    old_funcs: dict[str, pyast.Function],
    new_tree: ast.Module,
    locks: Locks,
    taken: set[int],
) -> Iterator[Finding]:
    text = (change.new_text or "").lower()
    if not any(word in text for word in ("lock", "mutex", "sem", "cond", "cv")):
        return  # no lock anywhere in the file: no state it guards
    touched = [
        fn
        for fn in new_funcs.values()
        if isinstance(fn.node, ast.FunctionDef) and change.touches(fn.start_line, fn.end_line)
    ]
    if not touched:
        return
    touched_ids = {id(fn.node) for fn in touched}
    for owner, members in _owners(new_funcs, new_tree).items():
        if not any(id(fn.node) in touched_ids for fn, _ in members):
            continue
        yield from _owner_findings(change, owner, members, old_funcs, locks, touched_ids, taken)


def _owner_findings(
    change: FileChange,
    owner: str,
    members: list[tuple[pyast.Function, frozenset[str]]],
    old_funcs: dict[str, pyast.Function],
    locks: Locks,
    touched: set[int],
    taken: set[int],
) -> Iterator[Finding]:
    held_for: dict[str, tuple[str, str]] = {}  # state -> (lock, the function holding it)
    under_lock: set[str] = set()  # methods called with a lock held
    statements: dict[int, list[tuple[ast.stmt, str | None]]] = {}
    for fn, names in members:
        ordered = list(locked_statements(fn.node, locks.new))
        statements[id(fn.node)] = ordered
        shared = _shared(owner, fn, names) if any(h for _, h in ordered) else names
        for stmt, held in ordered:
            if held is None:
                continue
            for call in ast.walk(stmt):
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
                    under_lock.add(call.func.attr)
                elif isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
                    under_lock.add(call.func.id)
            if hasattr(stmt, "body"):
                continue
            key = mutated(stmt, shared)
            if key is not None and fn.node.name not in _BUILDERS:
                held_for.setdefault(_normal(key, shared), (held, pyast.symbol_of(fn.qualname)))
    if not held_for:
        return
    called_unlocked = _called_unlocked(members, statements)
    for fn, names in members:
        name = fn.node.name
        if id(fn.node) not in touched or not isinstance(fn.node, ast.FunctionDef):
            continue
        shared = _shared(owner, fn, names)
        if name in _BUILDERS or name.endswith(("_locked", "_unlocked", "_nolock")):
            continue
        if name in under_lock and name not in called_unlocked:
            continue  # a helper every caller runs with the lock held
        before = _unlocked_before(old_funcs.get(fn.qualname), shared, locks)
        found: list[tuple[ast.stmt, str]] = []
        for stmt, held in statements[id(fn.node)]:
            if held is not None or hasattr(stmt, "body") or stmt.lineno not in change.added_lines:
                continue
            key = mutated(stmt, shared)
            state = _normal(key, shared) if key is not None else None
            if key is None or state not in held_for or stmt.lineno in taken:
                continue
            text = pyast.unparse(stmt)
            if before[text] > 0:
                before[text] -= 1
                continue
            found.append((stmt, key))
        if found:
            yield _unlocked_finding(change, owner, fn, found, held_for, shared)


def _unlocked_finding(
    change: FileChange,
    owner: str,
    fn: pyast.Function,
    found: list[tuple[ast.stmt, str]],
    held_for: dict[str, tuple[str, str]],
    shared: frozenset[str],
) -> Finding:
    """One finding per function, at its first unlocked mutation, naming every state."""
    first, key = found[0]
    lock, holder = held_for[_normal(key, shared)]
    states = ", ".join(f"`{k}`" for k in dict.fromkeys(k for _, k in found))
    where = "module-level" if owner == _MODULE else "shared"
    start, end = pyast.span(first)
    return UNLOCKED_MUTATION.finding(
        path=change.path,
        lines=(start, end),
        claim=(
            f"`{pyast.symbol_of(fn.qualname)}` mutates {where} {states} without holding "
            f"`{lock}`, which `{holder}` holds while changing it; threads calling both can "
            "interleave"
        ),
        evidence="\n".join(change.new_lines(*pyast.span(stmt)) for stmt, _ in found),
        symbol=pyast.symbol_of(fn.qualname),
    )


def _called_unlocked(
    members: list[tuple[pyast.Function, frozenset[str]]],
    statements: dict[int, list[tuple[ast.stmt, str | None]]],
) -> set[str]:
    """Names of functions some statement calls with no lock held."""
    found: set[str] = set()
    for fn, _ in members:
        for stmt, held in statements[id(fn.node)]:
            if held is not None or hasattr(stmt, "body"):
                continue
            for call in ast.walk(stmt):
                if isinstance(call, ast.Call):
                    func = call.func
                    if isinstance(func, ast.Attribute):
                        found.add(func.attr)
                    elif isinstance(func, ast.Name):
                        found.add(func.id)
    return found


def _unlocked_before(
    fn: pyast.Function | None, shared: frozenset[str], locks: Locks
) -> Counter[str]:
    """The unlocked mutations the old version of a function already made, by text."""
    if fn is None:
        return Counter()
    return Counter(
        pyast.unparse(stmt)
        for stmt, held in locked_statements(fn.node, locks.old)
        if held is None and not hasattr(stmt, "body") and mutated(stmt, shared) is not None
    )
