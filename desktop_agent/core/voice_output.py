"""OutputTap: the speaker, telling who listens what it plays — the samples,
as they are handed to it — so the microphone's echo gate
(:mod:`desktop_agent.core.voice_echo`) knows what our own voice sounds like
at each moment.

Why the samples and not only "playing or not": the gate compares the
microphone with what was played a moment before; a mere flag would make
barge-in impossible while we speak (half duplex) or let our own voice
through. A streamed clip is read beside the speaker (a ``SpeechStream`` has
any number of readers, each from its start); a whole WAV clip is decoded
here; anything else (edge-tts' MP3) is announced as unreadable, and the gate
then treats it as loud throughout.

Everything else asked of the speaker (volume, mute, ``missing``, the
device) is passed to the wrapped one unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Protocol

from desktop_agent.core.ports import AudioSink
from desktop_agent.core.speech_stream import SpeechStream
from desktop_agent.core.voice_echo import wav_pcm


class OutputListener(Protocol):
    def play_started(self, rate: int, channels: int = 1) -> None: ...

    def play_unknown(self) -> None: ...

    def play_pcm(self, pcm: bytes) -> None: ...

    def play_stopped(self) -> None: ...


class OutputTap:
    """An :class:`~desktop_agent.core.ports.AudioSink` over ``sink``."""

    def __init__(self, sink: AudioSink) -> None:
        self.sink = sink
        self._listeners: list[OutputListener] = []

    def listen(self, listener: OutputListener) -> None:
        self._listeners.append(listener)

    def __getattr__(self, name: str) -> object:
        return getattr(self.sink, name)

    async def play(self, audio: bytes, mime: str) -> None:
        decoded = wav_pcm(audio)
        for listener in self._listeners:
            if decoded is None:
                listener.play_unknown()
            else:
                listener.play_started(decoded[1], decoded[2])
                listener.play_pcm(decoded[0])
        try:
            await self.sink.play(audio, mime)
        finally:
            self._stopped()

    async def play_stream(self, stream: SpeechStream) -> None:
        for listener in self._listeners:
            listener.play_started(stream.sample_rate, stream.channels)
        reader = asyncio.ensure_future(self._read(stream)) if self._listeners else None
        try:
            await self.sink.play_stream(stream)
        finally:
            if reader is not None:
                reader.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await reader
            self._stopped()

    async def _read(self, stream: SpeechStream) -> None:
        async for chunk in stream.chunks():
            for listener in self._listeners:
                listener.play_pcm(chunk)

    def stop(self) -> None:
        self.sink.stop()

    def _stopped(self) -> None:
        for listener in self._listeners:
            listener.play_stopped()
