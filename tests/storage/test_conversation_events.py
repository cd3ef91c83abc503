"""The display log's saved form: every item's saved event reads back as the
same item (and one that cannot be read is kept as it was), what the queue
consumed reads back into the same bus messages, and a display log rebuilt
from an OpenAI history alone."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.forms import FormQuestion
from desktop_agent.core.json_types import JSONObject
from desktop_agent.core.messages import (
    BusMessage,
    Card,
    CardField,
    CardMessage,
    ErrorMessage,
    FormRequestMessage,
    FormSource,
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
from desktop_agent.core.packed_log import PackedLog
from desktop_agent.core.risk import ToolAnnotations
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.core.transcript import (
    ApprovalAnswer,
    AutoApproved,
    DisplayItem,
    FormAnswered,
    InterruptClicked,
    Shown,
    ToolFacts,
    UnreadEvent,
    UserText,
    WindowNotice,
    scan_kind,
)
from desktop_agent.storage.conversation_events import (
    JSON_PACKER,
    TOOL_KEY,
    SavedEvents,
    StoredItems,
    event_json,
    events_from_history,
    item_from_json,
    items_of,
    read_item,
    turns,
)
from desktop_agent.storage.conversation_messages import message_from_json
from desktop_agent.storage.history_json import history_items
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
    FormRequestMessage(
        "c2", "f2",
        (FormQuestion("n", "How many", "integer", required=False, description="1 to 5", default=2, minimum=1,
                      maximum=5),
         FormQuestion("h", "Hero", "choice", ("h1", "h2"), option_labels=("Superman", "Batman"))),
        "Tell me", FormSource("everything"),
    ),
    FormRequestMessage("c2", "f3", (), "Sign in", FormSource("everything", url="https://example.com/a")),
    CardMessage("c3", Card("T", "**b**", None, (CardField("k", "v"),))),
    ToolRejectedMessage("c4", "echo", {"text": "x"}, "rejected", {"stdout": "so far"}, "c9"),
    WarningMessage("careful", "internal"),
    ErrorMessage("broken", "internal"),
    InterruptedMessage("user"),
    TurnEndMessage(),
]


FACTS = ToolFacts("files", ToolAnnotations(destructive=True))
CALL = ToolCallMessage("approval_required", "c1", "write_file", {"path": "/tmp/x", "lines": [1, 2]}, task_id="t1")

ITEMS: list[DisplayItem] = [
    UserText("Hi", 300.0),
    UserText("Before timeouts were kept"),
    Shown(TextMessage(1, "Hello.", "<voice>Hello.</voice>", True), 4, None, "s1"),
    Shown(CALL, 7, FACTS, "s1"),
    Shown(ToolCallMessage("start", "c2", "echo", None), 8, None, "s1"),
    AutoApproved(CALL, 9, "read_only_setting", FACTS, "s1"),
    AutoApproved(CALL, 10, session_id="s1"),
    ApprovalAnswer("c1", True),
    FormAnswered("f1", {"size": "M", "tags": ["a", "b"]}),
    FormAnswered("f2", None),
    InterruptClicked(),
    WindowNotice("system", "The approval was lost."),
    Shown(TurnEndMessage(), 12, None, "s1"),
    UnreadEvent({"type": "mystery", "from": "a later version"}),
]


@pytest.mark.parametrize("item", ITEMS, ids=lambda item: type(item).__name__)
def test_every_item_reads_back_from_its_saved_event_as_the_same_item(item: DisplayItem) -> None:
    assert read_item(event_json(item)) == item


def test_an_event_that_cannot_be_read_is_kept_as_it_was() -> None:
    damaged: JSONObject = {"type": "tool_call", "seq": 3}  # no id
    assert item_from_json(damaged) is None
    assert read_item(damaged) == UnreadEvent(damaged) and event_json(read_item(damaged)) == damaged


def test_packed_items_unpack_as_the_same_items() -> None:
    assert JSON_PACKER.unpack(JSON_PACKER.pack(ITEMS)) == ITEMS
    assert items_of(SavedEvents(ITEMS)[2:5]) == ITEMS[2:5]


def test_stored_items_read_as_the_items_and_tell_their_kinds() -> None:
    events = SavedEvents(ITEMS)[:]
    lazy = StoredItems(events)
    assert lazy.kinds() == [scan_kind(item) for item in ITEMS]  # known before any item is made
    assert list(lazy) == ITEMS and lazy[-1] == ITEMS[-1] and lazy[2:5] == ITEMS[2:5] and lazy[3] is lazy[3]
    with pytest.raises(IndexError):
        lazy[len(events)]
    with pytest.raises(IndexError):
        lazy[-len(events) - 1]


def test_a_saved_log_packed_as_stored_reads_back_as_its_items_a_pack_a_turn() -> None:
    events = [event_json(WindowNotice("info", "before any turn")), *SavedEvents(ITEMS), *SavedEvents(ITEMS[:3])]
    log = JSON_PACKER.packed_log(events)
    assert log.packed == len(events) and list(log) == items_of(events)
    assert repr(log) == repr(PackedLog(items_of(events), JSON_PACKER)) == "PackedLog(18 items, 5 packed turns)"


def test_tool_facts_are_kept_under_the_tool_key_only_when_there_are_some() -> None:
    with_facts = event_json(Shown(CALL, 1, FACTS, "s"))
    without = event_json(Shown(CALL, 1, ToolFacts(), "s"))
    assert with_facts[TOOL_KEY] == {"server": "files", "annotations": {"destructive": True}}
    assert TOOL_KEY not in without


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
    saved = list(SavedEvents(conv.events))
    kinds = [(e["type"], e.get("state")) for e in saved]
    assert kinds == [
        ("user", None), ("text", None), ("round_end", None), ("text", None),
        ("tool_call", "start"), ("tool_call", "approval_required"), ("tool_call", "executing"),
        ("tool_call", "result"), ("round_end", None), ("text", None), ("round_end", None), ("turn_end", None),
    ]
    seqs: list[Any] = [e["seq"] for e in saved[1:]]
    assert seqs == sorted(seqs) and all(s > 0 for s in seqs)
    assert {e["session_id"] for e in saved[1:]} == {saved[1]["session_id"]}


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
    assert conv.rewound == first and turns(SavedEvents(conv.events)) == [0]
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
    events = events_from_history(history_items(history))
    shown = [(e["type"], e.get("state") or e.get("text")) for e in events]
    assert shown == [
        ("user", "date?"), ("text", "Let me check."), ("round_end", None), ("tool_call", "start"),
        ("tool_call", "executing"), ("tool_call", "result"), ("text", "Monday."), ("round_end", None),
        ("turn_end", None), ("user", "thanks"), ("turn_end", None),
    ]
    executing = events[4]
    assert executing["arguments"] == {"command": "date"} and events[5]["result"] == "Mon"


def test_a_declined_form_reads_back_declined_and_an_older_answer_without_the_flag_as_not() -> None:
    declined = FormAnswered("f3", None, declined=True)
    assert event_json(declined) == {"type": "form_answer", "form_id": "f3", "answers": None, "declined": True}
    assert read_item(event_json(declined)) == declined
    assert "declined" not in event_json(FormAnswered("f2", None))
