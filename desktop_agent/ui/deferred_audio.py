"""The speaker and the microphone, made when first used (issue 13).

QtMultimedia's first device query starts its media backend (FFmpeg, the
sound server's client): ~19 MiB of an idle window, before anything is said
or heard. :class:`DeferredSink` makes the speaker when the first clip
plays, :class:`DeferredMicrophone` opens the microphone at the first press
(or when hands-free starts), so a window that only shows text never loads it.

What changes for the user: a machine without an audio output says so in one
line when the first reply would be spoken (not at start), and from then on
text is never held for silent audio; a machine without a microphone says so
when the mic is first used, and the button then stays unavailable with the
reason (``VoiceInput`` keeps a failed microphone unavailable).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from desktop_agent.core.ports import AudioInput, AudioSink
from desktop_agent.core.speech_stream import SpeechStream

log = logging.getLogger(__name__)


class DeferredSink:
    """An :class:`AudioSink` that makes the real one (``make``) at the first
    clip; ``make`` returning None means nothing would be heard here, which
    ``on_missing`` is told once. Volume and mute set before then are kept
    and given to the speaker when it is made."""

    def __init__(
        self,
        make: Callable[[float, bool], AudioSink | None],
        *,
        volume: float = 1.0,
        muted: bool = False,
        on_missing: Callable[[], None] = lambda: None,
    ) -> None:
        self._make = make
        self._volume = volume
        self._muted = muted
        self.on_missing = on_missing
        self._made = False
        self._sink: AudioSink | None = None

    @property
    def missing(self) -> bool:
        """Asked, and there is no speaker: nobody hears speech here."""
        return self._made and self._sink is None

    @property
    def speaker(self) -> AudioSink | None:
        """The real speaker once made (None before, or when missing)."""
        return self._sink

    def _get(self) -> AudioSink | None:
        if not self._made:
            self._made = True
            self._sink = self._make(self._volume, self._muted)
            if self._sink is None:
                self.on_missing()
        return self._sink

    async def play(self, audio: bytes, mime: str) -> None:
        sink = self._get()
        if sink is not None:
            await sink.play(audio, mime)

    async def play_stream(self, stream: SpeechStream) -> None:
        sink = self._get()
        if sink is not None:
            await sink.play_stream(stream)

    def stop(self) -> None:
        if self._sink is not None:
            self._sink.stop()

    def set_muted(self, muted: bool) -> None:
        self._muted = muted
        setter = getattr(self._sink, "set_muted", None)
        if setter is not None:
            setter(muted)

    def set_volume(self, volume: float) -> None:
        self._volume = volume
        setter = getattr(self._sink, "set_volume", None)
        if setter is not None:
            setter(volume)

    def close(self) -> None:
        closer = getattr(self._sink, "close", None)
        if closer is not None:
            closer()


class DeferredMicrophone:
    """An :class:`~desktop_agent.core.ports.AudioInput` that makes the Qt
    microphone (``ui/mic.py``) at the first :meth:`start`; no microphone is
    then the ``OSError`` that start raises, one translated line."""

    def __init__(self) -> None:
        self._mic: AudioInput | None = None

    def start(self, on_frames: Callable[[bytes], None]) -> None:
        if self._mic is None:
            from desktop_agent.ui.mic import QtAudioInput

            self._mic = QtAudioInput()
        self._mic.start(on_frames)

    def stop(self) -> None:
        if self._mic is not None:
            self._mic.stop()

