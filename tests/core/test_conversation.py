"""Conversation: turns on one thread, the history they leave, and the
interrupt and approval entry points the window and the terminal call."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence

import pytest

from desktop_agent.core import prompts
from desktop_agent.core.agent import AgentClient
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.events import TurnOutcome
from desktop_agent.core.history import TRUNCATION_MARK, check_history
from desktop_agent.core.messages import ToolCallMessage
from desktop_agent.core.ports import Tool
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.testing.fake_tools import EchoTool
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.scripted_replies import Reply, text_reply, tool_reply
from desktop_agent.testing.views import NullView

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
    earlier = [{"role": "user", "content": "before"}, {"role": "assistant", "content": "Hello."}]
    conv.history = list(earlier)
    view = ApprovingView(conv, answer=True)

    outcome = await run(conv, "first", view)

    assert (outcome.status, outcome.error, view.answered) == ("completed", None, [True])
    assert conv.history == [
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
        echo_call(arguments[:300] + TRUNCATION_MARK),
        {"role": "tool", "tool_call_id": "call_1", "content": f"echo: {long_text}"[:300] + TRUNCATION_MARK},
        {"role": "assistant", "content": "Done."},
        {"role": "user", "content": "second"},
        PLANNING,
    ]
    # The history itself keeps the whole values.
    assert conv.history[2] == echo_call(arguments)
    assert conv.history[5:] == [
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
    assert conv.history[0] == {"role": "user", "content": "hi"}
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
    assert [m for m in conv.history if m["role"] == "user"] == [{"role": "user", "content": "first"}]
