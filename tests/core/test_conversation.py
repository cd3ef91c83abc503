"""Conversation: turns on one thread, the history they leave, and the
interrupt and approval entry points the window and the terminal call."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

import pytest

from desktop_agent.core import prompts
from desktop_agent.core.agent import AgentClient
from desktop_agent.core.approval import ApprovalManager
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.events import TurnOutcome
from desktop_agent.core.history import REPAIRED_ANSWER, TRUNCATION_MARK, check_history, repair_history
from desktop_agent.core.json_types import JSONObject, as_list
from desktop_agent.core.messages import TextMessage, ToolCallMessage
from desktop_agent.core.ports import Tool
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.storage.history_json import history_items, history_json
from desktop_agent.testing.fake_clock import FakeClock
from desktop_agent.testing.fake_sink import FakeAudioSink
from desktop_agent.testing.fake_tools import EchoTool
from desktop_agent.testing.fake_tts import FakeTTS
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.scripted_replies import Reply, text_reply, tool_reply
from desktop_agent.testing.views import NullView
from desktop_agent.voice import SpeechPipeline

PLANNING = {"role": "system", "content": prompts.PLANNING_PROMPT}


class ApprovingView(NullView):
    """Records approval requests; answers them at once when told to."""

    def __init__(self, conversation: Conversation | None = None, answer: bool | None = None) -> None:
        self.conversation = conversation
        self.answer = answer
        self.asked: list[ToolCallMessage] = []
        self.asked_event = asyncio.Event()
        self.answered: list[bool] = []

    def approval_needed(self, message: ToolCallMessage) -> None:
        self.asked.append(message)
        self.asked_event.set()
        if self.conversation is not None and self.answer is not None:
            assert message.task_id is not None
            self.answered.append(self.conversation.answer_approval(message.task_id, self.answer))


def conversation(script: Sequence[Reply], tools: Sequence[Tool] = ()) -> tuple[Conversation, ScriptedLLM]:
    llm = ScriptedLLM(script)
    return Conversation(AgentClient(llm, ToolRouter(tools), system_prompt=None)), llm


async def run(conv: Conversation, text: str, view: NullView) -> TurnOutcome:
    async with asyncio.timeout(5):
        return await conv.run_turn(text, view)


def echo_call(arguments: str) -> dict[str, object]:
    return {"role": "assistant", "content": "Checking.", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "echo", "arguments": arguments}},
    ]}


async def test_a_turn_extends_the_history_with_the_user_message_and_what_was_consumed() -> None:
    conv, _ = conversation(
        [text_reply("Ok.<need_tool>"), tool_reply("echo", {"text": "x"}, text="Checking."), text_reply("Done.")],
        [EchoTool()],
    )
    earlier: list[JSONObject] = [{"role": "user", "content": "before"}, {"role": "assistant", "content": "Hello."}]
    conv.history = history_items(earlier)
    view = ApprovingView(conv, answer=True)

    outcome = await run(conv, "first", view)

    assert (outcome.status, outcome.error, view.answered) == ("completed", None, [True])
    assert history_json(conv.history) == [
        *earlier,
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "Ok."},
        echo_call('{"text": "x"}'),
        {"role": "tool", "tool_call_id": "call_1", "content": "echo: x"},
        {"role": "assistant", "content": "Done."},
    ]
    check_history(conv.history)
    assert (conv.busy, conv.session_id, conv.queue) == (False, None, None)


async def test_a_second_turn_sends_the_earlier_turn_with_long_tool_values_truncated() -> None:
    # Arguments are cut inside their string values, so they stay JSON (contracts §2a).
    long_text = "a" * 400
    arguments = json.dumps({"text": long_text})
    conv, llm = conversation(
        [text_reply("Ok.<need_tool>"), tool_reply("echo", {"text": long_text}, text="Checking."),
         text_reply("Done."), text_reply("Again.<no_tool>"), text_reply("Sure.")],
        [EchoTool()],
    )
    view = ApprovingView(conv, answer=True)
    await run(conv, "first", view)

    outcome = await run(conv, "second", view)

    assert outcome.status == "completed"
    assert llm.requests[3]["messages"] == [
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "Ok."},
        echo_call(json.dumps({"text": long_text[:300] + TRUNCATION_MARK}, ensure_ascii=False)),
        {"role": "tool", "tool_call_id": "call_1", "content": f"echo: {long_text}"[:300] + TRUNCATION_MARK},
        {"role": "assistant", "content": "Done."},
        {"role": "user", "content": "second"},
        PLANNING,
    ]
    # The history itself keeps the whole values.
    assert history_json(conv.history)[2] == echo_call(arguments)
    assert history_json(conv.history)[5:] == [
        {"role": "user", "content": "second"},
        {"role": "assistant", "content": "Again."},
        {"role": "assistant", "content": "Sure."},
    ]


async def test_interrupt_is_false_when_no_turn_runs() -> None:
    conv, _ = conversation([])

    assert conv.interrupt() is False


async def test_interrupt_stops_a_running_turn_with_status_user() -> None:
    conv, llm = conversation([Reply(text="First sentence. Then", hang=True)])
    turn = asyncio.create_task(conv.run_turn("hi", NullView()))
    async with asyncio.timeout(5):
        await llm.streaming.wait()

    assert conv.busy
    assert conv.interrupt() is True
    async with asyncio.timeout(5):
        outcome = await turn

    assert (outcome.status, outcome.error) == ("user", None)
    assert conv.busy is False
    assert history_json(conv.history)[0] == {"role": "user", "content": "hi"}
    check_history(conv.history)


async def test_answer_approval_goes_through_the_queue_and_unblocks_the_turn() -> None:
    echo = EchoTool()
    conv, _ = conversation([text_reply("Ok.<need_tool>"), tool_reply("echo", {"text": "x"}), text_reply("Done.")],
                           [echo])
    view = ApprovingView()
    turn = asyncio.create_task(conv.run_turn("hi", view))
    async with asyncio.timeout(5):
        await view.asked_event.wait()
    [asked] = view.asked
    assert asked.task_id is not None
    assert conv.queue is not None and conv.queue.waiting_approval == asked.task_id

    assert conv.answer_approval(asked.task_id, True) is True
    async with asyncio.timeout(5):
        outcome = await turn

    assert outcome.status == "completed"
    assert echo.calls == [{"text": "x"}]


async def test_a_rejected_approval_ends_the_turn_as_rejected_without_running_the_tool() -> None:
    echo = EchoTool()
    conv, llm = conversation([text_reply("Ok.<need_tool>"), tool_reply("echo", {"text": "x"})], [echo])
    view = ApprovingView(conv, answer=False)

    outcome = await run(conv, "hi", view)

    assert (outcome.status, view.answered, echo.calls, len(llm.requests)) == ("rejected", [True], [], 2)
    check_history(conv.history)


async def test_answer_approval_is_false_when_no_turn_runs() -> None:
    conv, _ = conversation([])

    assert conv.answer_approval("t1", True) is False


async def test_a_second_turn_while_one_runs_raises_and_leaves_the_first_running() -> None:
    conv, llm = conversation([Reply(text="Thinking", hang=True)])
    turn = asyncio.create_task(conv.run_turn("first", NullView()))
    async with asyncio.timeout(5):
        await llm.streaming.wait()
    session = conv.session_id

    with pytest.raises(RuntimeError, match="a turn is already running in this conversation"):
        await conv.run_turn("second", NullView())

    assert (conv.busy, conv.session_id) == (True, session)
    assert conv.interrupt() is True
    async with asyncio.timeout(5):
        outcome = await turn
    assert outcome.status == "user"
    assert [m for m in history_json(conv.history) if m["role"] == "user"] == [{"role": "user", "content": "first"}]


class ShowingView(NullView):
    """Records the text it showed; raises on the text ``fail_on``."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.fail_on = fail_on
        self.shown: list[str] = []
        self.first = asyncio.Event()

    def show_text(self, message: TextMessage) -> None:
        if message.text == self.fail_on:
            raise RuntimeError("the view broke")
        self.shown.append(message.text)
        self.first.set()


async def test_a_turn_cancelled_from_outside_keeps_what_the_user_saw() -> None:
    # The window's interrupt fallback cancels the turn task itself.
    conv, _llm = conversation([text_reply("Sure. <no_tool>"), Reply(text="Shown first. Then", hang=True)])
    view = ShowingView()
    turn = asyncio.create_task(conv.run_turn("hi", view))
    async with asyncio.timeout(5):
        while "Shown first. " not in view.shown:
            await asyncio.sleep(0.01)  # the queue shows it on its own schedule
    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn

    assert not conv.busy
    assert history_json(conv.history) == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "Sure. "},
        {"role": "assistant", "content": "Shown first. "},
    ]


async def test_a_view_that_raises_still_leaves_what_it_showed_in_the_history() -> None:
    conv, _llm = conversation([text_reply("Sure. <no_tool>"), text_reply("One. Two.")])
    view = ShowingView(fail_on="Two.")
    with pytest.raises(RuntimeError, match="the view broke"):
        await run(conv, "hi", view)

    assert not conv.busy
    assert history_json(conv.history)[0] == {"role": "user", "content": "hi"}
    # Kept as consumed: the text the view choked on was already recorded.
    assert "".join(str(m["content"]) for m in history_json(conv.history)[1:]).startswith("Sure. One. ")
    check_history(conv.history)


def test_a_broken_turn_is_repaired_not_dropped() -> None:
    broken: list[dict[str, Any]] = [
        {"role": "user", "content": "hi"},
        {"role": "tool", "tool_call_id": "stray", "content": "?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "echo", "arguments": "{}"}},
            {"id": "a", "type": "function", "function": {"name": "echo", "arguments": "{}"}},
            {"id": "b", "type": "function", "function": {"name": "echo", "arguments": "{}"}},
        ]},
        {"role": "tool", "tool_call_id": "b", "content": "echo: b"},
        {"role": "assistant", "content": "done"},
    ]
    repaired = repair_history(history_items(broken))
    check_history(repaired)
    assert history_json(repaired) == [
        broken[0],
        {**broken[2], "tool_calls": [call for n, call in enumerate(as_list(broken[2]["tool_calls"])) if n != 1]},
        broken[3],
        {"role": "tool", "tool_call_id": "a", "content": f"Error: {REPAIRED_ANSWER}"},
        broken[4],
    ]


async def test_the_approval_timeout_starts_when_the_card_is_shown_not_when_it_is_pushed() -> None:
    # The planning sentence is still being spoken when the call asks for
    # approval; the card shows only after it. A timeout counted from the
    # push would reject the call while the user could not even see it.
    clock = FakeClock()  # the approval timeouts' timers: none may run before the card shows
    tts, sink = FakeTTS(), FakeAudioSink()  # the clip plays until the test ends it
    llm = ScriptedLLM([text_reply("<voice>Let me check that.</voice><need_tool>"),
                       tool_reply("echo", {"text": "x"}), text_reply("Done.")])
    conv = Conversation(AgentClient(llm, ToolRouter([EchoTool()]), system_prompt=None),
                        speech_factory=lambda bus: SpeechPipeline(tts, bus), approval_timeout_s=0.05,
                        approvals=ApprovalManager(timers=clock))
    view = ApprovingView(conv, answer=None)
    turn = asyncio.create_task(conv.run_turn("check", view, sink=sink))
    async with asyncio.timeout(5):
        await sink.wait_for_plays(1)
        while conv.approvals.pending_keys() == []:  # the call waits for approval, unseen
            await asyncio.sleep(0.01)
    assert clock.pending == []  # no timeout runs while the sentence plays
    clock.advance(60)
    assert not turn.done() and view.asked == []
    view.answer = True
    sink.finish()  # the sentence ends; the card shows; the user approves
    async with asyncio.timeout(5):
        outcome = await turn
    assert outcome.status == "completed"
    assert [m.tool_name for m in view.asked] == ["echo"]


async def test_an_approval_nobody_answers_times_out_once_the_card_has_shown_that_long() -> None:
    clock = FakeClock()
    llm = ScriptedLLM([text_reply("Ok.<need_tool>"), tool_reply("echo", {"text": "x"}), text_reply("Done.")])
    conv = Conversation(AgentClient(llm, ToolRouter([EchoTool()]), system_prompt=None),
                        approval_timeout_s=30, approvals=ApprovalManager(timers=clock))
    view = ApprovingView(conv, answer=None)
    turn = asyncio.create_task(conv.run_turn("check", view))
    async with asyncio.timeout(5):
        await clock.wait_scheduled()  # the card is shown: its timeout runs
    assert clock.pending == [30.0] and view.asked != []
    clock.advance(29.9)
    assert clock.pending == [30.0] and conv.approvals.pending_keys() != []
    clock.advance(0.1)
    async with asyncio.timeout(5):
        outcome = await turn
    assert outcome.status == "approval_timeout"


async def test_an_approval_shown_and_left_unanswered_still_times_out() -> None:
    conv, _llm = conversation([text_reply("Ok.<need_tool>"), tool_reply("echo", {"text": "x"})], [EchoTool()])
    conv.approval_timeout_s = 0.05
    view = ApprovingView()  # sees the card, never answers
    outcome = await run(conv, "check", view)
    assert outcome.status == "approval_timeout"
    assert len(view.asked) == 1
