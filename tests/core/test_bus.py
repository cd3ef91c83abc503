"""SessionMessageBus: ordered, numbered, listeners, partial-output snapshot."""

from __future__ import annotations

import pytest

from desktop_agent.core.bus import BusItem, SessionMessageBus


async def test_messages_are_numbered_per_session_and_delivered_in_order() -> None:
    bus = SessionMessageBus("s1")
    seen: list[BusItem] = []
    bus.add_listener(seen.append)
    bus.push("text", segment_id=1, text="a", raw_text="a", voice=False)
    bus.push("audio", audio=b"xyz", segment_id=1, mime="audio/wav", bytes=3, engine="fake")
    bus.push("turn_end")
    got = [await bus.get() for _ in range(3)]
    assert [i.message for i in got] == [
        {"type": "text", "session_id": "s1", "seq": 1, "segment_id": 1, "text": "a", "raw_text": "a", "voice": False},
        {"type": "audio", "session_id": "s1", "seq": 2, "segment_id": 1, "mime": "audio/wav", "bytes": 3,
         "engine": "fake"},
        {"type": "turn_end", "session_id": "s1", "seq": 3},
    ]
    assert got[1].audio == b"xyz"
    assert seen == got


def test_unknown_message_type_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown bus message type"):
        SessionMessageBus("s").push("bogus")


def test_partial_snapshot_strips_id() -> None:
    bus = SessionMessageBus("s")
    assert bus.snapshot_partial() is None
    bus.tool_output_cache = {"_id": "c1", "stdout": "so far"}
    assert bus.snapshot_partial() == {"stdout": "so far"}
