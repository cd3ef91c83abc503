"""The microphone: :class:`~desktop_agent.core.ports.AudioInput` over
QtMultimedia's ``QAudioSource``.

It asks for 16 kHz mono Int16; a device that does not offer that is opened
in its preferred format and converted (``voice.pcm``). Without a device, or
when the device cannot be opened (busy, no permission), :meth:`start`
raises ``OSError`` with one translated line the window shows as it is.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import QIODevice, QObject
from PySide6.QtMultimedia import QAudioDevice, QAudioFormat, QAudioSource, QMediaDevices, QtAudio

from desktop_agent.ui.voice.mic_error import MicError
from desktop_agent.voice.pcm import RATE, Resampler, SampleKind, to_mono16

log = logging.getLogger(__name__)

BUFFER_US = 1_000_000
"""How much the microphone keeps while the GUI thread is busy (microseconds)."""

_KINDS: dict[QAudioFormat.SampleFormat, SampleKind] = {
    QAudioFormat.SampleFormat.UInt8: "uint8",
    QAudioFormat.SampleFormat.Int16: "int16",
    QAudioFormat.SampleFormat.Int32: "int32",
    QAudioFormat.SampleFormat.Float: "float",
}


def wanted_format() -> QAudioFormat:
    fmt = QAudioFormat()
    fmt.setSampleRate(RATE)
    fmt.setChannelCount(1)
    fmt.setSampleFormat(QAudioFormat.SampleFormat.Int16)
    return fmt


def capture_format(device: QAudioDevice) -> QAudioFormat:
    """16 kHz mono Int16 when the device offers it, else its own format."""
    wanted = wanted_format()
    return wanted if device.isFormatSupported(wanted) else device.preferredFormat()


class QtAudioInput(QObject):
    """The microphone ``device`` (None: the system's default), which may be
    changed between uses: the next :meth:`start` opens the one set then."""

    def __init__(self, device: QAudioDevice | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.device = device
        self._source: QAudioSource | None = None
        self._io: QIODevice | None = None
        self._on_frames: Callable[[bytes], None] | None = None
        self._convert: Callable[[bytes], bytes] = bytes

    def start(self, on_frames: Callable[[bytes], None]) -> None:
        self.stop()
        device = self.device if self.device is not None else QMediaDevices.defaultAudioInput()
        if device.isNull():
            raise MicError("mic_none")
        fmt = capture_format(device)
        kind = _KINDS.get(fmt.sampleFormat())
        if kind is None or fmt.sampleRate() <= 0:
            raise MicError("mic_format", device=device.description())
        self._convert = _converter(kind, fmt.channelCount(), fmt.sampleRate())
        source = QAudioSource(device, fmt, self)
        # A second of room (Qt's default here is a quarter): the GUI thread, which
        # reads it, stalls for 0.15-0.25 s on a loaded machine, and what overflows
        # is dropped by the sound server (a word gone from the middle of an
        # utterance). Reads still come every ~50 ms: no latency is added.
        source.setBufferSize(fmt.bytesForDuration(BUFFER_US))
        io = source.start()
        if io is None or source.error() != QtAudio.Error.NoError:
            source.deleteLater()
            raise MicError("mic_busy", device=device.description())
        self._source, self._io, self._on_frames = source, io, on_frames
        io.readyRead.connect(self._read)
        log.info("microphone %r opened at %d Hz × %d", device.description(), fmt.sampleRate(), fmt.channelCount())

    def _read(self) -> None:
        io, on_frames = self._io, self._on_frames
        if io is None or on_frames is None:
            return
        data = io.readAll().data()
        if data:
            on_frames(self._convert(bytes(data)))

    def stop(self) -> None:
        source, self._source, self._io, self._on_frames = self._source, None, None, None
        if source is not None:
            source.stop()
            source.deleteLater()


def _converter(kind: SampleKind, channels: int, rate: int) -> Callable[[bytes], bytes]:
    if kind == "int16" and channels == 1 and rate == RATE:
        return bytes
    resampler = Resampler(rate)
    return lambda data: resampler.feed(to_mono16(data, kind, channels)).tobytes()
