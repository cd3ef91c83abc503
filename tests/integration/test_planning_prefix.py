"""One turn through the real openai SDK against the scripted server: the
planning request and the tool request share their prompt prefix (the same
``tools``, the same leading messages; contracts §2a), a tool call in the
planning round leads to the tool round, and a server that refuses
``tool_choice: "none"`` gets the old planning request (no tools) from then on."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from contextlib import aclosing
from typing import Any

import pytest

from desktop_agent.core import prompts
from desktop_agent.core.agent import AgentClient
from desktop_agent.core.events import LLMChunk, ToolCallChunk
from desktop_agent.core.history_items import UserMessage
from desktop_agent.core.tool_context import BusToolContext
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.core.wire import PLANNING_WITHOUT_TOOLS, WireProfile
from desktop_agent.llm.openai_provider import OpenAIProvider
from desktop_agent.testing.bus_reader import RecordingBus
from desktop_agent.testing.fake_tools import EchoTool
from desktop_agent.testing.scripted_server import (
    Reply,
    ScriptedLLMServer,
    ToolCallScript,
    text_reply,
    tool_reply,
)

pytestmark = pytest.mark.integration
REFUSAL = "tool_choice 'none' is not supported by this server"


async def turn(provider: OpenAIProvider, tools: Sequence[EchoTool], text: str = "echo x") -> list[LLMChunk]:
    """Every chunk of one turn, each call approved (the generator is iterated directly)."""
    agent = AgentClient(provider, ToolRouter(list(tools)))
    bus = RecordingBus("s1")
    async with asyncio.timeout(10):
        stream = agent.chat_stream([UserMessage(text)], lambda i: BusToolContext(bus, i, "c1"))
        async with aclosing(stream) as chunks:
            return [chunk async for chunk in chunks]


def provider(server: ScriptedLLMServer, **kw: Any) -> OpenAIProvider:
    return OpenAIProvider(base_url=server.base_url, api_key="k", model="scripted", retry_base_delay_s=0.0, **kw)


def called(chunks: Sequence[LLMChunk]) -> list[tuple[str, str]]:
    return [(c.call.name, c.call.state) for c in chunks if isinstance(c, ToolCallChunk)]


async def test_the_planning_and_the_tool_request_share_their_prompt_prefix() -> None:
    echo = EchoTool()
    script = [text_reply("On it.<need_tool>"), tool_reply("echo", {"text": "x"}), text_reply("Done.")]
    async with ScriptedLLMServer(script) as server:
        llm = provider(server)
        try:
            await turn(llm, [echo])
        finally:
            await llm.aclose()
    planning, tool_round, _last = server.requests
    assert planning["tools"] == tool_round["tools"] == [echo.spec.to_openai()]
    assert (planning["tool_choice"], "tool_choice" in tool_round) == ("none", False)
    system, user = planning["messages"]
    assert system == tool_round["messages"][0] and system["content"] == prompts.SYSTEM_PROMPT
    # The planning prompt follows the user's words, where the tool request's next message starts.
    assert tool_round["messages"][1] == {"role": "user", "content": "echo x"}
    assert user["content"].startswith("echo x\n\n") and prompts.PLANNING_PROMPT in user["content"]


async def test_a_call_in_the_planning_round_leads_to_the_tool_round() -> None:
    echo = EchoTool()
    anyway = Reply(text="Sure.<no_tool>", tool_calls=(ToolCallScript("echo", '{"text": "now"}'),))
    script = [anyway, tool_reply("echo", {"text": "x"}), text_reply("Done.")]
    async with ScriptedLLMServer(script) as server:
        llm = provider(server)
        try:
            chunks = await turn(llm, [echo])
        finally:
            await llm.aclose()
    assert called(chunks) == [("echo", s) for s in ("start", "approval_required", "executing", "result")]
    assert echo.calls == [{"text": "x"}]
    assert [r.get("tool_choice") for r in server.requests] == ["none", None, None]


def refuse_tool_choice(request: Mapping[str, Any]) -> str | None:
    return REFUSAL if "tool_choice" in request else None


async def test_a_server_that_refuses_tool_choice_gets_the_old_planning_request_from_then_on() -> None:
    echo = EchoTool()
    adopted: list[tuple[str, WireProfile]] = []
    one = [text_reply("On it.<need_tool>"), tool_reply("echo", {"text": "x"}), text_reply("Done.")]
    async with ScriptedLLMServer([*one, *one], refuse=refuse_tool_choice) as server:
        llm = provider(server, on_wire_profile=lambda url, profile: adopted.append((url, profile)))
        try:
            first = await turn(llm, [echo])
            second = await turn(llm, [echo])
        finally:
            await llm.aclose()
    assert called(first) == called(second) != []
    assert [("tools" in r, r.get("tool_choice")) for r in server.requests] == [
        (True, "none"),  # refused
        (False, None), (True, None), (True, None),
        (False, None), (True, None), (True, None),  # the next turn asks in the old form at once
    ]
    assert adopted == [(server.base_url.rstrip("/"), PLANNING_WITHOUT_TOOLS)]
    assert llm.wire_profile is PLANNING_WITHOUT_TOOLS


async def test_a_server_that_is_down_is_not_taken_for_one_that_refuses_tool_choice() -> None:
    async with ScriptedLLMServer([Reply(status=503, error_message="overloaded")]) as server:
        llm = provider(server, max_retries=0)
        try:
            chunks = await turn(llm, [EchoTool()])
        finally:
            await llm.aclose()
    assert len(server.requests) == 1
    assert [getattr(c, "code", None) for c in chunks] == ["server"]
    assert llm.wire_profile.name == "standard"
