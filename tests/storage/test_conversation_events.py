"""The saved display log read back: what the queue consumed, in the
events-file JSON form, reads back into the same bus messages; a display log
rebuilt from an OpenAI history alone."""

from __future__ import annotations

import asyncio
from typing import Any

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.forms import FormQuestion
from desktop_agent.core.messages import (
    BusMessage,
    Card,
    CardField,
    CardMessage,
    ErrorMessage,
    FormRequestMessage,
    InterruptedMessage,
    RoundEndMessage,
    TextMessage,
    ToolCallMessage,
    ToolOutputMessage,
    ToolProgressMessage,
    ToolRejectedMessage,
    TurnEndMessage,
    WarningMessage,
    to_json,
)
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.storage.conversation_events import events_from_history, message_from_json, turns
from desktop_agent.testing.fake_tools import EchoTool
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.scripted_replies import text_reply, tool_reply
from desktop_agent.testing.views import NullView

EVERY_KIND: list[BusMessage] = [
    TextMessage(1, "Hello there.", "<voice>Hello there.</voice>", True),
    RoundEndMessage(0, "planning"),
    ToolCallMessage("start", "c1", "run_command", None),
    ToolCallMessage("approval_required", "c1", "run_command", {"command": "ls"}, task_id="t1"),
    ToolCallMessage("executing", "c1", "run_command", {"command": "ls"}),
    ToolOutputMessage("c1", "stderr", "warn\n"),
    ToolProgressMessage("c1", 1, 4, "step", 3.0),
    ToolCallMessage("result", "c1", "run_command", {"command": "ls"}, result="a b", is_error=False),
    FormRequestMessage("c2", "f1", (FormQuestion("q", "Which?", "choice", ("x", "y")),), "Pick"),
    CardMessage("c3", Card("T", "**b**", None, (CardField("k", "v"),))),
    ToolRejectedMessage("c4", "echo", {"text": "x"}, "rejected", {"stdout": "so far"}, "c9"),
    WarningMessage("careful", "internal"),
    ErrorMessage("broken", "internal"),
    InterruptedMessage("user"),
    TurnEndMessage(),
]


def test_every_displayed_kind_reads_back_as_the_same_message() -> None:
    for i, message in enumerate(EVERY_KIND, 1):
        assert message_from_json(to_json(message, session_id="s", seq=i)) == message


def test_our_own_events_and_damaged_ones_are_not_bus_messages() -> None:
    assert message_from_json({"type": "user", "text": "hi"}) is None
    assert message_from_json({"type": "tool_call"}) is None  # no id: too damaged to draw
    assert message_from_json({"type": "audio", "segment_id": 1}) is None


async def test_a_turn_records_what_was_shown_with_the_bus_seq() -> None:
    llm = ScriptedLLM([text_reply("Ok.<need_tool>"), tool_reply("echo", {"text": "x"}, text="Checking."),
                       text_reply("Done.")])
    conv = Conversation(AgentClient(llm, ToolRouter([EchoTool()]), system_prompt=None))

    class Approving(NullView):
        def approval_needed(self, message: ToolCallMessage) -> None:
            assert message.task_id is not None
            conv.answer_approval(message.task_id, True)

    async with asyncio.timeout(5):
        await conv.run_turn("first", Approving())
    kinds = [(e["type"], e.get("state")) for e in conv.events]
    assert kinds == [
        ("user", None), ("text", None), ("round_end", None), ("text", None),
        ("tool_call", "start"), ("tool_call", "approval_required"), ("tool_call", "executing"),
        ("tool_call", "result"), ("round_end", None), ("text", None), ("round_end", None), ("turn_end", None),
    ]
    seqs: list[Any] = [e["seq"] for e in conv.events[1:]]
    assert seqs == sorted(seqs) and all(s > 0 for s in seqs)
    assert {e["session_id"] for e in conv.events[1:]} == {conv.events[1]["session_id"]}


async def test_taking_back_an_exchange_cuts_its_events_and_says_where() -> None:
    llm = ScriptedLLM([text_reply("One."), text_reply("Two.")])
    conv = Conversation(AgentClient(llm, ToolRouter([]), system_prompt=None))
    async with asyncio.timeout(5):
        await conv.run_turn("a", NullView())
        first = (len(conv.history), len(conv.events))
        await conv.run_turn("b", NullView())
    conv.saved()
    assert conv.take_back_last_exchange() == "b"
    assert (len(conv.history), len(conv.events)) == first
    assert conv.rewound == first and turns(conv.events) == [0]
    conv.saved()
    assert conv.rewound is None


def test_an_openai_history_becomes_finished_cards_and_bubbles() -> None:
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "date?"},
        {"role": "assistant", "content": "<voice>Let me check.</voice>", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "run_command", "arguments": '{"command": "date"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "Mon"},
        {"role": "system", "content": "hook", "_hook": "h"},
        {"role": "assistant", "content": "Monday."},
        {"role": "user", "content": "thanks"},
    ]
    events = events_from_history(history)
    shown = [(e["type"], e.get("state") or e.get("text")) for e in events]
    assert shown == [
        ("user", "date?"), ("text", "Let me check."), ("round_end", None), ("tool_call", "start"),
        ("tool_call", "executing"), ("tool_call", "result"), ("text", "Monday."), ("round_end", None),
        ("turn_end", None), ("user", "thanks"), ("turn_end", None),
    ]
    executing = events[4]
    assert executing["arguments"] == {"command": "date"} and events[5]["result"] == "Mon"
