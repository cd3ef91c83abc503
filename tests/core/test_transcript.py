"""The typed transcript: every item's saved event reads back as the same
item, the recorder keeps what the view was shown with its bus seq and tool
facts, and a turn's history is derived from its items."""

from __future__ import annotations

import pytest

from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.display_log import TOOL_KEY, event_json
from desktop_agent.core.history import history_of
from desktop_agent.core.hooks import HookNote, hook_message, kept_hook
from desktop_agent.core.messages import (
    RoundEndMessage,
    TextMessage,
    ToolCallMessage,
    ToolRejectedMessage,
    TurnEndMessage,
)
from desktop_agent.core.risk import ToolAnnotations
from desktop_agent.core.transcript import (
    ApprovalAnswer,
    AutoApproved,
    FormAnswered,
    InterruptClicked,
    Shown,
    ToolFacts,
    TranscriptItem,
    TranscriptRecorder,
    UserText,
    WindowNotice,
)
from desktop_agent.storage.conversation_events import item_from_json
from desktop_agent.testing.views import NullView

FACTS = ToolFacts("files", ToolAnnotations(destructive=True))
CALL = ToolCallMessage("approval_required", "c1", "write_file", {"path": "/tmp/x", "lines": [1, 2]}, task_id="t1")

ITEMS: list[TranscriptItem] = [
    UserText("Hi", 300.0),
    UserText("Before timeouts were kept"),
    Shown(TextMessage(1, "Hello.", "<voice>Hello.</voice>", True), 4),
    Shown(CALL, 7, FACTS),
    Shown(ToolCallMessage("start", "c2", "echo", None), 8),
    AutoApproved(CALL, 9, "read_only_setting", FACTS),
    AutoApproved(CALL, 10),
    ApprovalAnswer("c1", True),
    FormAnswered("f1", {"size": "M", "tags": ["a", "b"]}),
    FormAnswered("f2", None),
    InterruptClicked(),
    WindowNotice("system", "The approval was lost."),
    Shown(TurnEndMessage(), 12),
]


@pytest.mark.parametrize("item", ITEMS, ids=lambda item: type(item).__name__)
def test_every_item_reads_back_from_its_saved_event_as_the_same_item(item: TranscriptItem) -> None:
    event = event_json(item, "s1")
    assert event is not None
    assert item_from_json(event) == item


def test_a_hook_note_is_not_a_display_event() -> None:
    assert event_json(HookNote("system", "Be brief.", "brief", True), "s1") is None


def test_tool_facts_are_kept_under_the_tool_key_only_when_there_are_some() -> None:
    with_facts = event_json(Shown(CALL, 1, FACTS), "s")
    without = event_json(Shown(CALL, 1, ToolFacts()), "s")
    assert with_facts is not None and without is not None
    assert with_facts[TOOL_KEY] == {"server": "files", "annotations": {"destructive": True}}
    assert TOOL_KEY not in without


def test_the_recorder_keeps_what_the_view_was_shown_with_its_seq_and_facts() -> None:
    items: list[TranscriptItem] = []
    recorder = TranscriptRecorder(NullView(), items.append, lambda name: FACTS)
    bus = SessionMessageBus("s")
    bus.add_listener(recorder.on_bus)
    text = TextMessage(1, "Hi.", "Hi.", False)
    bus.push(text)
    bus.push(CALL)
    recorder.show_text(text)
    recorder.auto_approved(CALL, "always_allow")
    recorder.round_ended(RoundEndMessage(1, "tools"))  # never on the bus: seq 0, no facts
    assert items == [Shown(text, 1), AutoApproved(CALL, 2, "always_allow", FACTS),
                     Shown(RoundEndMessage(1, "tools"), 0)]


def test_a_turns_history_is_the_user_text_its_kept_hooks_and_what_was_shown() -> None:
    kept = HookNote("system", "Be brief.", "brief", True)
    once = HookNote("user", "Just this once.", "once", False)
    rejected = ToolRejectedMessage("c1", "write_file", {"path": "/tmp/x"}, "The user rejected it.")
    turn = history_of([
        UserText("Write it", 300.0), kept, once, WindowNotice("system", "Tools not ready."),
        Shown(TextMessage(1, "Sure.", "Sure.", False), 1), Shown(CALL, 2), ApprovalAnswer("c1", False),
        Shown(rejected, 3), Shown(TurnEndMessage(), 4),
    ])
    assert turn.messages == [
        {"role": "user", "content": "Write it"},
        hook_message(kept),
        {"role": "assistant", "content": "Sure.", "tool_calls": [{"id": "c1", "type": "function", "function": {
            "name": "write_file", "arguments": '{"path": "/tmp/x"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "The user rejected it."},
    ]
    assert turn.rejected
    assert kept_hook(turn.messages[1]) and not kept_hook(hook_message(once))
