"""ScriptedLLM: the scripted model without HTTP, for core unit tests.

It plays the same :class:`Reply` scripts as the scripted server, producing
the deltas the OpenAI provider would, so core tests need no socket.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from typing import Any

from desktop_agent.core.messages import LLMErrorCode
from desktop_agent.core.ports import LLMDelta, LLMError, TextDelta, ToolCallDelta, ToolChoice
from desktop_agent.testing.scripted_replies import Reply, Script, stream_deltas

_STATUS_CODES: dict[int, LLMErrorCode] = {401: "auth", 403: "auth", 429: "rate_limit", 400: "bad_request", 404: "bad_request"}


class ScriptedLLM:
    """An in-process :class:`~desktop_agent.core.ports.LLMProvider`."""

    def __init__(self, script: Script, *, model: str = "scripted") -> None:
        self._script = script
        self._model = model
        self._index = 0
        self._ids = itertools.count(1)
        self.requests: list[dict[str, Any]] = []
        self.limits: tuple[int | None, float] | None = None
        """What :meth:`set_limits` was last told (None: never)."""
        self.streaming = asyncio.Event()
        """Set once a reply has started streaming (for interrupt tests)."""

    @property
    def model(self) -> str:
        return self._model

    @property
    def is_demo(self) -> bool:
        return False

    def set_limits(self, max_tokens: int | None, timeout_s: float) -> None:
        """No requests to limit; the last limits are kept for tests to read."""
        self.limits = (max_tokens, timeout_s)

    def _next(self, request: dict[str, Any]) -> Reply:
        if callable(self._script):
            return self._script(request)
        if self._index >= len(self._script):
            raise LLMError("scripted model: script exhausted", "server")
        reply = self._script[self._index]
        self._index += 1
        return reply

    async def stream(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: ToolChoice = "auto",
        on_finish: Callable[[str], None] | None = None,
    ) -> AsyncGenerator[LLMDelta, None]:
        request = {
            "messages": [dict(m) for m in messages],
            "tools": list(tools) if tools else None,
            "tool_choice": tool_choice,
        }
        self.requests.append(request)
        reply = self._next(request)
        if reply.status != 200:
            code = _STATUS_CODES.get(reply.status, "server")
            raise LLMError(f"{reply.status} from scripted model: {reply.error_message}", code)
        ids = [
            None if c.id is None else (f"call_{next(self._ids)}" if c.id == "auto" else c.id)
            for c in reply.tool_calls
        ]
        sent = 0
        for kind, delta, finish in stream_deltas(reply, ids):
            if kind == "content":
                if reply.drop_after is not None and sent >= reply.drop_after:
                    raise LLMError("the stream from the scripted model was cut off mid-reply", "stream_dropped")
                sent += 1
                if reply.delay_s:
                    await asyncio.sleep(reply.delay_s)
                self.streaming.set()
                yield TextDelta(delta["content"])
            elif kind == "tool":
                for tc in delta["tool_calls"]:
                    fn = tc.get("function", {})
                    yield ToolCallDelta(
                        index=tc["index"],
                        id=tc.get("id"),
                        name=fn.get("name") or None,
                        arguments=fn.get("arguments", ""),
                    )
            elif kind == "finish" and reply.hang:
                self.streaming.set()
                await asyncio.Event().wait()  # until cancelled
            elif kind == "finish" and on_finish is not None and finish is not None:
                on_finish(finish)
