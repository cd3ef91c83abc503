"""SpeakingSink: says when a clip starts and ends, whatever ends it."""

from __future__ import annotations

import asyncio

from desktop_agent.core.speaking_sink import SpeakingSink
from desktop_agent.core.speech_stream import SpeechStream
from desktop_agent.testing.fake_sink import FakeAudioSink


async def test_it_says_speaking_while_a_clip_plays_and_not_after_it_ended_or_stopped() -> None:
    inner = FakeAudioSink()
    said: list[bool] = []
    sink = SpeakingSink(inner, said.append)
    async with asyncio.timeout(5):
        first = asyncio.ensure_future(sink.play(b"c1", "audio/wav"))
        await inner.wait_for_plays(1)
        assert sink.speaking
        inner.finish()
        await first
        second = asyncio.ensure_future(sink.play(b"c2", "audio/wav"))
        await inner.wait_for_plays(2)
        sink.stop()
        await second
    assert said == [True, False, True, False]
    assert not sink.speaking
    assert inner.log == [("play", b"c1", "audio/wav"), ("end", 0), ("play", b"c2", "audio/wav"),
                         ("stop",), ("stopped", 1)]


async def test_a_cancelled_stream_still_ends_speaking() -> None:
    inner = FakeAudioSink()
    said: list[bool] = []
    sink = SpeakingSink(inner, said.append)
    stream = SpeechStream(sample_rate=22050, engine="fake")
    stream.feed(b"A1")
    async with asyncio.timeout(5):
        playing = asyncio.ensure_future(sink.play_stream(stream))
        await inner.wait_for_plays(1)
        playing.cancel()
        await asyncio.gather(playing, return_exceptions=True)
    assert said == [True, False]
    assert inner.log == [("stream", stream.mime), ("cancelled", 0)]
