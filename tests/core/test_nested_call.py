"""A request made on behalf of a running call (a server's sampling request,
``core/nested_call.py``): approved like a tool call through the ChatHandler,
refused without ending the turn, ended before its call on an interrupt."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.approval import ApprovalManager, approval_key
from desktop_agent.core.audit import ApprovalRecord
from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.chat_handler import ChatHandler
from desktop_agent.core.history_items import UserMessage
from desktop_agent.core.json_types import JSONObject
from desktop_agent.core.nested_call import NestedCallHost
from desktop_agent.core.ports import ToolContext, ToolResult, ToolSpec
from desktop_agent.core.session import SessionManager
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.testing.bus_reader import BusReader, unstamped
from desktop_agent.testing.json_dict import JSONDict
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.scripted_replies import text_reply, tool_reply

SID = "s1"
ASK: JSONObject = {"server": "everything", "messages": [{"role": "user", "text": "hi"}], "max_tokens": 10}


class Asking:
    """A tool whose run asks, on its own behalf, for a ``sampling`` call."""

    def __init__(self, answer: Callable[[], Any] | None = None) -> None:
        self.got: list[ToolResult | None] = []
        self.started = asyncio.Event()
        self._answer = answer

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec("asking", "Asks.", skip_approval=True)

    async def run(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        host = getattr(ctx, "nested_calls", None)
        assert isinstance(host, NestedCallHost)

        async def work() -> ToolResult:
            self.started.set()
            if self._answer is not None:
                await self._answer()
            return ToolResult("the model says hi")

        got = await host.run("sampling", dict(ASK), work, server="everything")
        self.got.append(got)
        return ToolResult("asked: " + (got.text if got is not None else "declined"))


class Records:
    def __init__(self) -> None:
        self.records: list[ApprovalRecord] = []

    def record(self, entry: ApprovalRecord) -> None:
        self.records.append(entry)


async def run_turn(
    tool: Asking, answer: Callable[[ApprovalManager, SessionManager, str], None]
) -> tuple[list[JSONDict], list[ApprovalRecord]]:
    audit = Records()
    approvals, sessions = ApprovalManager(audit=audit), SessionManager()
    llm = ScriptedLLM([text_reply("Ok.<need_tool>"), tool_reply("asking", {}), text_reply("Done.")])
    handler = ChatHandler(AgentClient(llm, ToolRouter([tool]), system_prompt=None), approvals, sessions)
    bus = SessionMessageBus(SID)
    reader = BusReader(bus)
    sessions.start(SID)
    turn = asyncio.create_task(handler.handle_chat(SID, bus, [UserMessage("go")]))
    async with asyncio.timeout(5):
        while True:
            message = (await reader.get()).message
            if message.type == "tool_call" and message.state == "approval_required":
                assert message.task_id is not None
                answer(approvals, sessions, approval_key(SID, message.task_id))
            if message.type == "turn_end":
                break
        await turn
    assert approvals.pending_keys() == []
    return [unstamped(item) for item in reader.items], audit.records


def nested(messages: list[JSONDict]) -> list[JSONDict]:
    return [m for m in messages if m.get("parent_tool_call_id")]


async def test_an_approved_request_is_a_nested_tool_call_from_start_to_result() -> None:
    tool = Asking()

    def approve(approvals: ApprovalManager, _sessions: SessionManager, key: str) -> None:
        approvals.respond(key, True)

    messages, records = await run_turn(tool, approve)

    sid = "call_1-sampling-1"
    assert nested(messages) == [
        {"type": "tool_call", "state": "start", "tool_call_id": sid, "tool_name": "sampling", "arguments": ASK,
         "parent_tool_call_id": "call_1"},
        {"type": "tool_call", "state": "approval_required", "tool_call_id": sid, "tool_name": "sampling",
         "arguments": ASK, "task_id": "call_1.sampling1", "parent_tool_call_id": "call_1"},
        {"type": "tool_call", "state": "executing", "tool_call_id": sid, "tool_name": "sampling", "arguments": ASK,
         "parent_tool_call_id": "call_1"},
        {"type": "tool_call", "state": "result", "tool_call_id": sid, "tool_name": "sampling", "arguments": ASK,
         "result": "the model says hi", "is_error": False, "parent_tool_call_id": "call_1"},
    ]
    results = [m["result"] for m in messages if m["type"] == "tool_call" and m["state"] == "result"]
    assert results == ["the model says hi", "asked: the model says hi"]
    assert [(r.tool_name, r.server, r.decision, r.parent_tool_call_ids) for r in records] == [
        ("sampling", "everything", "approved", ("call_1",))
    ]


async def test_a_rejected_request_fails_alone_and_the_turn_goes_on() -> None:
    tool = Asking()

    def reject(approvals: ApprovalManager, sessions: SessionManager, key: str) -> None:
        keeps = approvals.keeps_turn(key)
        approvals.respond(key, False)
        if not keeps:  # what Conversation does for a front end's Reject
            sessions.cancel(SID, "rejected")

    messages, records = await run_turn(tool, reject)

    assert tool.got == [None]
    assert [m["type"] for m in nested(messages)] == ["tool_call", "tool_call", "tool_rejected"]
    assert nested(messages)[-1]["reason"] == "The user rejected this tool call."
    assert [m["text"] for m in messages if m["type"] == "text"] == ["Ok.", "Done."]
    assert not [m for m in messages if m["type"] == "interrupted"]
    assert [r.decision for r in records] == ["rejected"]


async def test_an_interrupt_while_the_request_is_answered_ends_it_before_its_call() -> None:
    never = asyncio.Event()
    tool = Asking(answer=never.wait)
    seen: dict[str, SessionManager] = {}

    def approve_then_interrupt(approvals: ApprovalManager, sessions: SessionManager, key: str) -> None:
        approvals.respond(key, True)
        seen["sessions"] = sessions

    async def interrupt_when_started() -> None:
        await tool.started.wait()
        seen["sessions"].cancel(SID, "user")

    stopper = asyncio.create_task(interrupt_when_started())
    messages, _records = await run_turn(tool, approve_then_interrupt)
    await stopper

    rejected = [(m["tool_call_id"], m["reason"]) for m in messages if m["type"] == "tool_rejected"]
    assert rejected == [
        ("call_1-sampling-1", "The tool call was interrupted by the user."),
        ("call_1", "The tool call was interrupted by the user."),
    ]
    assert [m["type"] for m in messages][-2:] == ["interrupted", "turn_end"]
    assert not [m for m in nested(messages) if m.get("state") == "result"]


async def test_an_interrupt_while_the_request_waits_for_approval_ends_it_then_its_call() -> None:
    tool = Asking()

    def interrupt(approvals: ApprovalManager, sessions: SessionManager, key: str) -> None:
        sessions.cancel(SID, "user")

    messages, records = await run_turn(tool, interrupt)

    rejected = [(m["tool_call_id"], m["reason"]) for m in messages if m["type"] == "tool_rejected"]
    assert rejected == [
        ("call_1-sampling-1", "The turn was interrupted before this tool call ran."),
        ("call_1", "The tool call was interrupted by the user."),
    ]
    assert [m["type"] for m in messages][-2:] == ["interrupted", "turn_end"]
    assert [r.decision for r in records] == ["interrupted"]
    assert not tool.started.is_set()
