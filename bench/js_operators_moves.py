"""Benign controls of moved and renamed code for the JS/TS synthetic corpus (issues 8 and 17).

What real commits do that a line- or name-based critic reads as a removal or an addition:

- `rename_guarded_param`: a parameter that an `if (...) throw` guard checks is renamed
  throughout its function (the guard is still there, under the new name);
- `port_to_ts`: a `.js` source file that holds a guard or a `catch` ported to `.ts` (the
  `.js` file deleted, the `.ts` file added with its parameters typed `unknown`);
- `throw_into_helper`: an `if (...) throw` guard on a parameter moved, with its throw, into a
  new validating function of the file that is called where the guard stood.

Each keeps every check and handler of the original; contend must report nothing.
"""

from __future__ import annotations

from tree_sitter import Node

from contend.critics.static import treesitter
from contend.critics.static.treesitter import named_children, text_of, walk
from js_operators import Edit, Source, param_guards, splice

_PORTABLE = (".js", ".mjs", ".cjs")


def _guards(src: Source) -> list[tuple[Node, Node, list[str]]]:
    """(guard, function, simple parameter names) of every `if (...) throw` guard without an
    `else` whose condition reads a parameter of its function."""
    found = []
    for node, fn, params, condition in param_guards(src):
        names = _simple_params(params)
        if names is None:
            continue
        if set(names) & {text_of(n) for n in walk(condition) if n.type == "identifier"}:
            found.append((node, fn, names))
    return found


def _simple_params(params: Node) -> list[str] | None:
    """The parameter names when every parameter is a plain identifier (typed or not)."""
    names = []
    for param in named_children(params):
        if param.type == "identifier":
            names.append(text_of(param))
            continue
        if param.type in ("required_parameter", "optional_parameter"):
            pattern = param.child_by_field_name("pattern")
            if pattern is not None and pattern.type == "identifier":
                names.append(text_of(pattern))
                continue
        if param.type == "comment":
            continue
        return None
    return names


def bn_rename_guarded_param(src: Source) -> list[Edit]:
    """`function f(opts) { if (!opts) throw ... }` -> the same with `opts` renamed."""
    edits = []
    seen: set[int] = set()
    for guard, fn, names in _guards(src):
        condition = guard.child_by_field_name("condition")
        assert condition is not None
        used = {text_of(n) for n in walk(condition) if n.type == "identifier"}
        name = next(n for n in names if n in used)
        if fn.start_byte in seen or f"{name}Value" in text_of(fn):
            continue
        seen.add(fn.start_byte)
        # Every binding and use of the name inside the function (shorthand `{name}` keys
        # would change an object's shape: such functions are left alone).
        spots = [n for n in [fn, *walk(fn)] if n.type == "identifier" and text_of(n) == name]
        if any(n.type == "shorthand_property_identifier" and text_of(n) == name for n in walk(fn)):
            continue
        data = src.data
        out = bytearray()
        last = 0
        for spot in sorted(spots, key=lambda n: n.start_byte):
            out += data[last : spot.start_byte] + f"{name}Value".encode()
            last = spot.end_byte
        out += data[last:]
        new_text = out.decode("utf-8")
        first = src.text[: fn.start_byte].count("\n") + 1
        last_line = first + text_of(fn).count("\n")
        changed = {
            i + 1
            for i, (a, b) in enumerate(
                zip(src.text.split("\n"), new_text.split("\n"), strict=False)
            )
            if a != b and first <= i + 1 <= last_line
        }
        edits.append(Edit(new_text, frozenset(changed)))
    return edits


def bn_port_to_ts(src: Source) -> list[Edit]:
    """`lib/x.js` deleted and `lib/x.ts` added: the same code, parameters typed `unknown`."""
    if not src.path.endswith(_PORTABLE) or src.is_test:
        return []
    if not _guards(src) and not any(n.type == "catch_clause" for n in walk(src.root)):
        return []
    typed = _typed_params(src)
    ported_path = src.path.rsplit(".", 1)[0] + ".ts"
    root = treesitter.parse(typed, "typescript")
    if treesitter.syntax_error_line(root) is not None:
        return []  # JSX or a form TypeScript reads differently: not a plain port
    return [Edit(typed, frozenset(), extra=((ported_path, None, typed),), deleted=True)]


def _typed_params(src: Source) -> str:
    data = src.data
    spots = []
    for node in walk(src.root):
        if node.type != "formal_parameters":
            continue
        for param in named_children(node):
            if param.type == "identifier":
                spots.append(param.end_byte)
    out = bytearray()
    last = 0
    for at in sorted(spots):
        out += data[last:at] + b": unknown"
        last = at
    out += data[last:]
    return out.decode("utf-8")


def bn_throw_into_helper(src: Source) -> list[Edit]:
    """An `if (...) throw` guard moved, with its throw, into `function assertValidN(...)`
    appended to the file; the function calls it where the guard stood."""
    edits = []
    for number, (guard, _fn, names) in enumerate(_guards(src)):
        line_start = src.data.rfind(b"\n", 0, guard.start_byte) + 1
        line_end = src.data.find(b"\n", guard.end_byte)
        if line_end == -1 or src.data[line_start : guard.start_byte].strip():
            continue
        if any(n.type in ("this", "super") for n in walk(guard)) or "await" in text_of(guard):
            continue
        if any(n.type == "return_statement" for n in walk(guard)):
            continue
        pad = src.data[line_start : guard.start_byte].decode("utf-8")
        helper = f"assertValid{number}"
        args = ", ".join(names)
        call = f"{pad}{helper}({args});\n"
        edit = splice(src, line_start, line_end + 1, call)
        body = text_of(guard).replace("\n" + pad, "\n  ")
        new_text = edit.new_text.rstrip("\n") + f"\n\nfunction {helper}({args}) {{\n  {body}\n}}\n"
        added = new_text.count("\n") - edit.new_text.rstrip("\n").count("\n")
        total = new_text.count("\n")
        tail = frozenset(range(total - added + 1, total + 1))
        edits.append(Edit(new_text, edit.lines | tail))
    return edits


BENIGN_MOVES = {
    "rename_guarded_param": (bn_rename_guarded_param, False),
    "port_to_ts": (bn_port_to_ts, False),
    "throw_into_helper": (bn_throw_into_helper, False),
}
