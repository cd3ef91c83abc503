"""SubAgentRunner through the ChatHandler (contracts §9): the whole bus of a
delegated task, nested contexts that cannot nest again, and the router's
approval rule kept for nested calls."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from desktop_agent.core import prompts
from desktop_agent.core.agent import AgentClient
from desktop_agent.core.approval import ApprovalManager, approval_key
from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.chat_handler import ChatHandler
from desktop_agent.core.history_items import UserMessage
from desktop_agent.core.ports import ToolContext, ToolResult, ToolSpec
from desktop_agent.core.session import SessionManager
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.testing.bus_reader import BusReader, unstamped
from desktop_agent.testing.fake_tools import EchoTool
from desktop_agent.testing.json_dict import JSONDict
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.scripted_replies import text_reply, tool_reply
from desktop_agent.tools.sub_agent import SubAgentTool

SID = "s1"


class ContextProbe:
    """Records whether its context could start a sub-agent."""

    def __init__(self) -> None:
        self.could_nest: list[bool] = []

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec("probe", "Probe.", skip_approval=True)

    async def run(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        self.could_nest.append(getattr(ctx, "sub_agents", None) is not None)
        return ToolResult("probed")


async def run_turn(llm: ScriptedLLM, router: ToolRouter) -> list[JSONDict]:
    approvals, sessions = ApprovalManager(), SessionManager()
    handler = ChatHandler(AgentClient(llm, router, system_prompt=None), approvals, sessions)
    bus = SessionMessageBus(SID)
    reader = BusReader(bus)
    sessions.start(SID)
    turn = asyncio.create_task(handler.handle_chat(SID, bus, [UserMessage("go")]))
    async with asyncio.timeout(5):
        while True:
            item = await reader.get()
            message = item.message
            if message.type == "tool_call" and message.state == "approval_required":
                assert message.task_id is not None
                assert approvals.respond(approval_key(SID, message.task_id), True)
            if message.type == "turn_end":
                break
        await turn
    assert approvals.pending_keys() == []
    return [unstamped(item) for item in reader.items]


async def test_a_delegated_task_on_the_bus_from_approval_to_answer() -> None:
    echo = EchoTool()
    sub_agent = SubAgentTool()
    router = ToolRouter([echo, sub_agent])
    sub_agent.bind(router)
    args = {"task": "Echo hi.", "allowed_tools": ["echo"]}
    llm = ScriptedLLM([
        text_reply("Ok.<need_tool>"), tool_reply("sub_agent", args),
        tool_reply("echo", {"text": "hi"}, text="Echoing."), text_reply("It said hi."), text_reply("Done."),
    ])

    messages = await run_turn(llm, router)

    tools = [m for m in messages if m["type"].startswith("tool")]
    assert tools == [
        {"type": "tool_call", "state": "start", "tool_call_id": "call_1", "tool_name": "sub_agent", "arguments": None},
        {"type": "tool_call", "state": "approval_required", "tool_call_id": "call_1", "tool_name": "sub_agent",
         "arguments": args, "task_id": "t1"},
        {"type": "tool_call", "state": "executing", "tool_call_id": "call_1", "tool_name": "sub_agent",
         "arguments": args},
        {"type": "tool_progress", "tool_call_id": "call_1", "progress": 1, "total": None, "message": "Echoing.",
         "eta_s": None},
        {"type": "tool_call", "state": "start", "tool_call_id": "call_2", "tool_name": "echo", "arguments": None,
         "parent_tool_call_id": "call_1"},
        {"type": "tool_call", "state": "approval_required", "tool_call_id": "call_2", "tool_name": "echo",
         "arguments": {"text": "hi"}, "task_id": "call_1.t1", "parent_tool_call_id": "call_1"},
        {"type": "tool_call", "state": "executing", "tool_call_id": "call_2", "tool_name": "echo",
         "arguments": {"text": "hi"}, "parent_tool_call_id": "call_1"},
        {"type": "tool_call", "state": "result", "tool_call_id": "call_2", "tool_name": "echo",
         "arguments": {"text": "hi"}, "result": "echo: hi", "is_error": False, "parent_tool_call_id": "call_1"},
        {"type": "tool_progress", "tool_call_id": "call_1", "progress": 2, "total": None, "message": "It said hi.",
         "eta_s": None},
        {"type": "tool_call", "state": "result", "tool_call_id": "call_1", "tool_name": "sub_agent",
         "arguments": args, "result": "It said hi.", "is_error": False},
    ]
    assert [m["text"] for m in messages if m["type"] == "text"] == ["Ok.", "Done."]
    assert llm.requests[2]["messages"][0] == {"role": "system", "content": prompts.SUB_AGENT_PROMPT}
    assert llm.requests[3]["messages"][-1] == {"role": "tool", "tool_call_id": "call_2", "content": "echo: hi"}


async def test_nested_calls_cannot_nest_again_and_keep_the_approval_rule() -> None:
    probe = ContextProbe()
    sub_agent = SubAgentTool()
    router = ToolRouter([probe, sub_agent])
    sub_agent.bind(router)
    llm = ScriptedLLM([
        text_reply("Ok.<need_tool>"), tool_reply("probe", {}),
        tool_reply("sub_agent", {"task": "Probe.", "allowed_tools": ["probe"]}),
        tool_reply("probe", {}), text_reply("Probed."), text_reply("Done."),
    ])

    messages = await run_turn(llm, router)

    assert probe.could_nest == [True, False]  # the main call's context could; the nested one cannot
    nested = [m["state"] for m in messages if m.get("parent_tool_call_id")]
    assert nested == ["start", "executing", "result"]  # skip_approval holds as it does for the main agent


async def test_a_sub_agents_tool_results_are_cut_to_the_main_agents_budget() -> None:
    from desktop_agent.core.budget import Budget, result_cut

    echo = EchoTool()
    sub_agent = SubAgentTool()
    router = ToolRouter([echo, sub_agent])
    sub_agent.bind(router)
    big = "x" * 40_000  # more than a quarter of a 4096-token request, well within the default one
    llm = ScriptedLLM([
        text_reply("Ok.<need_tool>"), tool_reply("sub_agent", {"task": "Echo it.", "allowed_tools": ["echo"]}),
        tool_reply("echo", {"text": big}), text_reply("Echoed."), text_reply("Done."),
    ])
    approvals, sessions = ApprovalManager(), SessionManager()
    agent = AgentClient(llm, router, system_prompt=None, budget=Budget(4096))
    handler = ChatHandler(agent, approvals, sessions)
    bus = SessionMessageBus(SID)
    reader = BusReader(bus)
    sessions.start(SID)
    turn = asyncio.create_task(handler.handle_chat(SID, bus, [UserMessage("go")]))
    async with asyncio.timeout(5):
        while (message := (await reader.get()).message).type != "turn_end":
            if message.type == "tool_call" and message.state == "approval_required":
                assert message.task_id is not None
                approvals.respond(approval_key(SID, message.task_id), True)
        await turn
    nested = [i.message for i in reader.items if i.message.type == "tool_call" and i.message.state == "result"
              and i.message.tool_name == "echo"]
    assert len(nested) == 1 and nested[0].result is not None
    assert len(nested[0].result.encode()) <= Budget(4096).result_bytes
    assert result_cut(nested[0].result) is not None
