"""BusToolContext: progress with an ETA, cards, coalesced live output, and
the partial output it owns (no shared bus state)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.messages import (
    Card,
    CardMessage,
    OutputStream,
    ToolOutputMessage,
    ToolProgressMessage,
)
from desktop_agent.core.tool_context import (
    OPEN_LINE_MAX_CHARS,
    OUTPUT_INTERVAL_S,
    BusToolContext,
    OutputCoalescer,
    PartialOutput,
)
from desktop_agent.testing.bus_reader import BusReader
from desktop_agent.testing.fake_clock import FakeClock


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


# ------------------------------------------------------------ live output


def _outputs(reader: BusReader) -> list[ToolOutputMessage]:
    return [i.message for i in reader.items if isinstance(i.message, ToolOutputMessage)]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["stdout", "stderr"]), st.text(alphabet="ab\n\r中", max_size=12)),
        max_size=30,
    )
)
def test_coalesced_output_loses_nothing_and_sends_whole_lines(
    writes: list[tuple[OutputStream, str]],
) -> None:
    pushed: list[tuple[OutputStream, str]] = []
    coalescer = OutputCoalescer(lambda stream, text: pushed.append((stream, text)))
    for stream, text in writes:
        coalescer.write(stream, text)
    coalescer.flush(final=True)
    for name in ("stdout", "stderr"):
        sent = [text for stream, text in pushed if stream == name]
        assert "".join(sent) == "".join(text for stream, text in writes if stream == name)
        assert all(text.endswith("\n") for text in sent[:-1])  # only the very last may be open
    assert all(text for _, text in pushed)


async def test_interleaved_streams_keep_their_order() -> None:
    pushed: list[tuple[OutputStream, str]] = []
    coalescer = OutputCoalescer(lambda stream, text: pushed.append((stream, text)))
    coalescer.write("stdout", "one\n")
    coalescer.write("stdout", "two\n")
    coalescer.write("stderr", "oops\n")
    coalescer.write("stdout", "three\n")
    coalescer.flush()
    # The first write goes at once; the rest waited for one batch.
    assert pushed == [("stdout", "one\n"), ("stdout", "two\n"), ("stderr", "oops\n"), ("stdout", "three\n")]


def test_an_unfinished_line_waits_for_its_end_unless_it_grows_too_long() -> None:
    pushed: list[tuple[OutputStream, str]] = []
    coalescer = OutputCoalescer(lambda stream, text: pushed.append((stream, text)))
    coalescer.write("stdout", "50%")
    assert pushed == []
    coalescer.write("stdout", " done\nnext")
    assert pushed == [("stdout", "50% done\n")]
    coalescer.write("stdout", "x" * (OPEN_LINE_MAX_CHARS + 1))
    assert pushed[-1] == ("stdout", "next" + "x" * (OPEN_LINE_MAX_CHARS + 1))


def test_output_is_batched_to_one_message_an_interval_and_flushed_before_the_end() -> None:
    clock = FakeClock()
    bus = SessionMessageBus("s")
    reader = BusReader(bus)
    ctx = BusToolContext(bus, "c1", "conv", output_timers=clock)
    lines = 0
    for _ in range(350):  # 0.35 s of a chatty command: 50 lines a millisecond
        for _ in range(50):
            lines += 1
            ctx.output("stdout", f"line {lines}\n")
        clock.advance(0.001)
    ctx.output("stdout", "no newline yet")
    ctx.flush_output()
    outputs = _outputs(reader)
    # The first write goes at once, then one batch an interval (0.1, 0.2 and
    # 0.3 s), then the final flush.
    assert len(outputs) == 1 + int(0.35 / OUTPUT_INTERVAL_S) + 1
    text = "".join(m.text for m in outputs)
    assert text == "".join(f"line {n}\n" for n in range(1, lines + 1)) + "no newline yet"
    assert {m.tool_call_id for m in outputs} == {"c1"}
    assert outputs[0].text == "line 1\n"  # a quiet start is not held back


def test_a_pending_batch_is_not_sent_after_flush() -> None:
    clock = FakeClock()
    bus = SessionMessageBus("s")
    reader = BusReader(bus)
    ctx = BusToolContext(bus, "c1", "conv", output_timers=clock)
    ctx.output("stdout", "a\n")  # sent at once
    ctx.output("stdout", "b\n")  # held for the timer
    assert clock.pending == [OUTPUT_INTERVAL_S]
    ctx.flush_output()
    assert clock.pending == []  # the flush took the timer's batch, and the timer
    clock.advance(OUTPUT_INTERVAL_S * 2)
    assert [m.text for m in _outputs(reader)] == ["a\n", "b\n"]
