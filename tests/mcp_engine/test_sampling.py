"""A server's sampling request (``mcp_engine/sampling.py``) against the real
server-everything, over stdio and streamable HTTP, through the ChatHandler:
approved, it is a nested ``sampling`` call whose answer reaches the server's
tool result; refused, the server hears that the user declined and the turn
goes on; asked outside a call, it is refused. While the user decides, the
call is not idle."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import mcp_types as types
import pytest

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.approval import ApprovalManager, approval_key
from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.chat_handler import ChatHandler
from desktop_agent.core.history_items import UserMessage
from desktop_agent.core.session import SessionManager
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.mcp_engine import McpConfig, McpEngine, ServerConfig
from desktop_agent.mcp_engine.client_hooks import ClientHooks
from desktop_agent.mcp_engine.sampling import DECLINED, SampledAnswer, SamplingRequest, sampling_hook
from desktop_agent.testing import everything
from desktop_agent.testing.bus_reader import BusReader, unstamped
from desktop_agent.testing.json_dict import JSONDict
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.scripted_replies import text_reply, tool_reply
from tests.mcp_engine.conftest import IdleClock, RunningServer

pytestmark = [pytest.mark.integration, pytest.mark.npm]

SID = "s1"
TOOL = "trigger-sampling-request"
ASKED = f"Resource {TOOL} context: say hi"


class Model:
    """The app's model as the services layer lends it: records what it was asked."""

    def __init__(self) -> None:
        self.asked: list[SamplingRequest] = []

    async def __call__(self, request: SamplingRequest) -> SampledAnswer:
        self.asked.append(request)
        return SampledAnswer("Hi from the model.", "scripted-model", "endTurn")


Answer = Callable[[ApprovalManager, str], None]
SESSIONS: list[SessionManager] = []
"""The running turn's session manager (an answer that interrupts uses it)."""


def approve(approvals: ApprovalManager, key: str) -> None:
    approvals.respond(key, True)


def reject(approvals: ApprovalManager, key: str) -> None:
    approvals.respond(key, False)


async def run_turn(server: ServerConfig, answer: Answer, model: Model) -> list[JSONDict]:
    engine = McpEngine(McpConfig(servers=(server,)), hooks=ClientHooks(sample=sampling_hook(model)))
    try:
        assert await engine.start() == []
        approvals, sessions = ApprovalManager(), SessionManager()
        SESSIONS[:] = [sessions]
        llm = ScriptedLLM([
            text_reply("Ok.<need_tool>"), tool_reply(TOOL, {"prompt": "say hi", "maxTokens": 42}), text_reply("Done."),
        ])
        router = ToolRouter([], [engine.shared_source()])
        handler = ChatHandler(AgentClient(llm, router, system_prompt=None), approvals, sessions)
        bus = SessionMessageBus(SID)
        reader = BusReader(bus)
        sessions.start(SID)
        turn = asyncio.create_task(handler.handle_chat(SID, bus, [UserMessage("go")]))
        async with asyncio.timeout(30):
            while True:
                message = (await reader.get()).message
                if message.type == "tool_call" and message.state == "approval_required":
                    assert message.task_id is not None
                    nested = message.parent_tool_call_id is not None
                    (answer if nested else approve)(approvals, approval_key(SID, message.task_id))
                if message.type == "turn_end":
                    break
            await turn
    finally:
        await engine.aclose()
    messages = [unstamped(item) for item in reader.items]  # read after the servers stopped: nothing came late
    assert [m["type"] for m in messages][-1] == "turn_end"  # nothing after it, whatever happened
    return messages


def the_tools_result(messages: list[JSONDict]) -> str:
    [result] = [m for m in messages if m["type"] == "tool_call" and m["state"] == "result"
                and m["tool_name"] == TOOL]
    return str(result["result"])


def assert_answered(messages: list[JSONDict], model: Model, server: str) -> None:
    args = {"server": server, "messages": [{"role": "user", "text": ASKED}], "max_tokens": 42}
    nested = [(m["state"], m["tool_name"], m["arguments"]) for m in messages if m.get("parent_tool_call_id")]
    assert nested == [(state, "sampling", args) for state in ("start", "approval_required", "executing", "result")]
    [request] = model.asked
    assert request.system_prompt == "You are a helpful test server."
    assert (request.max_tokens, request.temperature) == (42, 0.7)
    text = the_tools_result(messages)
    result = json.loads(text[text.index("{"):])
    assert result == {"role": "assistant", "content": {"type": "text", "text": "Hi from the model."},
                      "model": "scripted-model", "stopReason": "endTurn"}


async def test_an_approved_request_over_stdio_is_answered_by_the_model() -> None:
    model = Model()
    messages = await run_turn(everything.everything_stdio("everything"), approve, model)
    assert_answered(messages, model, "everything")


async def test_an_approved_request_over_streamable_http_is_answered_by_the_model(
    everything_http: RunningServer,
) -> None:
    model = Model()
    server = ServerConfig(name="remote", transport="http", url=everything_http.url)
    messages = await run_turn(server, approve, model)
    assert_answered(messages, model, "remote")


async def test_a_rejected_request_tells_the_server_the_user_declined_and_the_turn_goes_on() -> None:
    model = Model()
    messages = await run_turn(everything.everything_stdio("everything"), reject, model)

    assert model.asked == []
    nested = [m["type"] for m in messages if m.get("parent_tool_call_id")]
    assert nested == ["tool_call", "tool_call", "tool_rejected"]
    assert DECLINED in the_tools_result(messages)
    assert [m["text"] for m in messages if m["type"] == "text"] == ["Ok.", "Done."]


async def test_a_request_outside_a_call_is_refused(caplog: pytest.LogCaptureFixture) -> None:
    model = Model()
    hook = sampling_hook(model)
    params = types.CreateMessageRequestParams(
        messages=[types.SamplingMessage(role="user", content=types.TextContent(type="text", text="hi"))],
        max_tokens=5,
    )
    answer = await hook("everything", params, None)
    assert isinstance(answer, types.ErrorData)
    assert "only while one of this server's tools runs" in answer.message
    assert model.asked == []
    assert ['mcp server "everything" asked for sampling outside a tool call; refused'] == [
        r.getMessage() for r in caplog.records if r.name == "desktop_agent.mcp_engine.sampling"
    ]


async def test_the_call_is_not_idle_while_the_user_decides(idle_clock: IdleClock) -> None:
    model = Model()

    def approve_after_the_idle_timeout(approvals: ApprovalManager, key: str) -> None:
        idle_clock.clock.advance(120)  # twice the call's idle timeout passes while the card waits
        approvals.respond(key, True)

    server = everything.everything_stdio("everything", timeout_s=60.0)
    messages = await run_turn(server, approve_after_the_idle_timeout, model)
    assert "Hi from the model." in the_tools_result(messages)


async def test_an_interrupt_while_the_card_waits_ends_the_request_then_the_call() -> None:
    model = Model()

    def interrupt(_approvals: ApprovalManager, _key: str) -> None:
        SESSIONS[0].cancel(SID, "user")

    messages = await run_turn(everything.everything_stdio("everything"), interrupt, model)

    assert model.asked == []
    rejected = [(m["tool_name"], m["reason"]) for m in messages if m["type"] == "tool_rejected"]
    assert rejected == [
        ("sampling", "The turn was interrupted before this tool call ran."),
        (TOOL, "The tool call was interrupted by the user."),
    ]
    assert [m["type"] for m in messages][-2:] == ["interrupted", "turn_end"]
