"""The one registry of backends: every name a critic, oracle or proposer spec may use.

    entry-point group "contend.backends"
        claude = "contend.builtin_backends:CLAUDE"     contend's own, listed in BUILTIN
        mine   = "contend_mine:BACKEND"                 an installed package's

A backend is declared by a `Backend`: its name, the roles it may fill, its argument rule
and its factory. contend's own backends are entry points listed in BUILTIN (as llm lists
its default plugins beside the ones it finds installed), an installed package's come from
its metadata, and both are loaded and checked by the same `_load`. Configuration validates
every spec against this registry (`parse_spec`): a plugin's name is accepted wherever a
built-in's is, and an error names the registry's choices. `agents.registry` builds the
agent from the declaration's factory and checks its capabilities against the role.

Owns the names, roles, argument rules and where factories live. It imports no backend
module: a factory named "module:attr" is imported when an agent is built, and an installed
package's declaration when its name is used or the choices are listed. A package that
declares a built-in's name, or a name another package declares too, is an error when that
name is used, never a silent pick.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Literal

from contend.errors import UserError

Role = Literal["critic", "oracle", "proposer"]
ROLES: tuple[Role, ...] = ("critic", "oracle", "proposer")
ArgRule = Literal["required", "optional", "forbidden"]
# agent: the factory builds an Agent; static: the deterministic critics (no agent, no
# model); author: no agent at all, the author answers (across invocations, or a person).
Kind = Literal["agent", "static", "author"]
GROUP = "contend.backends"

_NAME = re.compile(r"[a-z][a-z0-9-]*")
_SPEC = re.compile(r"(?P<name>[a-z][a-z0-9-]*)(?::(?P<arg>.*))?", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Backend:
    """One backend, as a package declares it (the value its entry point names).

    `factory` builds the agent: a callable `(arg, BackendContext) -> Agent`, or the
    "module:attr" of one, imported only when an agent is built; None for the kinds that
    build none. `check_arg` raises ValueError for an argument the backend cannot take.
    """

    name: str
    roles: frozenset[Role]
    factory: str | Callable[..., Any] | None = None
    arg: ArgRule = "optional"
    arg_hint: str = ""  # what the argument is, for "needs ..." messages
    check_arg: Callable[[str], object] | None = None
    kind: Kind = "agent"
    summary: str = ""

    def load_factory(self) -> Callable[..., Any]:
        """The factory itself; UserError when it cannot be imported."""
        if self.factory is None:
            raise UserError(f"backend {self.name!r} builds no agent (it is {self.kind!r})")
        if not isinstance(self.factory, str):
            return self.factory
        module_name, _, attr = self.factory.partition(":")
        try:
            loaded: Callable[..., Any] = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise UserError(
                f"backend {self.name!r}: cannot load its factory {self.factory} ({exc})"
            ) from exc
        return loaded


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """One parsed spec: `codex:gpt-5` is AgentSpec("codex", "gpt-5")."""

    backend: str
    arg: str | None

    def __str__(self) -> str:
        return self.backend if self.arg is None else f"{self.backend}:{self.arg}"


BUILTIN_NAMES = {
    "static": "STATIC",
    "claude": "CLAUDE",
    "claude-fork": "CLAUDE_FORK",
    "codex": "CODEX",
    "codex-fork": "CODEX_FORK",
    "gemini": "GEMINI",
    "openai": "OPENAI",
    "anthropic": "ANTHROPIC",
    "ollama": "OLLAMA",
    "openai-compatible": "OPENAI_COMPATIBLE",
    "scripted": "SCRIPTED",
    "none": "NONE",
    "human": "HUMAN",
}
BUILTIN: tuple[EntryPoint, ...] = tuple(
    EntryPoint(name, f"contend.builtin_backends:{attr}", GROUP)
    for name, attr in BUILTIN_NAMES.items()
)
BUILTIN_SOURCE = "contend"


def split_spec(text: str) -> AgentSpec:
    """`name[:arg]` split at the first ':'; ValueError when `text` is not of that form."""
    match = _SPEC.fullmatch(text)
    if match is None:
        raise ValueError(f"{text!r} is not of the form name[:arg]")
    return AgentSpec(match["name"], match["arg"])


def parse_spec(text: str, role: Role) -> tuple[AgentSpec, Backend]:
    """Check `text` as a spec for `role` against the registry; ValueError says what is
    wrong and names the registry's choices (UserError for a broken installed package)."""
    try:
        spec = split_spec(text)
    except ValueError:
        valid = ", ".join(choices(role))
        raise ValueError(
            f"{role} spec {text!r} is not of the form name[:arg]; backends: {valid}"
        ) from None
    backend = lookup(spec.backend)
    if backend is None or role not in backend.roles:
        raise ValueError(_not_for_role(text, spec.backend, role, backend))
    arg = spec.arg
    if arg is not None and not arg.strip():
        raise ValueError(f"{role} spec {text!r} has an empty argument after ':'")
    if arg is not None and arg != arg.strip():
        raise ValueError(f"{role} spec {text!r} has spaces around its argument")
    if arg is None and backend.arg == "required":
        raise ValueError(f"{role} spec {text!r} needs {backend.arg_hint or 'an argument'}")
    if arg is not None and backend.arg == "forbidden":
        raise ValueError(f"{role} spec {text!r}: {spec.backend!r} takes no argument")
    if arg is not None and backend.check_arg is not None:
        try:
            backend.check_arg(arg)
        except ValueError as exc:
            raise ValueError(f"{role} spec {text!r}: {exc}") from None
    return spec, backend


def _not_for_role(text: str, name: str, role: Role, backend: Backend | None) -> str:
    # An oracle is a critic called at deadlock: its backends are named as critic backends.
    word, where = ("critic", " for the oracle") if role == "oracle" else (role, "")
    message = (
        f"unknown {word} backend {name!r}{where} in {text!r}; "
        f"valid backends: {', '.join(choices(role))}"
    )
    if backend is not None:
        message += f" ({name!r} can only be: {', '.join(r for r in ROLES if r in backend.roles)})"
    return message


def lookup(name: str) -> Backend | None:
    """The backend called `name`, contend's own or an installed package's; None when no
    backend has that name. UserError when the name is ambiguous or its package broken."""
    clash = _clashes().get(name)
    if clash is not None:
        raise UserError(clash)
    builtin = _builtins().get(name)
    if builtin is not None:
        return builtin
    entry = _installed().get(name)
    return None if entry is None else _load(entry, _source(entry))


def choices(role: Role) -> list[str]:
    """Every backend name usable as `role`, sorted (installed packages' included)."""
    found = [b for b in _builtins().values() if role in b.roles]
    found += [_load(ep, _source(ep)) for ep in _installed().values()]
    return sorted({b.name for b in found if role in b.roles})


def builtin_names(role: Role) -> frozenset[str]:
    """The names of contend's own backends usable as `role`."""
    return frozenset(b.name for b in _builtins().values() if role in b.roles)


def refresh() -> None:
    """Forget what was discovered, so packages installed since are found (tests do this)."""
    for cached in (_builtins, _discovered, _load):
        cached.cache_clear()


@functools.cache
def _builtins() -> dict[str, Backend]:
    return {ep.name: _load(ep, BUILTIN_SOURCE) for ep in BUILTIN}


@functools.cache
def _discovered() -> tuple[dict[str, EntryPoint], dict[str, str]]:
    """Installed packages' entry points by name, and the names that are ambiguous."""
    by_name: dict[str, list[EntryPoint]] = {}
    for ep in entry_points(group=GROUP):
        by_name.setdefault(ep.name, []).append(ep)
    installed: dict[str, EntryPoint] = {}
    clashes: dict[str, str] = {}
    for name, eps in by_name.items():
        sources = ", ".join(sorted(_source(ep) for ep in eps))
        if name in BUILTIN_NAMES:
            clashes[name] = (
                f"backend {name!r} is contend's own, and the installed package(s) {sources} "
                f"declare it too (entry-point group {GROUP}): uninstall them or rename "
                "their entry point"
            )
        elif len(eps) > 1:
            clashes[name] = (
                f"backend {name!r} is declared by more than one installed package "
                f"({sources}): uninstall all but one"
            )
        else:
            installed[name] = eps[0]
    return installed, clashes


def _installed() -> dict[str, EntryPoint]:
    return _discovered()[0]


def _clashes() -> dict[str, str]:
    return _discovered()[1]


def _source(ep: EntryPoint) -> str:
    dist = ep.dist
    return dist.name if dist is not None else f"<entry point {ep.value}>"


@functools.cache
def _load(ep: EntryPoint, source: str) -> Backend:
    """Load one entry point and check its declaration — the same path for contend's own
    backends and installed packages'."""
    where = f"backend {ep.name!r} of {source} ({ep.value})"
    if _NAME.fullmatch(ep.name) is None:
        raise UserError(f"{where}: the name must be lowercase letters, digits and '-'")
    try:
        declared = ep.load()
    except Exception as exc:  # a plugin's import may fail in any way; say which and why
        raise UserError(f"{where} could not be loaded: {type(exc).__name__}: {exc}") from exc
    if not isinstance(declared, Backend):
        raise UserError(f"{where} is a {type(declared).__name__}, not a contend.backends.Backend")
    if declared.name != ep.name:
        raise UserError(f"{where} declares the name {declared.name!r}")
    unknown = set(declared.roles) - set(ROLES)
    if not declared.roles or unknown:
        raise UserError(f"{where} has roles {sorted(declared.roles)}; roles are {ROLES}")
    if declared.kind == "agent" and declared.factory is None:
        raise UserError(f"{where} builds agents but names no factory")
    return declared
