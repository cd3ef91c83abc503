"""A sub-agent's MCP tools run on its own instances of their servers
(contracts §9): per-conversation servers with a
temporary profile folder, always removed; nothing outlives the sub-agent."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pytest

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.messages import ToolCallMessage
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.mcp_engine import McpConfig, McpEngine
from desktop_agent.testing.bus_reader import BusReader, unstamped
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.scripted_replies import Reply, text_reply, tool_reply
from desktop_agent.testing.views import NullView
from desktop_agent.tools.sub_agent import SubAgentTool

from .conftest import HANG_SERVER, children, python_server

pytestmark = pytest.mark.integration


class Approver(NullView):
    def __init__(self) -> None:
        self.conv: Conversation | None = None
        self.interrupt_on: str | None = None

    def approval_needed(self, message: ToolCallMessage) -> None:
        assert self.conv is not None and message.task_id is not None
        self.conv.answer_approval(message.task_id, True)

    def tool_event(self, message: object) -> None:
        if (
            isinstance(message, ToolCallMessage)
            and message.parent_tool_call_id
            and message.state == "executing"
            and message.tool_name == self.interrupt_on
        ):
            assert self.conv is not None
            self.conv.interrupt()


def _dirs(name: str) -> list[Path]:
    return sorted(Path(tempfile.gettempdir()).glob(f"desktop-agent-mcp-{name}-*"))


async def _turn(engine: McpEngine, script: Sequence[Reply], view: Approver) -> list[dict[str, object]]:
    sub_agent = SubAgentTool(isolate=engine.isolated_source)
    router = ToolRouter([sub_agent], [engine.shared_source(), engine.conversation_source()])
    sub_agent.bind(router)
    conv = Conversation(AgentClient(ScriptedLLM(script), router, system_prompt=None), conversation_id="conv-A")
    view.conv = conv
    readers: list[BusReader] = []
    async with asyncio.timeout(20):
        await conv.run_turn("go", view, on_bus=lambda bus: readers.append(BusReader(bus)))
    return [unstamped(item) for item in readers[0].items]


def _nested_results(messages: list[dict[str, object]]) -> list[str]:
    return [str(m["result"]) for m in messages if m.get("state") == "result" and m.get("parent_tool_call_id")]


async def test_a_per_conversation_server_gets_a_temporary_profile_removed_afterwards() -> None:
    engine = McpEngine(McpConfig(servers=(python_server("sub-pc", HANG_SERVER, isolation="per_conversation"),)))
    try:
        assert await engine.start() == []
        messages = await _turn(
            engine,
            [text_reply("Ok.<need_tool>"),
             tool_reply("sub_agent", {"task": "where", "allowed_tools": ["sandbox"]}),
             tool_reply("sandbox", {}), text_reply("Found it."), text_reply("Done.")],
            Approver(),
        )
        (folder,) = _nested_results(messages)
        assert folder.startswith(str(Path(tempfile.gettempdir()) / "desktop-agent-mcp-sub-pc-"))
        assert not Path(folder).exists()
        assert _dirs("sub-pc") == []
        assert children(str(HANG_SERVER)) == []
        assert engine.sandboxes.conversation_ids() == []  # the conversation's own sandbox was not used
    finally:
        await engine.aclose()


async def test_a_shared_server_is_a_separate_instance_stopped_afterwards() -> None:
    engine = McpEngine(McpConfig(servers=(python_server("sub-shared", HANG_SERVER),)))
    try:
        assert await engine.start() == []
        (main_pid,) = children(str(HANG_SERVER))
        messages = await _turn(
            engine,
            [text_reply("Ok.<need_tool>"),
             tool_reply("sub_agent", {"task": "pid", "allowed_tools": ["pid"]}),
             tool_reply("pid", {}), text_reply("Got it."), text_reply("Done.")],
            Approver(),
        )
        (sub_pid,) = _nested_results(messages)
        assert int(sub_pid) != main_pid
        assert children(str(HANG_SERVER)) == [main_pid]
    finally:
        await engine.aclose()


async def test_an_interrupt_during_a_nested_mcp_call_stops_the_instance() -> None:
    engine = McpEngine(McpConfig(servers=(python_server("sub-hang", HANG_SERVER, isolation="per_conversation"),)))
    view = Approver()
    view.interrupt_on = "hang"
    try:
        assert await engine.start() == []
        messages = await _turn(
            engine,
            [text_reply("Ok.<need_tool>"),
             tool_reply("sub_agent", {"task": "wait", "allowed_tools": ["hang"]}),
             tool_reply("hang", {}, text="Waiting.")],
            view,
        )
        assert [m["type"] for m in messages[-4:]] == ["tool_rejected", "tool_rejected", "interrupted", "turn_end"]
        assert children(str(HANG_SERVER)) == []
        assert _dirs("sub-hang") == []
    finally:
        await engine.aclose()
