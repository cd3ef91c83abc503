"""SpeakingSink: an :class:`~desktop_agent.core.ports.AudioSink` that says
when it starts and stops sounding.

Why a wrapper: a front end shows controls that only make sense while speech
plays (skip this sentence), and the one place that knows a clip plays is the
sink the turn's queue plays through. Wrapping it keeps the port, the queue
and the speakers themselves unchanged, and is told of every end — a clip
played out, stopped (interrupt, mute, skip) or cancelled.
"""

from __future__ import annotations

from collections.abc import Callable

from desktop_agent.core.ports import AudioSink
from desktop_agent.core.speech_stream import SpeechStream


class SpeakingSink(AudioSink):
    """Plays through ``sink``; ``on_speaking(True)`` as a clip or stream
    starts, ``on_speaking(False)`` once it has ended, whatever ended it."""

    def __init__(self, sink: AudioSink, on_speaking: Callable[[bool], None]) -> None:
        self.sink = sink
        self._on_speaking = on_speaking
        self._playing = 0

    @property
    def speaking(self) -> bool:
        return self._playing > 0

    async def play(self, audio: bytes, mime: str) -> None:
        self._started()
        try:
            await self.sink.play(audio, mime)
        finally:
            self._ended()

    async def play_stream(self, stream: SpeechStream) -> None:
        self._started()
        try:
            await self.sink.play_stream(stream)
        finally:
            self._ended()

    def stop(self) -> None:
        self.sink.stop()

    def _started(self) -> None:
        self._playing += 1
        if self._playing == 1:
            self._on_speaking(True)

    def _ended(self) -> None:
        self._playing -= 1
        if self._playing == 0:
            self._on_speaking(False)
