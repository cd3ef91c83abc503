"""BusToolContext: progress with an ETA, cards, and the partial output it
owns (no shared bus state)."""

from __future__ import annotations

from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.messages import Card, CardMessage, ToolProgressMessage
from desktop_agent.core.tool_context import BusToolContext, PartialOutput
from desktop_agent.testing.bus_reader import BusReader


def test_progress_pushes_messages_with_eta_from_the_observed_rate() -> None:
    now = [100.0]
    bus = SessionMessageBus("s")
    reader = BusReader(bus)
    ctx = BusToolContext(bus, "c1", "conv", clock=lambda: now[0])
    ctx.progress(0, 10, "starting")
    now[0] = 102.0
    ctx.progress(2, 10, "two done")
    now[0] = 103.0
    ctx.progress(3, None, "unknown total")
    assert [i.message for i in reader.items] == [
        ToolProgressMessage("c1", 0, 10, "starting", None),
        ToolProgressMessage("c1", 2, 10, "two done", 8.0),
        ToolProgressMessage("c1", 3, None, "unknown total", None),
    ]
    assert ctx.partial.snapshot() == {"progress": ["0/10 starting", "2/10 two done", "3 unknown total"]}


def test_a_new_total_restarts_the_eta() -> None:
    now = [0.0]
    bus = SessionMessageBus("s")
    reader = BusReader(bus)
    ctx = BusToolContext(bus, "c1", "conv", clock=lambda: now[0])
    ctx.progress(5, 10, None)
    now[0] = 1.0
    ctx.progress(1, 4, "phase two")
    now[0] = 2.0
    ctx.progress(2, 4, None)
    etas = [i.message.eta_s for i in reader.items if isinstance(i.message, ToolProgressMessage)]
    assert etas == [None, None, 2.0]


def test_each_context_owns_its_partial_output() -> None:
    bus = SessionMessageBus("s")
    first, second = BusToolContext(bus, "c1", "conv"), BusToolContext(bus, "c2", "conv")
    first.set_partial("stdout", "one")
    assert first.partial.snapshot() == {"stdout": "one"}
    assert second.partial.snapshot() is None


def test_a_snapshot_is_a_copy() -> None:
    partial = PartialOutput()
    partial.set("stdout", "a")
    snap = partial.snapshot()
    partial.set("stdout", "ab")
    assert snap == {"stdout": "a"}


def test_push_card_pushes_a_card_message_for_its_call() -> None:
    bus = SessionMessageBus("s")
    reader = BusReader(bus)
    ctx = BusToolContext(bus, "c1", "conv")
    ctx.push_card(Card("T", "b"))
    assert [i.message for i in reader.items] == [CardMessage("c1", Card("T", "b"))]
