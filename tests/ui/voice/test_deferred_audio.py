"""The speaker and microphone made at first use (QtMultimedia stays out of
an idle window)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from desktop_agent.core.speech_stream import SpeechStream
from desktop_agent.testing.fake_sink import FakeAudioSink
from desktop_agent.ui.voice.deferred_audio import DeferredMicrophone, DeferredSink


def recording_maker(sink: FakeAudioSink | None) -> tuple[Callable[[float, bool], FakeAudioSink | None], list[tuple[float, bool]]]:
    made: list[tuple[float, bool]] = []

    def make(volume: float, muted: bool) -> FakeAudioSink | None:
        made.append((volume, muted))
        if sink is not None:
            sink.volume, sink.muted = volume, muted
        return sink

    return make, made


async def test_nothing_is_made_until_the_first_clip_and_then_once_with_the_latest_level() -> None:
    fake = FakeAudioSink(auto_finish_s=0.0)
    make, made = recording_maker(fake)
    sink = DeferredSink(make, volume=0.8, muted=False)
    sink.set_volume(0.5)
    sink.set_muted(True)
    sink.stop()
    assert (made, sink.speaker, sink.missing) == ([], None, False)
    await sink.play(b"RIFF", "audio/wav")
    await sink.play(b"RIFF2", "audio/wav")
    assert made == [(0.5, True)]
    assert sink.speaker is fake and [audio for audio, _mime in fake.plays] == [b"RIFF", b"RIFF2"]
    sink.set_volume(0.25)
    sink.set_muted(False)
    assert (fake.volume, fake.muted) == (0.25, False)


async def test_no_device_is_said_once_and_nothing_waits_for_silent_audio() -> None:
    told: list[str] = []
    make, made = recording_maker(None)
    sink = DeferredSink(make, on_missing=lambda: told.append("missing"))
    await sink.play(b"RIFF", "audio/wav")
    stream = SpeechStream(sample_rate=22050, engine="espeak")
    await sink.play_stream(stream)  # returns at once, nothing to hear it
    await sink.play(b"RIFF", "audio/wav")
    sink.stop()
    sink.close()
    assert (made, told, sink.missing, sink.speaker) == ([(1.0, False)], ["missing"], True, None)


async def test_the_first_stream_makes_the_speaker_too() -> None:
    fake = FakeAudioSink(auto_finish_s=0.0)
    make, made = recording_maker(fake)
    sink = DeferredSink(make)
    stream = SpeechStream(sample_rate=22050, engine="espeak")
    stream.feed(b"\x00\x00" * 10)
    stream.finish()
    await sink.play_stream(stream)
    assert made == [(1.0, False)] and fake.log[0] == ("stream", stream.mime)


class RecordingMic:
    instances: list[RecordingMic] = []

    def __init__(self) -> None:
        self.calls: list[str] = []
        RecordingMic.instances.append(self)

    def start(self, on_frames: Callable[[bytes], None]) -> None:
        self.calls.append("start")
        on_frames(b"\x01\x00")

    def stop(self) -> None:
        self.calls.append("stop")


def test_the_microphone_is_opened_at_the_first_start_only(monkeypatch: pytest.MonkeyPatch) -> None:
    import desktop_agent.ui.voice.mic as mic

    monkeypatch.setattr(mic, "QtAudioInput", RecordingMic)
    RecordingMic.instances = []
    microphone = DeferredMicrophone()
    microphone.stop()  # before any start: nothing to stop, nothing made
    assert RecordingMic.instances == []
    frames: list[bytes] = []
    microphone.start(frames.append)
    microphone.stop()
    microphone.start(frames.append)
    assert len(RecordingMic.instances) == 1
    assert (RecordingMic.instances[0].calls, frames) == (["start", "stop", "start"], [b"\x01\x00"] * 2)


def test_no_microphone_is_the_one_line_error_start_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    import desktop_agent.ui.voice.mic as mic
    from desktop_agent.texts import ENGLISH

    class NoDevice(RecordingMic):
        def start(self, on_frames: Callable[[bytes], None]) -> None:
            raise OSError(ENGLISH.tr("mic_none"))

    monkeypatch.setattr(mic, "QtAudioInput", NoDevice)
    with pytest.raises(OSError, match=f"^{ENGLISH.tr('mic_none')}$"):
        DeferredMicrophone().start(lambda _frames: None)
