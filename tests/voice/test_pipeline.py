"""SpeechPipeline: early, concurrent synthesis; audio pushed in segment order."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from desktop_agent.core.messages import AudioEndMessage, AudioMessage
from desktop_agent.core.ports import Speech
from desktop_agent.core.speech_stream import SpeechStream
from desktop_agent.testing.bus_reader import BusReader, RecordingBus
from desktop_agent.testing.fake_clock import FakeClock
from desktop_agent.testing.fake_sink import FakeAudioSink
from desktop_agent.testing.fake_tts import FakeStreamingTTS, FakeTTS
from desktop_agent.voice import AutoEngine, SpeechCache, SpeechPipeline


def drain_bus(bus: RecordingBus) -> list[tuple[dict[str, Any], bytes | None]]:
    items = []
    while (item := bus.reader.get_nowait()) is not None:
        assert isinstance(item.message, AudioMessage)
        items.append((item.to_json(), item.message.audio or None))
    return items


def audio_msg(seq: int, segment_id: int, text: str, engine: str = "fake") -> tuple[dict[str, Any], bytes]:
    audio = FakeTTS.audio_for(text)
    message = {
        "type": "audio",
        "session_id": "s1",
        "seq": seq,
        "segment_id": segment_id,
        "mime": "audio/wav",
        "bytes": len(audio),
        "engine": engine,
    }
    return message, audio


def error_msg(seq: int, segment_id: int, error: str, engine: str = "fake") -> tuple[dict[str, Any], None]:
    message = {
        "type": "audio",
        "session_id": "s1",
        "seq": seq,
        "segment_id": segment_id,
        "error": error,
        "engine": engine,
    }
    return message, None


async def test_segments_finishing_out_of_order_are_pushed_in_submit_order() -> None:
    tts = FakeTTS(hold=True)
    bus = RecordingBus("s1")
    pipeline = SpeechPipeline(tts, bus)
    for segment_id, text in ((1, "first"), (2, "second"), (3, "third")):
        pipeline.submit(segment_id, text)
    async with asyncio.timeout(5):
        for text in ("third", "second"):
            tts.release(text)
            await tts.done(text).wait()
        assert drain_bus(bus) == []  # the first is not ready, so nothing may jump ahead
        tts.release("first")
        await pipeline.drain()
    assert tts.finished == ["third", "second", "first"]
    assert drain_bus(bus) == [audio_msg(1, 1, "first"), audio_msg(2, 2, "second"), audio_msg(3, 3, "third")]


async def test_synthesis_starts_at_submit_without_waiting_for_drain() -> None:
    tts = FakeTTS(hold=True)
    pipeline = SpeechPipeline(tts, RecordingBus("s1"))
    pipeline.submit(1, "hello")
    async with asyncio.timeout(5):
        await tts.started("hello").wait()
    assert tts.calls == ["hello"]
    pipeline.cancel()


async def test_a_failing_segment_pushes_an_error_and_the_rest_follow() -> None:
    tts = FakeTTS()
    tts.fail_on("bad", "engine exploded\nwith detail")
    bus = RecordingBus("s1")
    pipeline = SpeechPipeline(tts, bus)
    pipeline.submit(1, "good one")
    pipeline.submit(2, "bad")
    pipeline.submit(3, "good two")
    async with asyncio.timeout(5):
        await pipeline.drain()
    assert drain_bus(bus) == [
        audio_msg(1, 1, "good one"),
        error_msg(2, 2, "engine exploded with detail"),
        audio_msg(3, 3, "good two"),
    ]


async def test_an_engine_bug_becomes_an_error_message_not_a_dead_turn() -> None:
    class Broken:
        name = "broken"

        async def synthesize(self, text: str) -> Speech:
            raise KeyError(text)

    bus = RecordingBus("s1")
    pipeline = SpeechPipeline(Broken(), bus)
    pipeline.submit(7, "x")
    async with asyncio.timeout(5):
        await pipeline.drain()
    assert drain_bus(bus) == [error_msg(1, 7, "speech failed: KeyError: 'x'", engine="broken")]


async def test_a_segment_that_takes_too_long_is_pushed_as_timed_out() -> None:
    clock = FakeClock()
    tts = FakeTTS(hold=True)
    bus = RecordingBus("s1")
    pipeline = SpeechPipeline(tts, bus, segment_timeout_s=15, timers=clock)
    pipeline.submit(1, "never")
    async with asyncio.timeout(5):
        await clock.wait_scheduled()  # the engine call started, bounded
        assert clock.pending == [15.0]
        clock.advance(15)
        await pipeline.drain()
    assert drain_bus(bus) == [error_msg(1, 1, "speech timed out after 15 s")]
    assert tts.cancelled == ["never"]


async def test_text_with_nothing_to_say_is_not_sent_to_the_engine() -> None:
    tts = FakeTTS()
    bus = RecordingBus("s1")
    pipeline = SpeechPipeline(tts, bus)
    pipeline.submit(1, " …。 ")
    async with asyncio.timeout(5):
        await pipeline.drain()
    assert drain_bus(bus) == [error_msg(1, 1, "nothing to speak")]
    assert tts.calls == []


async def test_cancel_drops_pending_audio_and_stops_the_sink() -> None:
    tts = FakeTTS(hold=True)
    bus = RecordingBus("s1")
    sink = FakeAudioSink()
    pipeline = SpeechPipeline(tts, bus)

    reader = BusReader(bus)

    async def consume() -> None:
        while True:
            item = await reader.get()
            if isinstance(item.message, AudioMessage) and item.message.audio:
                await sink.play(item.message.audio, item.message.mime or "")

    pipeline.submit(1, "one")
    pipeline.submit(2, "two")
    consumer = asyncio.get_running_loop().create_task(consume())
    try:
        async with asyncio.timeout(5):
            tts.release("one")
            await sink.wait_for_plays(1)
            pipeline.cancel()
            sink.stop()
            await tts.done("two").wait()
            tts.release("two")
            pipeline.submit(3, "three")
            await pipeline.drain()
            await sink.wait_idle()
    finally:
        consumer.cancel()
    assert tts.cancelled == ["two"]
    assert tts.calls == ["one", "two"]
    assert sink.log == [("play", FakeTTS.audio_for("one"), "audio/wav"), ("stop",), ("stopped", 0)]
    assert drain_bus(bus) == [audio_msg(1, 1, "one")]  # nothing after the cancel


async def test_identical_segments_are_synthesised_once_within_and_across_turns() -> None:
    tts = FakeTTS(hold=True)
    cache = SpeechCache()
    bus = RecordingBus("s1")
    first_turn = SpeechPipeline(tts, bus, cache=cache)
    first_turn.submit(1, "好的。")
    first_turn.submit(2, "好的。")
    async with asyncio.timeout(5):
        tts.release("好的。")
        await first_turn.drain()
        second_turn = SpeechPipeline(tts, bus, cache=cache)
        second_turn.submit(3, "好的。")
        await second_turn.drain()
    assert tts.calls == ["好的。"]
    assert drain_bus(bus) == [audio_msg(1, 1, "好的。"), audio_msg(2, 2, "好的。"), audio_msg(3, 3, "好的。")]


async def test_a_different_voice_does_not_reuse_cached_audio() -> None:
    cache = SpeechCache()
    bus = RecordingBus("s1")
    xiaoxiao, aria = FakeTTS(name="a"), FakeTTS(name="b")
    async with asyncio.timeout(5):
        for engine, segment_id in ((xiaoxiao, 1), (aria, 2)):
            pipeline = SpeechPipeline(engine, bus, cache=cache)
            pipeline.submit(segment_id, "same text")
            await pipeline.drain()
    assert (xiaoxiao.calls, aria.calls) == (["same text"], ["same text"])


async def test_no_more_than_max_concurrency_syntheses_run_at_once() -> None:
    tts = FakeTTS(hold=True)
    pipeline = SpeechPipeline(tts, RecordingBus("s1"), max_concurrency=2)
    texts = ["a", "b", "c", "d"]
    for segment_id, text in enumerate(texts, 1):
        pipeline.submit(segment_id, text)
    async with asyncio.timeout(5):
        await tts.started("a").wait()
        await tts.started("b").wait()
        assert (tts.calls, tts.active) == (["a", "b"], 2)
        tts.release("a")
        await tts.started("c").wait()
        assert tts.calls == ["a", "b", "c"]
        for text in texts:
            tts.release(text)
        await pipeline.drain()
    assert (tts.max_active, tts.finished) == (2, ["a", "b", "c", "d"])


async def test_drain_returns_at_once_when_nothing_is_pending_or_after_cancel() -> None:
    tts = FakeTTS(hold=True)
    pipeline = SpeechPipeline(tts, RecordingBus("s1"))
    async with asyncio.timeout(5):
        await pipeline.drain()
        pipeline.submit(1, "held")
        pipeline.cancel()
        await pipeline.drain()
    assert pipeline.pending == 0


async def test_submitting_a_segment_id_twice_is_refused() -> None:
    pipeline = SpeechPipeline(FakeTTS(), RecordingBus("s1"))
    pipeline.submit(1, "x")
    with pytest.raises(ValueError, match="segment 1 was already submitted"):
        pipeline.submit(1, "y")
    pipeline.cancel()


def test_bad_limits_are_refused_with_the_parameter_named() -> None:
    with pytest.raises(ValueError, match="max_concurrency"):
        SpeechPipeline(FakeTTS(), RecordingBus("s1"), max_concurrency=0)
    with pytest.raises(ValueError, match="segment_timeout_s"):
        SpeechPipeline(FakeTTS(), RecordingBus("s1"), segment_timeout_s=0)


async def test_drain_gives_up_on_an_engine_that_ignores_cancellation_and_keeps_the_order() -> None:
    class Stubborn:
        """Swallows the first cancellation (the per-segment timeout)."""

        name = "stubborn"

        def __init__(self) -> None:
            self.cancels = 0
            self.swallowed = asyncio.Event()
            self.gave_up = asyncio.Event()

        async def synthesize(self, text: str) -> Speech:
            if text != "stuck":
                return Speech(FakeTTS.audio_for(text), "audio/wav", self.name)
            while True:
                try:
                    await asyncio.Event().wait()
                except asyncio.CancelledError:
                    self.cancels += 1
                    self.swallowed.set()
                    if self.cancels > 1:
                        self.gave_up.set()
                        raise

    clock = FakeClock()
    engine = Stubborn()
    bus = RecordingBus("s1")
    pipeline = SpeechPipeline(engine, bus, segment_timeout_s=15, timers=clock)
    pipeline.submit(1, "stuck")
    pipeline.submit(2, "fine")
    async with asyncio.timeout(5):
        drained = asyncio.ensure_future(pipeline.drain())
        await clock.wait_scheduled(2)  # the segment's bound and the drain's (two rounds: 30 s)
        clock.advance(15)  # the segment's: cancelled, and it swallows that
        await engine.swallowed.wait()
        assert engine.cancels == 1 and not drained.done()
        clock.advance(15)  # the drain's: it gives up on the segment
        await drained
        await engine.gave_up.wait()
    assert drain_bus(bus) == [
        error_msg(1, 1, "speech timed out", engine="stubborn"),
        audio_msg(2, 2, "fine", engine="stubborn"),
    ]
    assert engine.cancels == 2


def stream_items(bus: RecordingBus) -> list[tuple[dict[str, Any], SpeechStream | None]]:
    """The audio messages on the bus (``audio_end`` ones left out: see :func:`ends`)."""
    items = []
    while (item := bus.reader.get_nowait()) is not None:
        if isinstance(item.message, AudioEndMessage):
            continue
        assert isinstance(item.message, AudioMessage)
        items.append((item.to_json(), item.message.stream))
    return items


def stream_msg(seq: int, segment_id: int) -> dict[str, Any]:
    return {
        "type": "audio",
        "session_id": "s1",
        "seq": seq,
        "segment_id": segment_id,
        "mime": "audio/L16;rate=22050;channels=1",
        "engine": "fake",
        "stream": True,
    }


def every_json(bus: RecordingBus) -> list[dict[str, Any]]:
    out = []
    while (item := bus.reader.get_nowait()) is not None:
        out.append({k: v for k, v in item.to_json().items() if k != "session_id"})
    return out


async def test_every_streamed_clip_ends_with_its_size_and_duration_after_its_audio() -> None:
    tts = FakeStreamingTTS()
    bus = RecordingBus("s1")
    pipeline = SpeechPipeline(tts, bus)
    pipeline.submit(1, "one")
    pipeline.submit(2, "two")
    async with asyncio.timeout(5):
        await tts.done("two").wait()
        await asyncio.sleep(0)  # the task callbacks push both audio messages
        tts.streams["one"].feed(b"\x00\x00" * 22050)  # one more second of PCM
        tts.streams["one"].finish()
        tts.streams["two"].finish()
        await pipeline.drain()
    first, second = len(b"first:one") + 44100, len(b"first:two")
    audio = {"type": "audio", "mime": "audio/L16;rate=22050;channels=1", "engine": "fake", "stream": True}
    assert every_json(bus) == [
        {**audio, "seq": 1, "segment_id": 1},
        {**audio, "seq": 2, "segment_id": 2},
        {"type": "audio_end", "seq": 3, "segment_id": 1, "bytes": first, "ms": round(first / 2 / 22.05)},
        {"type": "audio_end", "seq": 4, "segment_id": 2, "bytes": second, "ms": round(second / 2 / 22.05)},
    ]


async def test_drain_waits_for_the_streams_to_end_so_audio_end_comes_before_the_turns_end() -> None:
    clock = FakeClock()
    tts = FakeStreamingTTS()
    bus = RecordingBus("s1")
    pipeline = SpeechPipeline(tts, bus, timers=clock)
    pipeline.submit(1, "slow")
    async with asyncio.timeout(5):
        await tts.done("slow").wait()
        drained = asyncio.ensure_future(pipeline.drain())
        await clock.wait_scheduled()  # drain is waiting for the stream, bounded
        assert not drained.done()  # the stream is still producing
        tts.streams["slow"].finish()
        await drained
    assert [j["type"] for j in every_json(bus)] == ["audio", "audio_end"]


async def test_an_interrupt_ends_each_announced_stream_with_an_error_at_once() -> None:
    tts = FakeStreamingTTS()
    bus = RecordingBus("s1")
    pipeline = SpeechPipeline(tts, bus)
    pipeline.submit(1, "done")
    pipeline.submit(2, "cut")
    async with asyncio.timeout(5):
        await tts.done("cut").wait()
        await asyncio.sleep(0)
        tts.streams["done"].finish()
    pipeline.cancel()
    ends = [j for j in every_json(bus) if j["type"] == "audio_end"]
    assert ends == [
        {"type": "audio_end", "seq": 3, "segment_id": 1, "bytes": len(b"first:done"),
         "ms": round(len(b"first:done") / 2 / 22.05)},
        {"type": "audio_end", "seq": 4, "segment_id": 2, "error": "cancelled"},
    ]


async def test_a_streaming_engine_pushes_each_stream_at_its_first_chunk_in_submit_order() -> None:
    tts = FakeStreamingTTS(hold=True)
    bus = RecordingBus("s1")
    pipeline = SpeechPipeline(tts, bus)
    pipeline.submit(1, "first")
    pipeline.submit(2, "second")
    async with asyncio.timeout(5):
        tts.release("second")
        await tts.done("second").wait()
        assert stream_items(bus) == []  # segment 1 has no audio yet
        tts.release("first")
        await tts.done("first").wait()
        await asyncio.sleep(0)  # the task callbacks push
        items = stream_items(bus)
        assert [json for json, _ in items] == [stream_msg(1, 1), stream_msg(2, 2)]
        assert [s.pcm() if s else None for _, s in items] == [b"first:first", b"first:second"]
        assert not any(s.finished for _, s in items if s)  # still being produced
        for text in ("first", "second"):
            tts.streams[text].finish()
        await pipeline.drain()


async def test_a_finished_stream_is_cached_as_a_wav_and_a_cancelled_one_is_not() -> None:
    tts = FakeStreamingTTS()
    cache = SpeechCache()
    bus = RecordingBus("s1")
    pipeline = SpeechPipeline(tts, bus, cache=cache)
    pipeline.submit(1, "kept")
    pipeline.submit(2, "dropped")
    async with asyncio.timeout(5):
        await tts.done("dropped").wait()
        await asyncio.sleep(0)  # both announced
        tts.streams["kept"].feed(b"\x01\x00")
        tts.streams["kept"].finish()
        pipeline.cancel()  # "dropped" is still being produced
    assert tts.stream_cancelled == ["dropped"]
    later = RecordingBus("s1")
    again = SpeechPipeline(tts, later, cache=cache)
    again.submit(1, "kept")
    async with asyncio.timeout(5):
        await again.drain()
    ((json, _),) = drain_bus(later)
    assert json["mime"] == "audio/wav" and json["bytes"] == 44 + len(b"first:kept") + 2
    assert tts.calls == ["kept", "dropped"]  # the second turn hit the cache


async def test_a_stream_that_fails_before_any_audio_is_an_error_message() -> None:
    tts = FakeStreamingTTS()
    tts.fail_on("bad", "no voice")
    bus = RecordingBus("s1")
    pipeline = SpeechPipeline(tts, bus)
    pipeline.submit(1, "bad")
    async with asyncio.timeout(5):
        await pipeline.drain()
    assert drain_bus(bus) == [error_msg(1, 1, "no voice")]


async def test_auto_streams_while_its_offline_fallback_speaks_and_not_while_the_primary_does() -> None:
    """``auto`` whose online voice is down: the segment that found it down
    came whole from the fallback; the next ones stream from the fallback
    (speaking sooner); once the primary is back, whole clips again."""
    primary, fallback = FakeTTS(name="edge"), FakeStreamingTTS()
    now = [100.0]
    engine = AutoEngine(primary, fallback, lambda _notice: None, retry_primary_after_s=30, clock=lambda: now[0])
    primary.failing = "edge-tts failed: no network"
    bus = RecordingBus("s1")
    pipeline = SpeechPipeline(engine, bus)
    pipeline.submit(1, "first")
    await pipeline.drain()
    pipeline.submit(2, "second")
    async with asyncio.timeout(5):
        await fallback.done("second").wait()
        fallback.streams["second"].finish()
        await pipeline.drain()
    primary.failing = None
    now[0] += 31  # due for a probe: the primary is asked again, and answers
    pipeline.submit(3, "third")
    await pipeline.drain()
    items = stream_items(bus)
    assert [(json["segment_id"], json["engine"], stream is not None) for json, stream in items] == [
        (1, "fake", False), (2, "fake", True), (3, "edge", False)]
    assert (fallback.calls, primary.calls) == (["first", "second"], ["first", "third"])
