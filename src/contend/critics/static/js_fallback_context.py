"""Where a JS/TS handler sits, and whether the failure it catches still reaches someone.

Pure questions about a `catch` clause or a `.catch(...)` call and the code around it, asked by
`js_silent_fallback` before it calls a handler a silent fallback. Each answers one family of
handlers that look like swallows on their own but are not, read with the code around them:

- the nested catch that only protects decorating an error the outer catch rethrows;
- feature-detection probes (an immediately invoked probe whose value is the answer, or a
  boolean flag the try block sets);
- the try-each-candidate loop whose function throws after the last candidate;
- a detached `p.catch(() => {})` that only marks `p` handled while `p` itself is awaited,
  returned or passed on elsewhere;
- (`js_fallback_absence`: a made-up `null`, or a value a catch left unset, checked right
  after on a path that throws or reports);
- `await p.catch(noop)` whose value is discarded: it only waits for settlement.
- `p.then((r) => (text = r), noop)` whose stored value the function reads only in its
  `catch` clauses, to decorate the error it reports there.

- the boolean probe `try { ...; return true } catch { return false }`, whose answer is the
  outcome of the attempt.

And one question the other way: `resolve(<made-up value>)` in a Promise executor's catch is a
return of that value (`resolve_names`).
"""

from __future__ import annotations

import re

from tree_sitter import Node

from contend.critics.static.treesitter import (
    FUNCTION_TYPES,
    callee_name,
    is_default_value,
    named_children,
    text_of,
    unwrap,
    walk,
    walk_within,
)

_LOOPS = frozenset({"for_statement", "for_in_statement", "while_statement", "do_statement"})
_LOG_RECEIVERS = frozenset({"console", "logger", "log", "logging", "Sentry"})


def is_logging_call(node: Node) -> bool:
    node = unwrap(node)
    if node.type == "await_expression":
        inner = named_children(node)
        node = unwrap(inner[0]) if inner else node
    if node.type != "call_expression":
        return False
    name = callee_name(node)
    return bool(name) and name.split(".")[0] in _LOG_RECEIVERS


def _enclosing_function(node: Node) -> Node | None:
    parent = node.parent
    while parent is not None and parent.type not in FUNCTION_TYPES:
        parent = parent.parent
    return parent


def _scope(node: Node) -> Node:
    """The function around `node`, or the program."""
    function = _enclosing_function(node)
    if function is not None:
        return function
    root = node
    while root.parent is not None:
        root = root.parent
    return root


# How far from a handler its context is looked for: "right after the loop", "declared just
# before": a bounded look keeps a file of ten thousand top-level statements linear.
_NEARBY = 4


def following_siblings(node: Node, limit: int = _NEARBY) -> list[Node]:
    found: list[Node] = []
    sibling = node.next_named_sibling
    while sibling is not None and len(found) < limit:
        if sibling.type != "comment":
            found.append(sibling)
        sibling = sibling.next_named_sibling
    return found


def preceding_siblings(node: Node, limit: int = _NEARBY) -> list[Node]:
    found: list[Node] = []
    sibling = node.prev_named_sibling
    while sibling is not None and len(found) < limit:
        if sibling.type != "comment":
            found.append(sibling)
        sibling = sibling.prev_named_sibling
    return found


def _holds_throw(nodes: list[Node]) -> bool:
    return any(
        node.type == "throw_statement"
        or any(inner.type == "throw_statement" for inner in walk_within(node))
        for node in nodes
    )


# --- catch clauses ---------------------------------------------------------------------------


def decorates_rethrown_error(catch_clause: Node) -> bool:
    """`catch (err) { try { err.message = ... } catch {} throw err }`: the inner handler only
    protects the decoration; the outer catch still rethrows the failure."""
    try_statement = catch_clause.parent
    block = try_statement.parent if try_statement is not None else None
    outer = block.parent if block is not None else None
    if outer is None or outer.type != "catch_clause" or try_statement is None:
        return False
    return _holds_throw(following_siblings(try_statement))


def is_feature_probe(catch_clause: Node) -> bool:
    """A probe whose answer is whether the attempt worked:
    `const supportsX = !!(() => { try { return probe() } catch {} })()`, or a boolean flag
    declared before the try and set inside it (`let passive = false; try { ... passive = true
    ... } catch {}`)."""
    try_statement = catch_clause.parent
    if try_statement is None:
        return False
    function = _enclosing_function(try_statement)
    if function is not None and _is_iife(function):
        body = function.child_by_field_name("body")
        statements = named_children(body) if body is not None else []
        rest = [s for s in statements if s.id != try_statement.id]
        if all(s.type == "return_statement" for s in rest) and len(rest) <= 1:
            return True
    block = try_statement.child_by_field_name("body")
    if block is None:
        return False
    flags = _boolean_assignments(block)
    if not flags:
        return False
    return any(_declares_boolean(stmt, flags) for stmt in preceding_siblings(try_statement))


def _is_iife(function: Node) -> bool:
    node = function
    while node.parent is not None and node.parent.type == "parenthesized_expression":
        node = node.parent
    call = node.parent
    return (
        call is not None
        and call.type == "call_expression"
        and (callee := call.child_by_field_name("function")) is not None
        and callee.id == node.id
    )


def _boolean_assignments(block: Node) -> set[str]:
    found: set[str] = set()
    for node in walk(block):
        if node.type != "assignment_expression":
            continue
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is not None and right is not None and unwrap(right).type in ("true", "false"):
            found.add(text_of(left))
    return found


def _declares_boolean(statement: Node, names: set[str]) -> bool:
    if statement.type not in ("lexical_declaration", "variable_declaration"):
        return False
    for declarator in named_children(statement):
        name = declarator.child_by_field_name("name")
        value = declarator.child_by_field_name("value")
        if (
            name is not None
            and value is not None
            and text_of(name) in names
            and unwrap(value).type in ("true", "false")
        ):
            return True
    return False


# Releasing something: its failure leaves nothing the caller needs, and code that cleans up
# conventionally carries on ("best effort"). Writes and deletes of data are not in the list.
_CLEANUP = frozenset(
    {
        "close",
        "destroy",
        "return",
        "abort",
        "cancel",
        "dispose",
        "unref",
        "removeListener",
        "removeAllListeners",
        "off",
        "release",
        "end",
        "terminate",
        "kill",
        "disconnect",
        "unsubscribe",
        "clearTimeout",
        "clearInterval",
        "unpipe",
        "stop",
    }
)


def _is_cleanup_call(node: Node) -> bool:
    node = unwrap(node)
    if node.type == "await_expression":
        inner = named_children(node)
        node = unwrap(inner[0]) if inner else node
    return node.type == "call_expression" and callee_name(node).rsplit(".", 1)[-1] in _CLEANUP


def guards_only_cleanup(catch_clause: Node) -> bool:
    """`try { stream.destroy() } catch {}`: every guarded statement releases something."""
    try_statement = catch_clause.parent
    block = try_statement.child_by_field_name("body") if try_statement is not None else None
    statements = named_children(block) if block is not None else []
    return bool(statements) and all(
        statement.type == "expression_statement"
        and (exprs := named_children(statement))
        and _is_cleanup_call(exprs[0])
        for statement in statements
    )


def tries_each_candidate(catch_clause: Node) -> bool:
    """`for (const c of candidates) { try { return load(c) } catch {} } throw ...`: each
    failure moves on to the next candidate, and the last one's failure is thrown."""
    node = catch_clause.parent
    while node is not None and node.type not in _LOOPS and node.type not in FUNCTION_TYPES:
        node = node.parent
    if node is None or node.type not in _LOOPS:
        return False
    return _holds_throw(following_siblings(node))


def resolve_names(node: Node) -> frozenset[str]:
    """Names of the `resolve` parameters of the Promise executors around `node`."""
    names: set[str] = set()
    parent = node.parent
    while parent is not None:
        if parent.type in FUNCTION_TYPES:
            arguments = parent.parent
            creation = arguments.parent if arguments is not None else None
            constructor = (
                creation.child_by_field_name("constructor") if creation is not None else None
            )
            if (
                creation is not None
                and creation.type == "new_expression"
                and constructor is not None
                and text_of(constructor) == "Promise"
            ):
                parameters = parent.child_by_field_name("parameters")
                params = named_children(parameters) if parameters is not None else []
                if not params:
                    single = parent.child_by_field_name("parameter")
                    params = [single] if single is not None else []
                if params:
                    names.add(text_of(params[0]).split(":")[0].strip())
        parent = parent.parent
    return frozenset(names)


def resolves_default(statement: Node, resolvers: frozenset[str]) -> bool | None:
    """For `resolve(x)` in an executor: True when x is made up (or absent), False when it is
    real; None for any other statement."""
    if not resolvers or statement.type != "expression_statement":
        return None
    exprs = named_children(statement)
    call = unwrap(exprs[0]) if exprs else None
    if call is None or call.type != "call_expression" or callee_name(call) not in resolvers:
        return None
    arguments = call.child_by_field_name("arguments")
    args = named_children(arguments) if arguments is not None else []
    return not args or is_default_value(args[0])


# --- promise .catch calls --------------------------------------------------------------------


def climb(node: Node) -> Node:
    """Past parentheses and TypeScript wrappers to the node whose parent uses the value."""
    while node.parent is not None and node.parent.type in (
        "parenthesized_expression",
        "as_expression",
        "non_null_expression",
        "satisfies_expression",
    ):
        node = node.parent
    return node


def only_waits_for_settlement(call: Node) -> bool:
    """`await p.catch(noop);` as a statement: the value is thrown away, the await only lets
    `p` settle (its failure is someone else's to report)."""
    node = climb(call)
    parent = node.parent
    if parent is None or parent.type != "await_expression":
        return False
    holder = climb(parent).parent
    return holder is not None and holder.type == "expression_statement"


class ConsumedIndex:
    """Per file: the texts of the values each scope consumes (awaits, returns, yields, passes
    on, or chains `.then` / `.finally` to), built once per scope so asking about many
    handlers stays linear."""

    def __init__(self) -> None:
        self._by_scope: dict[int, set[str]] = {}

    def consumed(self, scope: Node) -> set[str]:
        found = self._by_scope.get(scope.id)
        if found is None:
            found = set()
            for node in walk(scope):
                if node.type in ("identifier", "member_expression") and _consumes(node):
                    found.add("".join(text_of(node).split()))
            self._by_scope[scope.id] = found
        return found


def _consumes(node: Node) -> bool:
    user = climb(node).parent
    if user is None:
        return False
    if user.type in ("await_expression", "return_statement", "yield_expression", "array"):
        return True
    if user.type == "arguments":
        return True
    if user.type == "member_expression" and user.start_byte == node.start_byte:
        prop = user.child_by_field_name("property")
        return prop is not None and text_of(prop) in ("then", "finally")
    return False


def marks_handled_while_awaited(call: Node, receiver: Node | None, index: ConsumedIndex) -> bool:
    """`p.catch(() => {});` as a statement, with `p` awaited, returned or passed on elsewhere
    in the same function: the handler only keeps an early rejection from being reported as
    unhandled; the real consumer still sees the failure."""
    holder = climb(call).parent
    if (
        holder is not None
        and holder.type == "unary_expression"
        and text_of(holder).startswith("void")
    ):
        holder = climb(holder).parent  # `void p.catch(...)`: marked fire-and-forget
    if receiver is None or holder is None or holder.type != "expression_statement":
        return False
    receiver = _chain_base(unwrap(receiver))
    if receiver.type not in ("identifier", "member_expression"):
        return False
    return "".join(text_of(receiver).split()) in index.consumed(_scope(call))


def _chain_base(node: Node) -> Node:
    """`p.finally(f).then(g)` -> `p`: a promise derived from `p` by chaining."""
    while node.type == "call_expression":
        function = node.child_by_field_name("function")
        if function is None or function.type != "member_expression":
            break
        prop = function.child_by_field_name("property")
        obj = function.child_by_field_name("object")
        if prop is None or obj is None or text_of(prop) not in ("finally", "then"):
            break
        node = unwrap(obj)
    return node


def in_assertion_free_test_code(handler: Node, test_code: bool) -> bool:
    """In test code a caught rejection is usually the expected one; the handler hides a
    failure only when the guarded code asserts something (then an assertion is swallowed)."""
    if not test_code:
        return False
    if handler.type == "catch_clause":
        try_statement = handler.parent
        guarded = try_statement.child_by_field_name("body") if try_statement else None
    else:
        guarded = handler
    if guarded is None:
        return True
    text = text_of(guarded)
    return not ("expect(" in text or "assert." in text or "assert(" in text)


# An option whose name asks for failures to be ignored: the user opted in to the fallback.
_OPT_IN = re.compile(r"ignore|silent|suppress|lenient|tolerat|bestEffort|best_effort", re.I)


def behind_an_opt_in(handler: Node) -> bool:
    """The handler sits in the branch of an `if` whose condition names an option to ignore
    failures (`if (options.ignoreInvalidCookies) { p.catch(() => {}) }`): the user asked for
    the fallback by name."""
    child, parent = handler, handler.parent
    while parent is not None and (
        parent.type not in FUNCTION_TYPES
        # a callback passed on the spot (`promises.map(p => p.catch(...))`) runs there
        or (parent.parent is not None and parent.parent.type == "arguments")
    ):
        if parent.type == "if_statement":
            consequence = parent.child_by_field_name("consequence")
            condition = parent.child_by_field_name("condition")
            if (
                consequence is not None
                and consequence.id == child.id
                and condition is not None
                and _OPT_IN.search(text_of(condition))
            ):
                return True
        child, parent = parent, parent.parent
    return False


def _assigned_local(callback: Node) -> str | None:
    """`(r) => (text = r)` (or a block holding only that): the name the value is stored in."""
    callback = unwrap(callback)
    if callback.type not in FUNCTION_TYPES:
        return None
    body = callback.child_by_field_name("body")
    if body is not None and body.type == "statement_block":
        statements = named_children(body)
        if len(statements) != 1 or statements[0].type != "expression_statement":
            return None
        inner = named_children(statements[0])
        body = inner[0] if inner else None
    body = unwrap(body) if body is not None else None
    if body is None or body.type != "assignment_expression":
        return None
    left = body.child_by_field_name("left")
    return text_of(left) if left is not None and left.type == "identifier" else None


def only_decorates_an_error(call: Node) -> bool:
    """`clone.text().then((r) => (text = r), () => {})`: the value the handler gives up on
    is only stored in a local that the function reads nowhere but in its `catch` clauses —
    to decorate the error it reports there (`data: text` of a PARSING_ERROR). A failed read
    leaves the decoration at its initial value; no result a caller sees is made up."""
    function = call.child_by_field_name("function")
    arguments = call.child_by_field_name("arguments")
    prop = function.child_by_field_name("property") if function is not None else None
    args = named_children(arguments) if arguments is not None else []
    if prop is None or text_of(prop) != "then" or len(args) != 2:
        return False
    name = _assigned_local(args[0])
    scope = _enclosing_function(call)
    if name is None or scope is None:
        return False
    reads = [
        node
        for node in walk(scope)
        if node.type == "identifier"
        and text_of(node) == name
        and not _is_written(node)
        and not _declares(node)
    ]
    return bool(reads) and all(_inside_catch(node, scope) for node in reads)


def _is_written(node: Node) -> bool:
    parent = node.parent
    return (
        parent is not None
        and parent.type in ("assignment_expression", "augmented_assignment_expression")
        and parent.child_by_field_name("left") == node
    )


def _declares(node: Node) -> bool:
    parent = node.parent
    return (
        parent is not None
        and parent.type == "variable_declarator"
        and parent.child_by_field_name("name") == node
    )


def _inside_catch(node: Node, scope: Node) -> bool:
    parent = node.parent
    while parent is not None and parent != scope:
        if parent.type == "catch_clause":
            return True
        parent = parent.parent
    return False


def is_boolean_probe(catch_clause: Node, body: Node) -> bool:
    """`try { ...; return true } catch { return false }`: a predicate whose answer is the
    outcome of the attempt (isValidJson), not a fallback that hides a failure."""
    statements = named_children(body)
    if len(statements) != 1 or statements[0].type != "return_statement":
        return False
    values = named_children(statements[0])
    if not values or unwrap(values[0]).type not in ("true", "false"):
        return False
    try_statement = catch_clause.parent
    block = try_statement.child_by_field_name("body") if try_statement is not None else None
    if block is None:
        return False
    opposite = "true" if unwrap(values[0]).type == "false" else "false"
    return any(
        node.type == "return_statement"
        and (returned := named_children(node))
        and (unwrap(returned[0]).type == opposite or _is_boolean_expression(returned[0]))
        for node in walk_within(block)
    )


_COMPARISONS = frozenset({"===", "!==", "==", "!=", "<", ">", "<=", ">=", "instanceof", "in"})


def _is_boolean_expression(node: Node) -> bool:
    """`a !== b`, `!x`, `x instanceof Y`: the try answers a yes/no question."""
    node = unwrap(node)
    if node.type == "unary_expression":
        return text_of(node).startswith("!")
    if node.type == "binary_expression":
        operator = node.child_by_field_name("operator")
        return operator is not None and text_of(operator) in _COMPARISONS
    return False
