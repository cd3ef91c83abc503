"""The typed transcript: the recorder keeps what the view was shown with
its bus seq, session and tool facts, and a turn's history is derived from
its items (their saved form: tests/storage/test_conversation_events.py)."""

from __future__ import annotations

from typing import get_args

from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.history import history_of
from desktop_agent.core.history_items import AssistantMessage, ToolAnswer, ToolCall, UserMessage
from desktop_agent.core.hooks import HookNote, kept_hook
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
    DisplayItem,
    Shown,
    ToolFacts,
    TranscriptItem,
    TranscriptRecorder,
    UserText,
    WindowNotice,
)
from desktop_agent.core.wire import hook_message
from desktop_agent.testing.views import NullView

FACTS = ToolFacts("files", ToolAnnotations(destructive=True))
CALL = ToolCallMessage("approval_required", "c1", "write_file", {"path": "/tmp/x", "lines": [1, 2]}, task_id="t1")


def test_a_hook_note_is_not_a_display_log_item() -> None:
    assert HookNote not in get_args(DisplayItem)  # history keeps it; the window never showed it


def test_the_recorder_keeps_what_the_view_was_shown_with_its_seq_and_facts() -> None:
    items: list[TranscriptItem] = []
    recorder = TranscriptRecorder(NullView(), items.append, lambda name: FACTS, "s")
    bus = SessionMessageBus("s")
    bus.add_listener(recorder.on_bus)
    text = TextMessage(1, "Hi.", "Hi.", False)
    bus.push(text)
    bus.push(CALL)
    recorder.show_text(text)
    recorder.auto_approved(CALL, "always_allow")
    recorder.round_ended(RoundEndMessage(1, "tools"))  # never on the bus: seq 0, no facts
    assert items == [Shown(text, 1, None, "s"), AutoApproved(CALL, 2, "always_allow", FACTS, "s"),
                     Shown(RoundEndMessage(1, "tools"), 0, None, "s")]


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
        UserMessage("Write it"),
        kept,
        AssistantMessage("Sure.", (ToolCall("c1", "write_file", '{"path": "/tmp/x"}'),)),
        ToolAnswer("c1", "The user rejected it."),
    ]
    assert turn.rejected
    assert kept_hook(hook_message(kept)) and not kept_hook(hook_message(once))
