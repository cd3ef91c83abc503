"""ChatHandler + AgentClient: whole bus sequences for each path of a turn."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.approval import ApprovalManager, approval_key
from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.chat_handler import (
    REASON_INTERRUPTED,
    REASON_NO_ANSWER,
    REASON_NOT_RUN,
    REASON_REJECTED,
    REASON_TIMEOUT,
    ChatHandler,
)
from desktop_agent.core.events import TurnOutcome
from desktop_agent.core.forms import FormManager
from desktop_agent.core.history_items import UserMessage
from desktop_agent.core.ports import Tool, ToolContext, ToolResult, ToolSpec
from desktop_agent.core.session import SessionManager
from desktop_agent.core.timers import Timers
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.testing.bus_reader import BusReader, unstamped
from desktop_agent.testing.fake_clock import FakeClock
from desktop_agent.testing.fake_tools import BlockingTool, EchoTool
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.scripted_replies import Reply, ToolCallScript, text_reply, tool_reply
from desktop_agent.tools.ask_user_question import AskUserQuestionTool

SID = "s1"
Msg = dict[str, Any]


class Turn:
    """Runs one turn and records every bus message in order."""

    def __init__(
        self, script: Sequence[Reply], tools: Sequence[Tool] = (), max_steps: int = 10, timers: Timers | None = None
    ) -> None:
        self.llm = ScriptedLLM(script)
        self.agent = AgentClient(self.llm, ToolRouter(tools), max_steps=max_steps, system_prompt=None)
        self.approvals = ApprovalManager(timers=timers)
        self.sessions = SessionManager()
        self.handler = ChatHandler(self.agent, self.approvals, self.sessions)
        self.bus = SessionMessageBus(SID)
        self.reader = BusReader(self.bus)
        self.messages: list[Msg] = []

    async def run(
        self,
        on_message: Callable[[Msg, Turn], None] = lambda m, t: None,
        approval_timeout_s: float = 5.0,
    ) -> TurnOutcome:
        self.sessions.start(SID)
        task = asyncio.create_task(
            self.handler.handle_chat(SID, self.bus, [UserMessage("hi")],
                                     approval_timeout_s=approval_timeout_s)
        )
        async with asyncio.timeout(10):
            while True:
                item = await self.reader.get()
                message = item.to_json()
                self.messages.append(unstamped(item))
                on_message(message, self)
                if item.message.type == "turn_end":
                    break
            outcome = await task
        assert self.approvals.pending_keys() == []
        return outcome

    def approve(self, message: Msg, approved: bool) -> None:
        assert self.approvals.respond(approval_key(SID, message["task_id"]), approved)
        if not approved:
            self.sessions.cancel(SID, "rejected")

    def types(self) -> list[str]:
        return [m["type"] if m["type"] != "tool_call" else f"tool_call:{m['state']}" for m in self.messages]


async def _timed_out(turn: Turn, clock: FakeClock, timeout_s: float) -> TurnOutcome:
    """The turn, once nobody answered what it waits for (an approval, a
    form) for ``timeout_s`` on ``clock``: not a moment earlier."""
    run = asyncio.create_task(turn.run(approval_timeout_s=timeout_s))
    async with asyncio.timeout(5):
        await clock.wait_scheduled()
    clock.advance(timeout_s - 0.1)
    assert clock.pending == [timeout_s]
    clock.advance(0.1)
    async with asyncio.timeout(5):
        return await run


def approve_all(message: Msg, turn: Turn) -> None:
    if message.get("state") == "approval_required":
        turn.approve(message, True)


async def test_no_tool_path_runs_planning_then_continuation_round() -> None:
    turn = Turn([text_reply("Sure, a joke. <no_tool>"), text_reply("<voice>Why did the chicken cross?</voice>")])
    outcome = await turn.run()
    assert outcome == TurnOutcome("completed", session_id=SID)
    assert turn.messages == [
        {"type": "text", "segment_id": 1, "text": "Sure, a joke. ", "raw_text": "Sure, a joke. <no_tool>",
         "voice": False},
        {"type": "round_end", "round": 0, "kind": "planning"},
        {"type": "text", "segment_id": 2, "text": "Why did the chicken cross?",
         "raw_text": "<voice>Why did the chicken cross?</voice>", "voice": True},
        {"type": "round_end", "round": 1, "kind": "continuation"},
        {"type": "turn_end"},
    ]
    planning, continuation = turn.llm.requests
    assert planning["tools"] is None and continuation["tools"] is None
    assert planning["messages"][-1]["role"] == "system"  # temporary planning prompt
    # The continuation sees the planning reply with its intent tag stripped, then [continue].
    assert continuation["messages"][1:3] == [
        {"role": "assistant", "content": "Sure, a joke. "},
        {"role": "user", "content": "[continue]"},
    ]
    assert continuation["messages"][-1]["role"] == "system"
    assert all("<no_tool>" not in str(m.get("content")) for m in continuation["messages"])


async def test_need_tool_approved_runs_tool_and_loops() -> None:
    echo = EchoTool()
    turn = Turn(
        [text_reply("Let me check.<need_tool>"), tool_reply("echo", {"text": "x"}), text_reply("Done.")],
        [echo],
    )
    outcome = await turn.run(approve_all)
    assert outcome.status == "completed"
    assert turn.types() == [
        "text", "round_end",
        "tool_call:start", "tool_call:approval_required", "tool_call:executing", "tool_call:result",
        "round_end", "text", "round_end", "turn_end",
    ]
    result = turn.messages[5]
    assert result == {"type": "tool_call", "state": "result", "tool_call_id": "call_1", "tool_name": "echo",
                      "arguments": {"text": "x"}, "result": "echo: x", "is_error": False}
    assert turn.messages[3]["task_id"] and turn.messages[3]["arguments"] == {"text": "x"}
    assert echo.calls == [{"text": "x"}]
    third = turn.llm.requests[2]["messages"]
    assert third[-2]["tool_calls"][0]["function"] == {"name": "echo", "arguments": '{"text": "x"}'}
    assert third[-1] == {"role": "tool", "tool_call_id": "call_1", "content": "echo: x"}
    assert turn.llm.requests[1]["tools"][0]["function"]["name"] == "echo"


async def test_no_intent_tag_goes_to_tool_loop() -> None:
    turn = Turn([text_reply("Hello."), text_reply("Nothing to do.")], [EchoTool()])
    await turn.run()
    assert [r["tool_choice"] for r in turn.llm.requests] == ["none", "auto"]
    assert turn.types()[-2:] == ["round_end", "turn_end"]


async def test_reject_ends_turn_with_tool_rejected_and_no_execution() -> None:
    echo = EchoTool()
    turn = Turn([text_reply("Ok.<need_tool>"), tool_reply("echo", {"text": "x"})], [echo])

    def reject(message: Msg, t: Turn) -> None:
        if message.get("state") == "approval_required":
            t.approve(message, False)

    outcome = await turn.run(reject)
    assert outcome.status == "rejected"
    assert turn.types() == ["text", "round_end", "tool_call:start", "tool_call:approval_required",
                            "tool_rejected", "interrupted", "turn_end"]
    assert turn.messages[4] == {"type": "tool_rejected", "tool_call_id": "call_1", "tool_name": "echo",
                                "arguments": {"text": "x"}, "reason": REASON_REJECTED}
    assert turn.messages[5] == {"type": "interrupted", "reason": "rejected"}
    assert echo.calls == []
    assert len(turn.llm.requests) == 2  # no further LLM request


async def test_approval_timeout_counts_as_rejection() -> None:
    clock = FakeClock()
    turn = Turn([text_reply("Ok.<need_tool>"), tool_reply("echo", {"text": "x"})], [EchoTool()], timers=clock)
    outcome = await _timed_out(turn, clock, timeout_s=300)
    assert outcome.status == "approval_timeout"
    assert turn.messages[-3:] == [
        {"type": "tool_rejected", "tool_call_id": "call_1", "tool_name": "echo",
         "arguments": {"text": "x"}, "reason": REASON_TIMEOUT},
        {"type": "interrupted", "reason": "approval_timeout"},
        {"type": "turn_end"},
    ]


async def test_interrupt_while_executing_keeps_partial_result_and_cancels_tool() -> None:
    slow = BlockingTool()
    turn = Turn([text_reply("Ok.<need_tool>"), tool_reply("slow", {})], [slow])

    def on_message(message: Msg, t: Turn) -> None:
        if message.get("state") == "approval_required":
            t.approve(message, True)
        if message["type"] == "tool_progress":
            t.sessions.cancel(SID, "user")

    outcome = await turn.run(on_message)
    assert outcome.status == "user"
    assert slow.cancelled
    assert turn.messages[-4:] == [
        {"type": "tool_progress", "tool_call_id": "call_1", "progress": 1, "total": 2,
         "message": "step 1", "eta_s": None},
        {"type": "tool_rejected", "tool_call_id": "call_1", "tool_name": "slow", "arguments": {},
         "reason": REASON_INTERRUPTED, "partial_result": {"stdout": "half done", "progress": ["1/2 step 1"]}},
        {"type": "interrupted", "reason": "user"},
        {"type": "turn_end"},
    ]


async def test_interrupt_during_approval_wait() -> None:
    turn = Turn([text_reply("Ok.<need_tool>"), tool_reply("echo", {})], [EchoTool()])

    def on_message(message: Msg, t: Turn) -> None:
        if message.get("state") == "approval_required":
            t.sessions.cancel(SID, "user")

    outcome = await turn.run(on_message)
    assert outcome.status == "user"
    assert turn.types()[-3:] == ["tool_rejected", "interrupted", "turn_end"]
    # The user interrupted; nobody rejected this call, and the model is told so.
    assert turn.messages[-3]["reason"] == REASON_NOT_RUN
    assert "partial_result" not in turn.messages[-3]


async def test_interrupt_in_start_state_pushes_only_interrupted() -> None:
    turn = Turn([text_reply("Ok.<need_tool>"), Reply(tool_calls=(ToolCallScript("echo", "{}"),), hang=True)],
                [EchoTool()])

    def on_message(message: Msg, t: Turn) -> None:
        if message.get("state") == "start":
            t.sessions.cancel(SID, "user")

    outcome = await turn.run(on_message)
    assert outcome.status == "user"
    assert turn.types() == ["text", "round_end", "tool_call:start", "interrupted", "turn_end"]


async def test_interrupt_while_streaming_text() -> None:
    turn = Turn([Reply(text="First sentence. Then", hang=True)])

    def on_message(message: Msg, t: Turn) -> None:
        if message["type"] == "text":
            t.sessions.cancel(SID, "user")

    outcome = await turn.run(on_message)
    assert outcome.status == "user"
    assert turn.types() == ["text", "interrupted", "turn_end"]


async def test_invalid_json_and_unknown_tool_are_answered_as_errors_without_running() -> None:
    echo = EchoTool()
    bad = Reply(tool_calls=(ToolCallScript("echo", '{"text": '), ToolCallScript("nope", "{}")))
    turn = Turn([text_reply("Ok.<need_tool>"), bad, text_reply("Sorry.")], [echo])
    outcome = await turn.run(approve_all)
    assert outcome.status == "completed"
    assert echo.calls == []
    results = [m for m in turn.messages if m.get("state") == "result"]
    assert [r["is_error"] for r in results] == [True, True]
    assert "not valid JSON" in results[0]["result"] and results[0]["arguments"] is None
    assert "unknown tool 'nope'" in results[1]["result"] and "echo" in results[1]["result"]
    assert turn.types() == ["text", "round_end", "tool_call:start", "tool_call:start",
                            "tool_call:result", "tool_call:result", "round_end", "text", "round_end", "turn_end"]
    tool_msgs = [m for m in turn.llm.requests[2]["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_msgs] == ["call_1", "call_2"]


async def test_two_calls_in_one_reply_run_in_order_with_one_approval_each() -> None:
    echo = EchoTool()
    two = Reply(tool_calls=(ToolCallScript("echo", '{"text": "a"}'), ToolCallScript("echo", '{"text": "b"}')))
    turn = Turn([text_reply("Ok.<need_tool>"), two, text_reply("Both done.")], [echo])
    await turn.run(approve_all)
    assert echo.calls == [{"text": "a"}, {"text": "b"}]
    assert turn.types()[2:10] == ["tool_call:start", "tool_call:start",
                                  "tool_call:approval_required", "tool_call:executing", "tool_call:result",
                                  "tool_call:approval_required", "tool_call:executing", "tool_call:result"]


async def test_skip_approval_tool_goes_from_start_to_executing() -> None:
    quiet = EchoTool(name="quiet", skip_approval=True)
    turn = Turn([text_reply("Ok.<need_tool>"), tool_reply("quiet", {"text": "q"}), text_reply("Shown.")], [quiet])
    await turn.run()
    assert turn.types()[2:5] == ["tool_call:start", "tool_call:executing", "tool_call:result"]


async def test_max_steps_stops_with_a_warning() -> None:
    turn = Turn([text_reply("Ok.<need_tool>"), tool_reply("echo", {}), tool_reply("echo", {})],
                [EchoTool(skip_approval=True)], max_steps=2)
    outcome = await turn.run()
    assert outcome.status == "completed"
    assert turn.messages[-2] == {
        "type": "warning", "code": "max_steps",
        "message": "stopped after 2 tool rounds (the max steps limit); ask again to continue",
    }
    assert len(turn.llm.requests) == 3


async def test_llm_error_gives_one_error_message_and_ends_turn() -> None:
    turn = Turn([Reply(status=401, error_message="bad key")])
    outcome = await turn.run()
    assert outcome.status == "error"
    assert turn.messages == [
        {"type": "error", "message": "401 from scripted model: bad key", "code": "auth"},
        {"type": "turn_end"},
    ]


async def test_stream_dropped_mid_reply_keeps_text_so_far() -> None:
    turn = Turn([text_reply("Part one. Part two is long", chunk_size=5, drop_after=3)])
    outcome = await turn.run()
    assert outcome.status == "error"
    assert turn.types() == ["text", "text", "error", "turn_end"]
    assert turn.messages[2]["code"] == "stream_dropped"


async def test_tool_call_without_id_gets_one() -> None:
    turn = Turn([text_reply("Ok.<need_tool>"), Reply(tool_calls=(ToolCallScript("echo", "{}", id=None),)),
                 text_reply("ok")], [EchoTool(skip_approval=True)])
    await turn.run()
    ids = {m["tool_call_id"] for m in turn.messages if m["type"] == "tool_call"}
    assert len(ids) == 1 and next(iter(ids))


class ChattyTool:
    """Prints two lines and an unfinished one, then returns or blocks."""

    def __init__(self, block: bool = False) -> None:
        self.block = block
        self.name = "chatty"

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, "Prints.", {"type": "object", "properties": {}}, skip_approval=True)

    async def run(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        ctx.output("stdout", "one\n")  # sent at once
        ctx.output("stdout", "two\n")  # held for the next batch
        ctx.output("stderr", "almost")  # an unfinished line
        if self.block:
            ctx.progress(1, None, "waiting")
            await asyncio.Event().wait()
        return ToolResult("printed")


def _output_and_ends(messages: list[Msg]) -> list[tuple[str, str]]:
    return [
        (m["type"] if m["type"] != "tool_call" else m["state"], m.get("text", ""))
        for m in messages
        if m["type"] in ("tool_output", "tool_rejected") or m.get("state") in ("executing", "result")
    ]


async def test_tool_output_arrives_between_executing_and_result_with_nothing_held_back() -> None:
    turn = Turn([text_reply("Ok.<need_tool>"), tool_reply("chatty", {}), text_reply("Done.")], [ChattyTool()])
    await turn.run()
    assert _output_and_ends(turn.messages) == [
        ("executing", ""),
        ("tool_output", "one\n"),
        ("tool_output", "two\n"),
        ("tool_output", "almost"),
        ("result", ""),
    ]


async def test_an_interrupt_sends_the_held_output_before_tool_rejected() -> None:
    turn = Turn([text_reply("Ok.<need_tool>"), tool_reply("chatty", {})], [ChattyTool(block=True)])

    def on_message(message: Msg, t: Turn) -> None:
        if message["type"] == "tool_progress":
            t.sessions.cancel(SID, "user")

    await turn.run(on_message)
    assert _output_and_ends(turn.messages) == [
        ("executing", ""),
        ("tool_output", "one\n"),
        ("tool_output", "two\n"),
        ("tool_output", "almost"),
        ("tool_rejected", ""),
    ]


async def test_a_form_nobody_answers_ends_the_turn_like_an_unanswered_approval() -> None:
    clock = FakeClock()
    forms = FormManager(timers=clock)
    ask = AskUserQuestionTool(forms)
    question = {"question": "Which city?"}
    turn = Turn([text_reply("Ok.<need_tool>"), tool_reply("ask_user_question", question), text_reply("never")],
                [ask])
    outcome = await _timed_out(turn, clock, timeout_s=300)  # nobody answers the form
    assert outcome.status == "approval_timeout"
    assert turn.types()[-4:] == ["form_request", "tool_rejected", "interrupted", "turn_end"]
    assert turn.messages[-3]["reason"] == REASON_NO_ANSWER
    assert turn.messages[-2] == {"type": "interrupted", "reason": "approval_timeout"}
    assert forms.pending() == []
    assert len(turn.llm.requests) == 2  # the model was not asked to go on
