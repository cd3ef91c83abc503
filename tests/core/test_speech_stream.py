"""SpeechStream: PCM readable while it grows, by any number of readers."""

from __future__ import annotations

import asyncio
import wave
from io import BytesIO

import pytest

from desktop_agent.core.speech_stream import SpeechStream


async def collect(stream: SpeechStream) -> list[bytes]:
    return [chunk async for chunk in stream.chunks()]


async def test_a_reader_gets_chunks_as_they_are_fed_and_ends_with_the_stream() -> None:
    stream = SpeechStream(sample_rate=22050, engine="e")
    stream.feed(b"ab")
    reader = asyncio.create_task(collect(stream))
    async with asyncio.timeout(5):
        await asyncio.sleep(0)
        assert not reader.done()
        stream.feed(b"cd")
        stream.finish()
        assert await reader == [b"ab", b"cd"]
    assert stream.size == 4 and stream.finished and stream.error is None


async def test_a_late_reader_replays_from_the_first_chunk() -> None:
    stream = SpeechStream(sample_rate=16000, engine="e")
    for chunk in (b"1", b"2"):
        stream.feed(chunk)
    stream.finish()
    async with asyncio.timeout(5):
        assert await collect(stream) == [b"1", b"2"]
        assert await collect(stream) == [b"1", b"2"]


def test_cancel_stops_the_producer_and_ends_with_an_error_once() -> None:
    stream = SpeechStream(sample_rate=22050, engine="e")
    stopped: list[str] = []
    done: list[str | None] = []
    stream.set_canceller(lambda: stopped.append("stop"))
    stream.add_done_callback(lambda s: done.append(s.error))
    stream.cancel()
    stream.cancel()
    stream.finish()
    assert stopped == ["stop"]
    assert done == ["cancelled"]
    with pytest.raises(RuntimeError, match="feed after finish"):
        stream.feed(b"x")


def test_wav_and_mime_describe_the_pcm() -> None:
    stream = SpeechStream(sample_rate=22050, engine="e")
    stream.feed(b"\x01\x00" * 10)
    assert stream.mime == "audio/L16;rate=22050;channels=1"
    with wave.open(BytesIO(stream.wav()), "rb") as reader:
        assert (reader.getnchannels(), reader.getsampwidth(), reader.getframerate(), reader.getnframes()) == (
            1,
            2,
            22050,
            10,
        )
