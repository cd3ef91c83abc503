"""A server's ``sampling/createMessage`` (its tool asks the app's model a
question), answered only when the user approves (contracts §10).

The request becomes a nested ``tool_call`` named ``sampling`` of the running
call (``core/nested_call.py``: the same approval, card, timeout and audit as
a tool), with ``arguments`` ``{server, messages, max_tokens}``: each message
as its role and its text, an image or sound as a ``[image: mime]``
placeholder. Approved, ``answer`` (the services layer: the app's model,
without tools) writes the reply, returned to the server as a
``CreateMessageResult``; refused, timed out or interrupted, the server gets
an error saying the user declined. A request that belongs to no running call
(a server asking on its own) is refused with a log line: there is no card to
show it on.

What this module does not know: the model, the settings, the window.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import mcp_types as types

from desktop_agent.core.json_types import JSONObject
from desktop_agent.core.nested_call import NestedCallHost
from desktop_agent.core.ports import LLMError, ToolResult
from desktop_agent.mcp_engine.client_hooks import CallOrigin, SampleHook

log = logging.getLogger(__name__)

SAMPLING = "sampling"
"""The nested call's ``tool_name``."""
USER_DECLINED = -1
"""The error code the MCP specification's examples give a refused sampling request."""
DECLINED = "the user declined the sampling request"
NO_CALL = "sampling is answered only while one of this server's tools runs (there is no card to ask on)"


@dataclass(frozen=True, slots=True)
class SampledMessage:
    role: str
    text: str


@dataclass(frozen=True, slots=True)
class SamplingRequest:
    """What a server asks the model, in the terms the app uses."""

    server: str
    messages: tuple[SampledMessage, ...]
    max_tokens: int
    system_prompt: str | None = None
    temperature: float | None = None
    stop_sequences: tuple[str, ...] = ()

    def arguments(self) -> JSONObject:
        """The nested call's ``arguments`` (what the card and the audit show)."""
        return {
            "server": self.server,
            "messages": [{"role": m.role, "text": m.text} for m in self.messages],
            "max_tokens": self.max_tokens,
        }

    def llm_messages(self) -> list[JSONObject]:
        """The chat messages the model reads: the server's system prompt, then its messages."""
        head: list[JSONObject] = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
        return head + [{"role": m.role, "content": m.text} for m in self.messages]


@dataclass(frozen=True, slots=True)
class SampledAnswer:
    text: str
    model: str
    stop_reason: str | None = "endTurn"


SamplingAnswerer = Callable[[SamplingRequest], Awaitable[SampledAnswer]]
"""Writes the model's reply; raises :class:`LLMError` when the model fails."""


@dataclass(frozen=True, slots=True)
class SamplingView:
    """A ``sampling`` call's arguments as the card and the terminal show them."""

    server: str
    messages: tuple[SampledMessage, ...]
    max_tokens: int | None


def sampling_view(tool_name: str, parent_tool_call_id: str | None, arguments: object) -> SamplingView | None:
    """What a nested ``sampling`` call asks; None for any other call (a
    tool of that name called by the model has no parent)."""
    if tool_name != SAMPLING or parent_tool_call_id is None or not isinstance(arguments, dict):
        return None
    messages = arguments.get("messages")
    shown = tuple(
        SampledMessage(str(m.get("role", "")), str(m.get("text", "")))
        for m in (messages if isinstance(messages, list) else []) if isinstance(m, dict)
    )
    limit = arguments.get("max_tokens")
    return SamplingView(
        str(arguments.get("server", "?")), shown, limit if isinstance(limit, int) and not isinstance(limit, bool) else None
    )


def request_from(server: str, params: types.CreateMessageRequestParams) -> SamplingRequest:
    return SamplingRequest(
        server=server,
        messages=tuple(SampledMessage(m.role, _text(m.content)) for m in params.messages),
        max_tokens=params.max_tokens,
        system_prompt=params.system_prompt or None,
        temperature=params.temperature,
        stop_sequences=tuple(params.stop_sequences or ()),
    )


def _text(content: object) -> str:
    items = content if isinstance(content, list) else [content]
    parts: list[str] = []
    for item in items:
        if isinstance(item, types.TextContent):
            parts.append(item.text)
        elif isinstance(item, types.ImageContent | types.AudioContent):
            kind = "image" if isinstance(item, types.ImageContent) else "audio"
            parts.append(f"[{kind}: {item.mime_type}]")
        else:
            parts.append(f"[{getattr(item, 'type', 'content')}]")
    return "\n".join(parts)


def sampling_hook(answer: SamplingAnswerer) -> SampleHook:
    """The engine's ``hooks.sample``: ask the user, then ``answer``."""

    async def sample(
        server: str, params: types.CreateMessageRequestParams, origin: CallOrigin | None
    ) -> types.CreateMessageResult | types.ErrorData:
        host = getattr(origin.ctx, "nested_calls", None) if origin is not None else None
        if not isinstance(host, NestedCallHost):
            log.warning('mcp server "%s" asked for sampling outside a tool call; refused', server)
            return types.ErrorData(code=types.INVALID_REQUEST, message=NO_CALL)
        request = request_from(server, params)
        answers: list[SampledAnswer] = []

        async def work() -> ToolResult:
            try:
                reply = await answer(request)
            except LLMError as exc:
                return ToolResult(exc.message, is_error=True)
            answers.append(reply)
            return ToolResult(reply.text)

        result = await host.run(SAMPLING, request.arguments(), work, server=server)
        if result is None:
            return types.ErrorData(code=USER_DECLINED, message=DECLINED)
        if not answers:
            return types.ErrorData(code=types.INTERNAL_ERROR, message=result.text)
        reply = answers[0]
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=reply.text),
            model=reply.model,
            stop_reason=reply.stop_reason,
        )

    return sample
