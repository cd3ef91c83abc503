"""OutputTap: whoever listens (the echo gate) is told what the speaker plays
— a WAV clip's samples, a stream's as they come, an unreadable clip as
such — and when it stops; everything else goes to the speaker unchanged."""

from __future__ import annotations

import asyncio

from desktop_agent.core.speech_stream import SpeechStream
from desktop_agent.core.voice_output import OutputTap
from desktop_agent.testing.fake_sink import FakeAudioSink
from desktop_agent.voice.wav import pcm16_wav


class Heard:
    def __init__(self) -> None:
        self.log: list[tuple[object, ...]] = []

    def play_started(self, rate: int, channels: int = 1) -> None:
        self.log.append(("started", rate, channels))

    def play_unknown(self) -> None:
        self.log.append(("unknown",))

    def play_pcm(self, pcm: bytes) -> None:
        self.log.append(("pcm", len(pcm)))

    def play_stopped(self) -> None:
        self.log.append(("stopped",))


async def test_a_wav_clip_is_told_whole_then_its_end() -> None:
    sink = FakeAudioSink(auto_finish_s=0.01)
    tap, heard = OutputTap(sink), Heard()
    tap.listen(heard)
    async with asyncio.timeout(5):
        await tap.play(pcm16_wav(b"\1\0" * 800, 16000), "audio/wav")
    assert heard.log == [("started", 16000, 1), ("pcm", 1600), ("stopped",)]
    assert sink.log[0][0] == "play"


async def test_an_mp3_is_unreadable_and_still_plays() -> None:
    sink = FakeAudioSink(auto_finish_s=0.01)
    tap, heard = OutputTap(sink), Heard()
    tap.listen(heard)
    async with asyncio.timeout(5):
        await tap.play(b"ID3 an mp3", "audio/mpeg")
    assert heard.log == [("unknown",), ("stopped",)]


async def test_a_stream_is_told_as_it_comes_and_a_stop_ends_it() -> None:
    sink = FakeAudioSink()
    tap, heard = OutputTap(sink), Heard()
    tap.listen(heard)
    stream = SpeechStream(sample_rate=22050, engine="espeak")
    stream.feed(b"\0\1" * 100)
    playing = asyncio.ensure_future(tap.play_stream(stream))
    async with asyncio.timeout(5):
        while ("pcm", 200) not in heard.log:
            await asyncio.sleep(0)
        stream.feed(b"\0\1" * 50)
        while ("pcm", 100) not in heard.log:
            await asyncio.sleep(0)
        tap.stop()
        await playing
    assert heard.log == [("started", 22050, 1), ("pcm", 200), ("pcm", 100), ("stopped",)]
    assert ("stop",) in sink.log


def test_the_rest_is_the_speakers() -> None:
    sink = FakeAudioSink()
    tap = OutputTap(sink)
    assert tap.volume == 1.0 and tap.playing is False
