"""QtAudioSink: the window's speaker, one clip at a time, via QMediaPlayer.

The playback queue (core) decides what plays when; this only plays. Facts it
relies on (seen on the test machines): without a sound device QMediaPlayer
still plays in real time and reports ``EndOfMedia`` on time, so the queue keeps
advancing; bad bytes give ``InvalidMedia`` + ``errorOccurred`` at once; a
stale ``LoadedMedia`` arrives before the end, so only ``EndOfMedia`` and
``InvalidMedia`` (or an error) end a clip. Handlers read the player's
*current* status rather than the signal's argument, so a status change
queued from the previous clip can never end the next one.

Clips go to the player as small files in a private temp folder, not through
a QBuffer: with Qt 6.12's FFmpeg backend, ``setSourceDevice`` while the
previous QBuffer source is still loading deadlocks the GUI thread (seen
when a clip is replaced or stopped right after ``play``); file sources do
not. A clip's file is deleted when the next source replaces it, the folder
on ``close()`` (or when the sink is collected).

Without an output device (no sound card, no sound server) the player still
plays in real time, silently: :func:`no_output_reason` tells the composition
root, which then makes no sink at all, so text is not held back for clips
nobody hears.

Streamed speech (:meth:`QtAudioSink.play_stream`) goes to a
``QAudioSink`` in push mode instead: each PCM chunk is written to the device
as the engine produces it, as fast as the device's buffer takes it, so the
first samples sound before synthesis ends. A ``QAudioSink`` cannot open
without an output device (it simply fails); then the stream is
awaited and played whole through the player, as before.

Which output: ``device`` (a function, asked at every clip) names the
device the settings choose, so a choice made in Settings, or a device
plugged in, is used from the next clip; None (or no function) is the
system's default.

A watchdog bounds every play: ``load_timeout_s`` until the duration is
known, then the duration (at the playback rate) plus ``end_slack_s``, so a
backend that never reports the end cannot stall the queue.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import shutil
import tempfile
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QIODevice, QObject, QUrl, Signal
from PySide6.QtMultimedia import (
    QAudioDevice,
    QAudioFormat,
    QAudioOutput,
    QAudioSink,
    QMediaDevices,
    QMediaPlayer,
    QtAudio,
)

from desktop_agent.core.speech_stream import SpeechStream
from desktop_agent.core.timers import Cancellable, Timers

log = logging.getLogger(__name__)

_SUFFIX = {
    "audio/mpeg": ".mp3",
    "audio/mp3": ".mp3",
    "audio/wav": ".wav",
    "audio/x-wav": ".wav",
    "audio/ogg": ".ogg",
}

END = "end"
INVALID = "invalid"
STOPPED = "stopped"
REPLACED = "replaced"
TIMEOUT = "timeout"
CANCELLED = "cancelled"
POLL_S = 0.01
"""How often a stream's writer retries when the device buffer is full, and
checks for the end of playback (QAudioSink has no "drained" signal)."""


def no_output_reason() -> str | None:
    """Why nothing played here would be heard (for the log), or None when
    QtMultimedia lists an audio output device. Needs the QApplication."""
    if QMediaDevices.audioOutputs():
        return None
    return "QtMultimedia lists no audio output device"


class QtAudioSink(QObject):
    """:class:`~desktop_agent.core.ports.AudioSink` over QMediaPlayer + QAudioOutput.

    Must run on the Qt thread under a qasync loop (``play`` is a coroutine
    that waits for player signals).

    Signals:
        clip_started(int): clip number n (1, 2, …) was handed to the player.
        clip_finished(int, str): clip n ended; the reason is ``end``,
            ``invalid`` (bytes the player cannot decode), ``error: <message>``, ``stopped`` (``stop()``),
            ``replaced`` (a new ``play`` began), ``timeout`` (watchdog) or
            ``cancelled`` (the awaiting task was cancelled).
        volume_changed(float): the output volume (0..1) was set.
        muted_changed(bool): muting was switched.
    """

    clip_started = Signal(int)
    clip_finished = Signal(int, str)
    volume_changed = Signal(float)
    muted_changed = Signal(bool)

    def __init__(
        self,
        parent: QObject | None = None,
        *,
        volume: float = 1.0,
        muted: bool = False,
        playback_rate: float = 1.0,
        load_timeout_s: float = 5.0,
        end_slack_s: float = 2.0,
        device: Callable[[], QAudioDevice | None] | None = None,
        timers: Timers | None = None,
    ) -> None:
        super().__init__(parent)
        self._device = device
        self._output = QAudioOutput(self)
        self._player = QMediaPlayer(self)
        self._player.setAudioOutput(self._output)
        self._player.mediaStatusChanged.connect(self._on_status)
        self._player.errorOccurred.connect(self._on_error)
        self._player.durationChanged.connect(self._on_duration)
        self._load_timeout_s = load_timeout_s
        self._end_slack_s = end_slack_s
        self._rate = 1.0
        self._clip = 0
        self._pending: tuple[int, asyncio.Future[str]] | None = None
        self._dir: Path | None = None
        self._file: Path | None = None
        self._cleanup: Callable[[], object] | None = None
        self._timers = timers
        """The watchdog's clock (None: the running loop's; a test passes a ``FakeClock``)."""
        self._watchdog: Cancellable | None = None
        self._out: QAudioSink | None = None
        self._writer: asyncio.Task[None] | None = None
        self.playback_rate = playback_rate
        self.set_volume(volume)
        self.set_muted(muted)

    # ----------------------------------------------------------------- state

    @property
    def player(self) -> QMediaPlayer:
        """The player itself (tests and benchmarks read its state)."""
        return self._player

    @property
    def playing(self) -> bool:
        """True while a ``play`` is pending."""
        return self._pending is not None

    @property
    def playback_rate(self) -> float:
        return self._rate

    @playback_rate.setter
    def playback_rate(self, rate: float) -> None:
        if not rate > 0:
            raise ValueError(f"audio sink: playback rate must be positive, got {rate!r}")
        self._rate = float(rate)
        self._player.setPlaybackRate(self._rate)

    def volume(self) -> float:
        return float(self._output.volume())

    def is_muted(self) -> bool:
        return bool(self._output.isMuted())

    def set_volume(self, volume: float) -> None:
        """Linear output volume, 0 (silent) to 1 (full)."""
        if not 0.0 <= volume <= 1.0:
            raise ValueError(f"audio sink: volume must be between 0 and 1, got {volume!r}")
        self._output.setVolume(float(volume))
        self._apply_stream_volume()
        self.volume_changed.emit(float(volume))

    def set_muted(self, muted: bool) -> None:
        """Silence the output. The window also tells the playback queue,
        which then neither waits for nor plays speech (a clip playing now is
        stopped); a clip played here while muted plays silently."""
        self._output.setMuted(bool(muted))
        self._apply_stream_volume()
        self.muted_changed.emit(bool(muted))

    # -------------------------------------------------------------- playback

    async def play(self, audio: bytes, mime: str) -> None:
        """Play one clip; return when it ended, failed, or was stopped.

        A ``play`` while another is pending ends the earlier one first
        (``replaced``)."""
        self._finish(REPLACED)
        loop = asyncio.get_running_loop()
        self._clip += 1
        clip = self._clip
        done: asyncio.Future[str] = loop.create_future()
        self._pending = (clip, done)
        device = self.output_device()
        if device != self._output.device():
            self._output.setDevice(device)
        self._set_source(audio, mime, clip)
        self._player.setPlaybackRate(self._rate)
        self._arm_watchdog(self._load_timeout_s)
        self._player.play()
        await self._until_done("clip", clip, done)

    async def play_stream(self, stream: SpeechStream) -> None:
        """Play PCM as it arrives (QAudioSink, push mode); without an output
        device, wait for the whole stream and :meth:`play` it as a WAV."""
        self._finish(REPLACED)
        loop = asyncio.get_running_loop()
        self._clip += 1
        clip = self._clip
        done: asyncio.Future[str] = loop.create_future()
        self._pending = (clip, done)
        out = self._open_output(stream)
        if out is None:
            finished = asyncio.ensure_future(stream.wait_finished())
            try:
                waiters: set[asyncio.Future[Any]] = {done, finished}
                await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
            except asyncio.CancelledError:
                self._finish(CANCELLED)
                raise
            finally:
                finished.cancel()
            if done.done():
                return
            self._pending = None
            self._clip -= 1  # play() numbers the clip again
            await self.play(stream.wav(), "audio/wav")
            return
        device = out.start()
        self._out = out
        self._writer = loop.create_task(self._write(stream, out, device))
        await self._until_done("stream", clip, done)

    async def _until_done(self, what: str, clip: int, done: asyncio.Future[str]) -> None:
        """Say the clip started and wait for its end (cancelled: it ends)."""
        self.clip_started.emit(clip)
        try:
            reason = await done
        except asyncio.CancelledError:
            self._finish(CANCELLED)
            raise
        if reason not in (END, STOPPED, REPLACED):
            log.info("audio sink: %s %d ended early: %s", what, clip, reason)

    def stop(self) -> None:
        """Silence now; a pending ``play`` returns."""
        self._player.stop()
        self._finish(STOPPED)

    def close(self) -> None:
        """Stop and delete the clip files (a later ``play`` starts afresh)."""
        self.stop()
        self._player.setSource(QUrl())
        self._file = self._dir = None
        if self._cleanup is not None:
            self._cleanup()
            self._cleanup = None

    # --------------------------------------------------------------- private

    def output_device(self) -> QAudioDevice:
        """The device the next clip goes to: the chosen one, else the default."""
        chosen = self._device() if self._device is not None else None
        return chosen if chosen is not None and not chosen.isNull() else QMediaDevices.defaultAudioOutput()

    def _open_output(self, stream: SpeechStream) -> QAudioSink | None:
        if stream.sample_width != 2:
            return None
        device = self.output_device()
        if device.isNull():
            return None
        fmt = QAudioFormat()
        fmt.setSampleRate(stream.sample_rate)
        fmt.setChannelCount(stream.channels)
        fmt.setSampleFormat(QAudioFormat.SampleFormat.Int16)
        if not device.isFormatSupported(fmt):
            return None
        out = QAudioSink(device, fmt, self)
        out.setVolume(0.0 if self.is_muted() else self.volume())
        return out

    def _apply_stream_volume(self) -> None:
        if self._out is not None:
            self._out.setVolume(0.0 if self.is_muted() else self.volume())

    async def _write(self, stream: SpeechStream, out: QAudioSink, device: QIODevice | None) -> None:
        """Write chunks as they come, then wait until the device played them."""
        if device is None or out.error() != QtAudio.Error.NoError:
            self._finish(f"error: audio output failed to open ({out.error().name})")
            return
        written = 0
        async for chunk in stream.chunks():
            view = memoryview(chunk)
            while view:
                free = out.bytesFree()
                n = device.write(bytes(view[:free])) if free > 0 else 0
                if n < 0:
                    self._finish(f"error: audio output write failed ({out.error().name})")
                    return
                view = view[n:]
                written += n
                if view:
                    await asyncio.sleep(POLL_S)
        bytes_per_s = stream.sample_rate * stream.channels * stream.sample_width
        self._arm_watchdog(written / bytes_per_s + self._end_slack_s)
        total_us = written * 1_000_000 // bytes_per_s
        while out.state() == QtAudio.State.ActiveState and out.processedUSecs() < total_us:
            await asyncio.sleep(POLL_S)
        self._finish(END)

    def _close_output(self) -> None:
        out, self._out = self._out, None
        writer, self._writer = self._writer, None
        if writer is not None and writer is not asyncio.current_task():
            writer.cancel()
        if out is not None:
            out.stop()
            out.deleteLater()

    def _set_source(self, audio: bytes, mime: str, clip: int) -> None:
        if self._dir is None:
            self._dir = Path(tempfile.mkdtemp(prefix="desktop-agent-audio-"))
            self._cleanup = weakref.finalize(self, shutil.rmtree, self._dir, ignore_errors=True)
        previous = self._file
        self._file = self._dir / f"clip-{clip}{_SUFFIX.get(mime, '')}"
        self._file.write_bytes(audio)
        self._player.setSource(QUrl.fromLocalFile(str(self._file)))
        if previous is not None:
            previous.unlink(missing_ok=True)

    def _finish(self, reason: str) -> None:
        pending, self._pending = self._pending, None
        if pending is None:
            return
        clip, done = pending
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        self._close_output()
        if reason in (REPLACED, TIMEOUT, CANCELLED):
            self._player.stop()
        if not done.done():
            done.set_result(reason)
        self.clip_finished.emit(clip, reason)

    def _arm_watchdog(self, seconds: float) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
        timers = self._timers or asyncio.get_running_loop()
        self._watchdog = timers.call_later(seconds, functools.partial(self._finish, TIMEOUT))

    def _on_status(self, _status: QMediaPlayer.MediaStatus) -> None:
        current = self._player.mediaStatus()
        if current == QMediaPlayer.MediaStatus.EndOfMedia:
            self._finish(END)
        elif current == QMediaPlayer.MediaStatus.InvalidMedia:
            self._finish(INVALID)

    def _on_error(self, error: QMediaPlayer.Error, message: str) -> None:
        if error == QMediaPlayer.Error.NoError or self._pending is None:
            return
        log.info("audio sink: player error %s: %s", error.name, message)
        if error == QMediaPlayer.Error.FormatError:
            self._finish(INVALID)  # arrives just before InvalidMedia; same meaning
        else:
            self._finish(f"error: {message or error.name}")

    def _on_duration(self, duration_ms: int) -> None:
        if duration_ms > 0 and self._pending is not None:
            self._arm_watchdog(duration_ms / 1000 / self._rate + self._end_slack_s)
