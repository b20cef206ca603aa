"""API models as implementers: `--implementer openai:MODEL | openai-compatible:MODEL |
ollama:MODEL | anthropic:MODEL`.

The backend is built as the registry builds it for a critic (the same configuration,
endpoint, key and price) and then given, for the implementer's requests only, the
read-only repo tools plus two write tools over the slice's worktree:

    write_file(path, content)          create or replace a text file
    replace_in_file(path, old, new)    replace the one occurrence of `old`

Every path goes through `RepoTools.confine`: relative to the worktree root; an absolute
path, `..` out of the root, a symlink that resolves outside it and anything under `.git`
are refused, and the refusal goes back to the model as the tool's error answer. The main
tree's fingerprint (harness/slice.py) still checks every pass.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from contend.agents.api_common import Wire
from contend.agents.api_sdk import SdkAgent, SdkWire
from contend.agents.base import AgentReply, AgentRequest, BackendContext
from contend.agents.repo_tools import (
    TOOL_NAMES,
    RepoTools,
    ToolRefusal,
    ToolResult,
    _arguments,
    _object_schema,
    _str_arg,
)
from contend.errors import UserError

API_IMPLEMENTERS = frozenset({"openai", "openai-compatible", "ollama", "anthropic"})
WRITE_FILE = "write_file"
REPLACE_IN_FILE = "replace_in_file"
WRITE_NOTE = (
    "You may also change files of the worktree with write_file (create or replace a file) "
    "and replace_in_file (replace exactly one occurrence of a text). Paths are relative to "
    "the worktree root; writes outside it are refused."
)
_PATH = {"type": "string", "description": "path relative to the worktree root"}
_WRITE_SPECS: tuple[tuple[str, str, dict[str, Any], list[str]], ...] = (
    (
        WRITE_FILE,
        "Create or replace a text file of the worktree with `content`.",
        {"path": _PATH, "content": {"type": "string"}},
        ["path", "content"],
    ),
    (
        REPLACE_IN_FILE,
        "Replace the one occurrence of `old` in a text file of the worktree with `new`.",
        {"path": _PATH, "old": {"type": "string"}, "new": {"type": "string"}},
        ["path", "old", "new"],
    ),
)


class WriteTools(RepoTools):
    """The read-only repo tools plus the two write tools, all confined to one worktree."""

    names = (*TOOL_NAMES, WRITE_FILE, REPLACE_IN_FILE)

    def call(self, name: str, arguments: str | dict[str, Any]) -> ToolResult:
        if name not in (WRITE_FILE, REPLACE_IN_FILE):
            return super().call(name, arguments)
        try:
            args = _arguments(arguments)
            path = _str_arg(args, "path")
            if name == WRITE_FILE:
                return ToolResult(self.write_file(path, _str_arg(args, "content")))
            return ToolResult(
                self.replace_in_file(path, _str_arg(args, "old"), _str_arg(args, "new"))
            )
        except ToolRefusal as exc:
            return ToolResult(f"error: {exc}", is_error=True)

    def write_file(self, path: str, content: str) -> str:
        target = self._writable(path, content)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
        return f"{path}: wrote {len(content)} characters"

    def replace_in_file(self, path: str, old: str, new: str) -> str:
        if not old:
            raise ToolRefusal("argument 'old' must not be empty")
        target = self.confine(path)
        if not target.is_file():
            raise ToolRefusal(f"{path}: no such file")
        text = target.read_text(encoding="utf-8", errors="strict")
        count = text.count(old)
        if count != 1:
            raise ToolRefusal(f"{path}: `old` occurs {count} times; it must occur exactly once")
        updated = text.replace(old, new)
        self._writable(path, updated)
        target.write_text(updated, encoding="utf-8")
        return f"{path}: replaced 1 occurrence"

    def _writable(self, path: str, content: str) -> Path:
        target = self.confine(path)
        if target.is_dir():
            raise ToolRefusal(f"{path}: is a directory")
        if len(content.encode("utf-8")) > self.max_file_bytes:
            raise ToolRefusal(f"{path}: content over the {self.max_file_bytes}-byte limit")
        return target


def _writing_wire(base: type[SdkWire]) -> type[SdkWire]:
    """`base` (the adapter's wire) with the write tools offered beside the read-only ones."""
    from contend.agents.anthropic_api import SUBMIT, MessagesWire
    from contend.agents.openai_api import ChatWire

    if issubclass(base, ChatWire):

        class WritingChat(base):  # type: ignore[valid-type,misc]
            def first_body(self, request: AgentRequest) -> dict[str, Any]:
                body: dict[str, Any] = super().first_body(request)
                body["tools"] = [
                    *body["tools"],
                    *(
                        {
                            "type": "function",
                            "function": {
                                "name": n,
                                "description": d,
                                "parameters": _object_schema(p, r),
                            },
                        }
                        for n, d, p, r in _WRITE_SPECS
                    ),
                ]
                body["messages"][0]["content"] += "\n\n" + WRITE_NOTE
                return body

        return WritingChat
    if issubclass(base, MessagesWire):

        class WritingMessages(base):  # type: ignore[valid-type,misc]
            def first_body(self, request: AgentRequest) -> dict[str, Any]:
                body: dict[str, Any] = super().first_body(request)
                tools = [t for t in body["tools"] if t["name"] != SUBMIT]
                submit = [t for t in body["tools"] if t["name"] == SUBMIT]
                written = [
                    {"name": n, "description": d, "input_schema": _object_schema(p, r)}
                    for n, d, p, r in _WRITE_SPECS
                ]
                body["tools"] = [*tools, *written, *submit]
                body["system"] += "\n\n" + WRITE_NOTE
                return body

        return WritingMessages
    raise UserError(f"no write tools for the wire {base.__name__}")


class ApiImplementer:
    """An SDK-based API agent that writes the slice's code through WriteTools."""

    def __init__(self, inner: SdkAgent) -> None:
        self.inner = inner
        self.backend: str = inner.backend
        self.model: str = inner.model
        self.family: str = inner.family  # type: ignore[attr-defined]
        self.capabilities = dataclasses.replace(
            inner.capabilities,  # type: ignore[attr-defined]
            read_only_enforced=False,
            can_fix=True,
        )
        # Each adapter's wire class is its Wire (api_common's protocol).
        self._wire = cast(
            "Callable[[Any, Any, str, int], Wire]",
            _writing_wire(inner.wire),  # type: ignore[arg-type]
        )

    async def run(self, request: AgentRequest) -> AgentReply:
        tools = WriteTools(request.worktree, max_file_bytes=self.inner.max_file_bytes)
        return await self.inner.run(request, tools=tools, wire=self._wire)


def api_implementer(spec: str, ctx: BackendContext) -> ApiImplementer:
    """`openai:MODEL` and the like as an implementer; UserError when the spec is not one."""
    from contend.agents import registry

    critic_ctx = dataclasses.replace(ctx, role="critic")
    agent = registry.resolve(spec, critic_ctx)
    if not isinstance(agent, SdkAgent):
        raise UserError(f"{spec!r} is not an API model backend with tools")
    return ApiImplementer(agent)
