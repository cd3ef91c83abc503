"""The whole engine through the real openai SDK against the scripted server
on 127.0.0.1: every path of a turn, and after each one no pending approval,
no running task, no child process, and a well-formed history."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import pytest

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.approval import ApprovalManager
from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.conversation import Conversation, TurnOutcome
from desktop_agent.core.forms import FormManager
from desktop_agent.core.history import check_history
from desktop_agent.core.messages import BusItem, TextMessage, ToolCallMessage, fields_json
from desktop_agent.core.timers import Timers
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.llm.openai_provider import OpenAIProvider
from desktop_agent.storage.history_json import history_json
from desktop_agent.testing.fake_clock import FakeClock
from desktop_agent.testing.procs import live_processes
from desktop_agent.testing.scripted_server import (
    Reply,
    ScriptedLLMServer,
    ToolCallScript,
    text_reply,
    tool_reply,
)
from desktop_agent.testing.views import NullView
from desktop_agent.tools import builtin_tools

pytestmark = pytest.mark.integration
Msg = dict[str, Any]
MARKER = "sleep 47.25"


class View(NullView):
    """Records what the queue shows; answers approvals by ``policy`` (which
    reads the message's JSON form)."""

    def __init__(self, conversation: Conversation, policy: Callable[[Msg], bool | None]) -> None:
        self.conversation = conversation
        self.policy = policy
        self.shown: list[str] = []

    def show_text(self, message: TextMessage) -> None:
        self.shown.append(message.text)

    def approval_needed(self, message: ToolCallMessage) -> None:
        answer = self.policy({"type": message.type, **fields_json(message)})
        if answer is not None and message.task_id is not None:
            asyncio.get_running_loop().call_soon(self.conversation.answer_approval, message.task_id, answer)


@pytest.fixture
async def server() -> AsyncIterator[ScriptedLLMServer]:
    async with ScriptedLLMServer([]) as srv:
        yield srv


class Harness:
    def __init__(
        self, server: ScriptedLLMServer, *, max_steps: int = 10, approval_timeout_s: float = 30,
        timers: Timers | None = None,
    ) -> None:
        self.server = server
        self.provider = OpenAIProvider(base_url=server.base_url, api_key="k", model="scripted",
                                       retry_base_delay_s=0.0)
        self.forms = FormManager()
        self.conversation = Conversation(
            AgentClient(self.provider, ToolRouter(builtin_tools(self.forms)), max_steps=max_steps),
            approval_timeout_s=approval_timeout_s,
            approvals=ApprovalManager(timers=timers),
        )
        self.events: list[Msg] = []
        self.on_event: Callable[[Msg, Harness], None] = lambda m, h: None

    async def turn(self, script: Sequence[Reply], policy: Callable[[Msg], bool | None] = lambda m: True,
                   text: str = "hello") -> TurnOutcome:
        self.server.set_script(list(script))
        self.events = []

        def on_bus(bus: SessionMessageBus) -> None:
            def listen(item: BusItem) -> None:
                message = item.to_json()
                self.events.append(message)
                self.on_event(message, self)
            bus.add_listener(listen)

        async with asyncio.timeout(30):
            outcome = await self.conversation.run_turn(text, View(self.conversation, policy), on_bus=on_bus)
        await self.check_clean()
        return outcome

    async def check_clean(self) -> None:
        assert self.conversation.approvals.pending_keys() == []
        assert self.forms.pending() == []
        assert not self.conversation.busy
        assert live_processes(MARKER) == []
        for _ in range(5):  # let the loop finalise the SDK's closed async generators
            await asyncio.sleep(0)
        others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()
                  and "ScriptedLLMServer" not in repr(t) and "_on_connection" not in repr(t)]
        assert others == [], others
        check_history(self.conversation.history)

    def types(self) -> list[str]:
        return [m["type"] if m["type"] != "tool_call" else f"tool_call:{m['state']}" for m in self.events]

    async def aclose(self) -> None:
        await self.provider.aclose()


@pytest.fixture
async def harness(server: ScriptedLLMServer) -> AsyncIterator[Harness]:
    h = Harness(server)
    yield h
    await h.aclose()


PLAN = text_reply("<voice>Let me do that.</voice><need_tool>")
RUN_DATE = tool_reply("run_command", {"command": "echo it-ran"})


async def test_no_tool_path_two_rounds_and_history(harness: Harness) -> None:
    outcome = await harness.turn([text_reply("Hi there! <no_tool>"), text_reply("How can I help today?")])
    assert outcome.status == "completed"
    assert harness.types() == ["text", "round_end", "text", "round_end", "turn_end"]
    assert history_json(harness.conversation.history) == [
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": "Hi there! "},  # exact characters, the intent tag removed
        {"role": "assistant", "content": "How can I help today?"},
    ]
    # The next turn sends that history (and no intent tag) in its wire form
    # (contracts §2a): the two replies as one message, the planning prompt in
    # the user's message.
    await harness.turn([text_reply("Again. <no_tool>"), text_reply("Sure.")], text="again")
    sent = harness.server.requests[-2]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[2]["content"] == "Hi there! \n\nHow can I help today?"
    assert sent[3]["content"].startswith("again\n\n")


async def test_approved_tool_runs_and_result_reaches_the_model(harness: Harness) -> None:
    outcome = await harness.turn([PLAN, RUN_DATE, text_reply("It printed it-ran.")])
    assert outcome.status == "completed"
    assert harness.types() == [
        "text", "round_end", "tool_call:start", "tool_call:approval_required", "tool_call:executing",
        "tool_output", "tool_call:result", "round_end", "text", "round_end", "turn_end"]
    assert harness.events[5]["text"] == "it-ran\n"  # the command's output, live, before its result
    result = harness.events[6]
    assert "it-ran" in result["result"] and result["is_error"] is False
    tool_msg = harness.server.requests[2]["messages"][-1]
    assert tool_msg["role"] == "tool" and "it-ran" in tool_msg["content"]
    history = history_json(harness.conversation.history)
    assert [m["role"] for m in history] == ["user", "assistant", "assistant", "tool", "assistant"]
    assert history[1]["content"] == "<voice>Let me do that.</voice>"


async def test_rejected_tool_never_runs_and_no_more_requests(harness: Harness) -> None:
    outcome = await harness.turn([PLAN, tool_reply("run_command", {"command": f"{MARKER}"})], lambda m: False)
    assert outcome.status == "rejected"
    assert harness.types()[-3:] == ["tool_rejected", "interrupted", "turn_end"]
    assert len(harness.server.requests) == 2
    assert history_json(harness.conversation.history)[-1] == {
        "role": "tool", "tool_call_id": harness.events[2]["tool_call_id"],
        "content": "The user rejected this tool call."}


async def test_approval_timeout(server: ScriptedLLMServer) -> None:
    clock = FakeClock()
    h = Harness(server, approval_timeout_s=300, timers=clock)

    async def nobody_answers() -> None:
        await clock.wait_scheduled()  # the card shows
        clock.advance(300)

    waiting = asyncio.ensure_future(nobody_answers())  # done before the turn ends and is checked
    try:
        outcome = await h.turn([PLAN, RUN_DATE], lambda m: None)
    finally:
        waiting.cancel()
        await h.aclose()
    assert outcome.status == "approval_timeout"
    assert h.events[-2] == {**h.events[-2], "type": "interrupted", "reason": "approval_timeout"}


@pytest.mark.parametrize("state", ["start", "approval_required", "executing", "result"])
async def test_interrupt_in_each_state_leaves_nothing_behind(harness: Harness, state: str) -> None:
    command = f"echo partial-out; {MARKER}" if state != "result" else "echo quick"
    script = [PLAN, tool_reply("run_command", {"command": command}), text_reply("never")]
    if state == "start":
        # Arguments trickle in slowly, so the call is still in ``start`` when interrupted.
        script[1] = Reply(tool_calls=(ToolCallScript("run_command", '{"command": "x"}', chunks=8),), delay_s=0.5)

    def on_event(message: Msg, h: Harness) -> None:
        if message["type"] == "tool_call" and message["state"] == state and state != "executing":
            asyncio.get_running_loop().call_soon(h.conversation.interrupt)
        if state == "executing" and message["type"] == "tool_call" and message["state"] == "executing":
            async def later() -> None:
                while not live_processes(MARKER):
                    await asyncio.sleep(0.02)
                h.conversation.interrupt()
            h.pending = asyncio.ensure_future(later())  # type: ignore[attr-defined]

    harness.on_event = on_event
    policy: Callable[[Msg], bool | None] = (lambda m: None) if state == "approval_required" else (lambda m: True)
    outcome = await harness.turn(script, policy)
    assert outcome.status == "user"
    types = harness.types()
    assert types[-2:] == ["interrupted", "turn_end"]
    if state in ("approval_required", "executing"):
        rejected = harness.events[-3]
        assert rejected["type"] == "tool_rejected"
        if state == "executing":
            assert "partial-out" in rejected["partial_result"]["stdout"]
            assert "partial-out" in str(history_json(harness.conversation.history)[-1]["content"])
    else:
        assert "tool_rejected" not in types
    if state == "result":
        assert "tool_call:result" in types
    assert len(harness.server.requests) == 2


async def test_intent_tag_split_across_chunks_never_shows(harness: Harness) -> None:
    plan = Reply(chunks=("Checking", " now. <need_", "tool>"))
    await harness.turn([plan, text_reply("Nothing needed after all.")])
    texts = [m["text"] for m in harness.events if m["type"] == "text"]
    assert texts == ["Checking now. ", "Nothing needed after all."]
    assert harness.server.requests[1]["tools"]  # the tool loop ran


async def test_two_tool_calls_in_one_reply(harness: Harness) -> None:
    two = Reply(tool_calls=(ToolCallScript("run_command", '{"command": "echo one"}'),
                            ToolCallScript("run_command", '{"command": "echo two"}')))
    await harness.turn([PLAN, two, text_reply("Both ran.")])
    results = [m["result"] for m in harness.events if m.get("state") == "result"]
    assert len(results) == 2 and "one" in results[0] and "two" in results[1]
    assert harness.types().count("tool_call:approval_required") == 2


async def test_invalid_json_and_unknown_tool_are_errors_the_model_sees(harness: Harness) -> None:
    bad = Reply(tool_calls=(ToolCallScript("run_command", '{"command": '), ToolCallScript("fly", "{}")))
    await harness.turn([PLAN, bad, text_reply("Sorry about that.")])
    tool_msgs = [m for m in harness.server.requests[2]["messages"] if m["role"] == "tool"]
    assert "not valid JSON" in tool_msgs[0]["content"]
    assert "unknown tool 'fly'" in tool_msgs[1]["content"]
    assert "tool_call:approval_required" not in harness.types()


async def test_max_steps_warns_and_stops(server: ScriptedLLMServer) -> None:
    h = Harness(server, max_steps=1)
    try:
        await h.turn([PLAN, RUN_DATE, RUN_DATE])
    finally:
        await h.aclose()
    assert h.events[-2]["type"] == "warning" and h.events[-2]["code"] == "max_steps"
    assert len(server.requests) == 2


async def test_stream_dropped_mid_reply_gives_error_and_consistent_history(harness: Harness) -> None:
    outcome = await harness.turn([text_reply("First part. Second part goes on", chunk_size=6, drop_after=3)])
    assert outcome.status == "error"
    assert harness.events[-2]["type"] == "error" and harness.events[-2]["code"] == "stream_dropped"
    assert history_json(harness.conversation.history) == [{"role": "user", "content": "hello"},
                                            {"role": "assistant", "content": "First part. Second"}]


async def test_401_is_one_clear_error(harness: Harness) -> None:
    outcome = await harness.turn([Reply(status=401, error_message="Incorrect API key")])
    assert outcome.status == "error"
    assert harness.types() == ["error", "turn_end"]
    assert "401" in harness.events[0]["message"] and "\n" not in harness.events[0]["message"]
    assert history_json(harness.conversation.history) == [{"role": "user", "content": "hello"}]


async def test_unreachable_endpoint_is_one_clear_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    provider = OpenAIProvider(base_url=f"http://127.0.0.1:{port}/v1", api_key="k", model="m",
                              max_retries=1, retry_base_delay_s=0.0)
    conversation = Conversation(AgentClient(provider, ToolRouter()))
    async with asyncio.timeout(20):
        outcome = await conversation.run_turn("hi", View(conversation, lambda m: True))
    await provider.aclose()
    assert outcome.status == "error"
    assert outcome.error is not None and "cannot reach" in outcome.error and "\n" not in outcome.error
