"""SessionMessageBus: ordered, numbered, delivered to listeners; the JSON
form is the contracts §5 contract."""

from __future__ import annotations

import pytest

from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.forms import FormQuestion
from desktop_agent.core.messages import (
    MESSAGE_TYPES,
    AudioMessage,
    BusItem,
    Card,
    CardField,
    CardMessage,
    FormRequestMessage,
    ImageContent,
    ResourceRef,
    TextMessage,
    ToolCallMessage,
    ToolRejectedMessage,
    TurnEndMessage,
    to_json,
)


def test_messages_are_numbered_per_session_and_delivered_in_order() -> None:
    bus = SessionMessageBus("s1")
    seen: list[BusItem] = []
    bus.add_listener(seen.append)
    bus.push(TextMessage(1, "a", "a", False))
    bus.push(AudioMessage(1, mime="audio/wav", bytes=3, engine="fake", audio=b"xyz"))
    bus.push(TurnEndMessage())
    assert [i.to_json() for i in seen] == [
        {"type": "text", "session_id": "s1", "seq": 1, "segment_id": 1, "text": "a", "raw_text": "a", "voice": False},
        {"type": "audio", "session_id": "s1", "seq": 2, "segment_id": 1, "mime": "audio/wav", "bytes": 3,
         "engine": "fake"},
        {"type": "turn_end", "session_id": "s1", "seq": 3},
    ]
    audio = seen[1].message
    assert isinstance(audio, AudioMessage) and audio.audio == b"xyz"
    assert bus.pushed == 3


def test_a_listener_removed_gets_nothing_more() -> None:
    bus = SessionMessageBus("s")
    seen: list[BusItem] = []
    bus.add_listener(seen.append)
    bus.push(TurnEndMessage())
    bus.remove_listener(seen.append)
    bus.push(TurnEndMessage())
    assert [i.seq for i in seen] == [1]


def test_failed_audio_has_error_and_no_size() -> None:
    message = AudioMessage(4, error="speech timed out", engine="edge")
    assert to_json(message, session_id="s", seq=9) == {
        "type": "audio", "session_id": "s", "seq": 9, "segment_id": 4, "error": "speech timed out",
        "engine": "edge",
    }


def test_tool_call_json_has_only_the_fields_of_its_state() -> None:
    start = ToolCallMessage("start", "c1", "echo", None)
    approval = ToolCallMessage("approval_required", "c1", "echo", {"a": 1}, task_id="t1")
    result = ToolCallMessage(
        "result", "c1", "echo", {"a": 1}, result="ok", is_error=False, images=(ImageContent("image/png", b"x"),),
        structured_content={"ok": True}, resources=(ResourceRef("demo://a", "a"),),
    )  # images, structured content and resources stay in-process
    nested = ToolCallMessage("start", "c2", "echo", None, parent_tool_call_id="c0")
    assert [to_json(m, session_id="s", seq=1) for m in (start, approval, result, nested)] == [
        {"type": "tool_call", "session_id": "s", "seq": 1, "state": "start", "tool_call_id": "c1",
         "tool_name": "echo", "arguments": None},
        {"type": "tool_call", "session_id": "s", "seq": 1, "state": "approval_required", "tool_call_id": "c1",
         "tool_name": "echo", "arguments": {"a": 1}, "task_id": "t1"},
        {"type": "tool_call", "session_id": "s", "seq": 1, "state": "result", "tool_call_id": "c1",
         "tool_name": "echo", "arguments": {"a": 1}, "result": "ok", "is_error": False},
        {"type": "tool_call", "session_id": "s", "seq": 1, "state": "start", "tool_call_id": "c2",
         "tool_name": "echo", "arguments": None, "parent_tool_call_id": "c0"},
    ]


def test_card_form_and_rejection_serialise_their_nested_values() -> None:
    card = CardMessage("c1", Card("T", "**b**", None, (CardField("model", "demo"),)))
    form = FormRequestMessage("c2", "form-1", (FormQuestion("name", "Name?", required=False),), "F")
    rejected = ToolRejectedMessage("c3", "run_command", {"command": "sleep 9"}, "stopped", {"stdout": "x"})
    assert [to_json(m, session_id="s", seq=2) for m in (card, form, rejected)] == [
        {"type": "card", "session_id": "s", "seq": 2, "tool_call_id": "c1",
         "card": {"title": "T", "body": "**b**", "image_path": None, "fields": [{"label": "model", "value": "demo"}]}},
        {"type": "form_request", "session_id": "s", "seq": 2, "tool_call_id": "c2", "form_id": "form-1",
         "questions": [{"id": "name", "question": "Name?", "type": "text", "options": [], "required": False}],
         "title": "F"},
        {"type": "tool_rejected", "session_id": "s", "seq": 2, "tool_call_id": "c3", "tool_name": "run_command",
         "arguments": {"command": "sleep 9"}, "reason": "stopped", "partial_result": {"stdout": "x"}},
    ]


def test_every_contract_type_has_a_class() -> None:
    assert MESSAGE_TYPES == {
        "text", "audio", "audio_end", "tool_call", "tool_progress", "tool_output", "form_request", "card",
        "tool_rejected",
        "interrupted", "round_end", "warning", "error", "turn_end", "transcript",
    }


def test_messages_are_frozen() -> None:
    message = TextMessage(1, "a", "a", False)
    with pytest.raises(AttributeError):
        message.text = "b"  # type: ignore[misc]
