"""QtAudioSink with the real QMediaPlayer, offscreen and without a sound
device (where QMediaPlayer still plays in real time and reports the end of
each clip), on short generated clips played at 8x.

Async tests here run on a qasync loop (tests/ui/conftest.py)."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtMultimedia import QMediaPlayer
from PySide6.QtWidgets import QApplication

from desktop_agent.core.ports import AudioSink
from desktop_agent.core.speech_stream import SpeechStream
from desktop_agent.testing.fake_clock import FakeClock
from desktop_agent.ui.voice.audio_sink import QtAudioSink, no_output_reason
from desktop_agent.voice import EspeakEngine
from desktop_agent.voice.wav import silent_wav, tone_wav

Event = tuple[object, ...]


@pytest.fixture
def sink(qapp: QApplication) -> Iterator[QtAudioSink]:
    sink = QtAudioSink(playback_rate=8.0)
    yield sink
    sink.close()
    sink.deleteLater()


def record(sink: QtAudioSink) -> list[Event]:
    events: list[Event] = []
    sink.clip_started.connect(lambda clip: events.append(("started", clip)))
    sink.clip_finished.connect(lambda clip, reason: events.append(("finished", clip, reason)))
    sink.player.durationChanged.connect(lambda ms: events.append(("duration", ms)) if ms > 0 else None)
    return events


def started_event(sink: QtAudioSink) -> asyncio.Event:
    started = asyncio.Event()
    sink.clip_started.connect(lambda _clip: started.set())
    return started


def test_it_is_an_audio_sink(sink: QtAudioSink) -> None:
    port: AudioSink = sink
    assert port is sink


async def test_clips_play_to_their_end_one_after_another_in_order(sink: QtAudioSink) -> None:
    events = record(sink)
    async with asyncio.timeout(10):
        for seconds in (0.4, 0.8, 0.6):
            await sink.play(tone_wav(seconds), "audio/wav")
    assert events == [
        ("started", 1),
        ("duration", 400),
        ("finished", 1, "end"),
        ("started", 2),
        ("duration", 800),
        ("finished", 2, "end"),
        ("started", 3),
        ("duration", 600),
        ("finished", 3, "end"),
    ]
    assert not sink.playing


async def test_invalid_media_ends_its_play_at_once_and_the_next_clip_still_plays(sink: QtAudioSink) -> None:
    events = record(sink)
    async with asyncio.timeout(10):
        await sink.play(b"this is not audio" * 10, "audio/wav")
        await sink.play(silent_wav(0.4), "audio/wav")
    assert events == [
        ("started", 1),
        ("finished", 1, "invalid"),
        ("started", 2),
        ("duration", 400),
        ("finished", 2, "end"),
    ]


async def test_stop_silences_at_once_and_the_pending_play_returns(sink: QtAudioSink) -> None:
    events = record(sink)
    started = asyncio.Event()
    sink.player.playbackStateChanged.connect(
        lambda state: started.set() if state == QMediaPlayer.PlaybackState.PlayingState else None
    )
    play = asyncio.ensure_future(sink.play(silent_wav(60), "audio/wav"))  # 7.5 s at 8x
    async with asyncio.timeout(5):
        await started.wait()
        sink.stop()
        assert sink.player.playbackState() == QMediaPlayer.PlaybackState.StoppedState
        await play
    assert events == [("started", 1), ("duration", 60000), ("finished", 1, "stopped")]


async def test_a_new_play_replaces_a_pending_one(sink: QtAudioSink) -> None:
    events = record(sink)
    started = started_event(sink)
    first = asyncio.ensure_future(sink.play(silent_wav(60), "audio/wav"))
    async with asyncio.timeout(10):
        await started.wait()
        await sink.play(silent_wav(0.4), "audio/wav")
        await first
    assert [e for e in events if e[0] == "finished"] == [("finished", 1, "replaced"), ("finished", 2, "end")]


async def test_a_cancelled_play_stops_the_player(sink: QtAudioSink) -> None:
    events = record(sink)
    started = started_event(sink)
    play = asyncio.ensure_future(sink.play(silent_wav(60), "audio/wav"))
    async with asyncio.timeout(5):
        await started.wait()
        play.cancel()
        with pytest.raises(asyncio.CancelledError):
            await play
    assert sink.player.playbackState() == QMediaPlayer.PlaybackState.StoppedState
    assert events[-1] == ("finished", 1, "cancelled")


async def test_a_player_that_never_reports_the_end_is_cut_by_the_watchdog(
    sink: QtAudioSink, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = FakeClock()
    watched = QtAudioSink(playback_rate=8.0, load_timeout_s=5, end_slack_s=2, timers=clock)
    monkeypatch.setattr(watched.player, "play", lambda: None)  # loads, never plays, never ends
    events = record(watched)
    loaded = asyncio.Event()
    watched.player.durationChanged.connect(lambda ms: loaded.set() if ms > 0 else None)
    try:
        async with asyncio.timeout(5):
            play = asyncio.ensure_future(watched.play(silent_wav(0.4), "audio/wav"))
            await loaded.wait()
            assert clock.pending == [0.4 / 8 + 2]  # the clip's length at its rate, and the slack
            clock.advance(0.4 / 8 + 1.9)
            assert not play.done()
            clock.advance(0.1)
            await play
    finally:
        watched.close()
        watched.deleteLater()
    assert events[-1] == ("finished", 1, "timeout")


async def test_a_clip_that_never_loads_is_cut_by_the_load_watchdog(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    watched = QtAudioSink(playback_rate=8.0, load_timeout_s=5, timers=clock)
    monkeypatch.setattr(watched.player, "setSource", lambda _url: None)  # the backend never answers
    events = record(watched)
    try:
        async with asyncio.timeout(5):
            play = asyncio.ensure_future(watched.play(silent_wav(0.4), "audio/wav"))
            await clock.wait_scheduled()
            assert clock.pending == [5.0]
            clock.advance(5)
            await play
    finally:
        watched.close()
        watched.deleteLater()
    assert events == [("started", 1), ("finished", 1, "timeout")]


async def test_a_muted_clip_still_plays_to_its_end(sink: QtAudioSink) -> None:
    sink.set_muted(True)
    events = record(sink)
    async with asyncio.timeout(5):
        await sink.play(silent_wav(0.4), "audio/wav")
    assert events[-1] == ("finished", 1, "end")


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
async def test_espeak_speech_synthesised_on_the_qt_loop_plays_to_its_end(sink: QtAudioSink) -> None:
    events = record(sink)
    async with asyncio.timeout(20):
        speech = await EspeakEngine().synthesize("你好。Hello.")
        await sink.play(speech.audio, speech.mime)
    assert [e for e in events if e[0] != "duration"] == [("started", 1), ("finished", 1, "end")]


def test_volume_and_mute_reach_the_output_and_are_announced(sink: QtAudioSink) -> None:
    seen: list[object] = []
    sink.volume_changed.connect(seen.append)
    sink.muted_changed.connect(seen.append)
    sink.set_volume(0.25)
    sink.set_muted(True)
    sink.set_muted(False)
    assert (seen, sink.volume(), sink.is_muted()) == ([0.25, True, False], 0.25, False)


def test_out_of_range_settings_are_refused_by_name(sink: QtAudioSink) -> None:
    with pytest.raises(ValueError, match=r"volume must be between 0 and 1, got 1\.5"):
        sink.set_volume(1.5)
    with pytest.raises(ValueError, match="playback rate must be positive, got 0"):
        sink.playback_rate = 0
    sink.playback_rate = 2.0
    assert (sink.playback_rate, sink.player.playbackRate()) == (2.0, 2.0)


async def test_stop_while_the_clip_is_still_loading_returns_and_the_next_clip_plays(
    sink: QtAudioSink,
) -> None:
    events = record(sink)
    started = started_event(sink)
    play = asyncio.ensure_future(sink.play(silent_wav(60), "audio/wav"))
    async with asyncio.timeout(10):
        await started.wait()  # handed to the player, not yet playing
        sink.stop()
        await play
        await sink.play(silent_wav(0.4), "audio/wav")
    finished = [e for e in events if e[0] == "finished"]
    assert finished == [("finished", 1, "stopped"), ("finished", 2, "end")]


async def test_only_the_current_clip_is_kept_on_disk_and_close_removes_it(sink: QtAudioSink) -> None:
    async with asyncio.timeout(10):
        await sink.play(silent_wav(0.2), "audio/wav")
        await sink.play(silent_wav(0.2), "audio/mpeg")
    folder = Path(sink.player.source().toLocalFile()).parent
    assert sorted(p.name for p in folder.iterdir()) == ["clip-2.mp3"]
    sink.close()
    assert not folder.exists()


def tone_stream(seconds: float) -> SpeechStream:
    stream = SpeechStream(sample_rate=16000, engine="test")
    stream.feed(tone_wav(seconds)[44:])
    return stream


needs_no_device = pytest.mark.skipif(no_output_reason() is None, reason="an audio output device exists")
needs_device = pytest.mark.skipif(no_output_reason() is not None, reason="no audio output device")


@needs_no_device
async def test_without_an_output_device_a_stream_plays_whole_once_finished(sink: QtAudioSink) -> None:
    # No sound device here: QAudioSink cannot open, so the sink
    # waits for the end of the stream and plays it through the player.
    events = record(sink)
    stream = tone_stream(0.4)
    async with asyncio.timeout(10):
        play = asyncio.ensure_future(sink.play_stream(stream))
        for _ in range(5):
            await asyncio.sleep(0)
        assert events == [] and sink.playing
        stream.feed(tone_wav(0.4)[44:])
        stream.finish()
        await play
    assert events == [("started", 1), ("duration", 800), ("finished", 1, "end")]


async def test_stop_while_a_stream_is_still_produced_returns_at_once(sink: QtAudioSink) -> None:
    events = record(sink)
    stream = tone_stream(0.4)
    async with asyncio.timeout(10):
        play = asyncio.ensure_future(sink.play_stream(stream))
        for _ in range(5):
            await asyncio.sleep(0)
        sink.stop()
        await play
        await sink.play(tone_wav(0.2), "audio/wav")
    # With a device the stream had started (("started", 1)) before the stop.
    assert [e for e in events if e != ("started", 1)] == [
        ("finished", 1, "stopped"),
        ("started", 2),
        ("duration", 200),
        ("finished", 2, "end"),
    ]


@needs_device
async def test_with_an_output_device_a_stream_starts_before_it_is_finished_and_plays_to_its_end(
    sink: QtAudioSink,
) -> None:
    # Runs where QtMultimedia lists an output (e.g. a PulseAudio null sink).
    events = record(sink)
    stream = tone_stream(0.2)
    started = started_event(sink)
    async with asyncio.timeout(10):
        play = asyncio.ensure_future(sink.play_stream(stream))
        await started.wait()
        assert not stream.finished and events == [("started", 1)]
        stream.feed(tone_wav(0.2)[44:])
        stream.finish()
        await play
    assert events == [("started", 1), ("finished", 1, "end")]
