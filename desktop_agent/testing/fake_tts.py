"""FakeTTS: a TTS engine whose timing and failures a test controls.

With ``hold=True`` every synthesis waits until the test calls
``release(text)``, so tests choose the finishing order without sleeping;
``started(text)`` / ``done(text)`` are Events set when that text's
synthesis begins / ends (returned, raised or was cancelled).
``delay_s`` (benchmarks) adds a known synthesis time instead.

FakeStreamingTTS also streams (``open_stream``): its first chunk is
``b"first:" + text``; the test feeds more and ends each stream through
``streams[text]``.

FakeCommunicate stands in for ``edge_tts.Communicate`` (same call shape):
it streams scripted chunks, raises, or hangs.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import Any

from desktop_agent.core.ports import Speech, TTSError
from desktop_agent.core.speech_stream import SpeechStream


class FakeTTS:
    """A :class:`~desktop_agent.core.ports.TTSEngine` for tests.

    Audio for ``text`` is ``b"audio:" + text`` (see :meth:`audio_for`).
    ``calls`` lists every text in call order, ``finished`` those that
    returned audio in finishing order, ``cancelled`` those cancelled;
    ``active``/``max_active`` count concurrent calls.
    """

    def __init__(
        self,
        *,
        name: str = "fake",
        mime: str = "audio/wav",
        hold: bool = False,
        delay_s: float = 0.0,
    ) -> None:
        self._name = name
        self.mime = mime
        self.hold = hold
        self.delay_s = delay_s
        self.failing: str | None = None
        """When set, every call raises TTSError with this message."""
        self.calls: list[str] = []
        self.finished: list[str] = []
        self.cancelled: list[str] = []
        self.active = 0
        self.max_active = 0
        self._release: dict[str, asyncio.Event] = {}
        self._started: dict[str, asyncio.Event] = {}
        self._done: dict[str, asyncio.Event] = {}
        self._fail: dict[str, str] = {}

    @property
    def name(self) -> str:
        return self._name

    @staticmethod
    def audio_for(text: str) -> bytes:
        return b"audio:" + text.encode("utf-8")

    def started(self, text: str) -> asyncio.Event:
        return self._started.setdefault(text, asyncio.Event())

    def done(self, text: str) -> asyncio.Event:
        return self._done.setdefault(text, asyncio.Event())

    def release(self, text: str) -> None:
        """Let the (current or next) synthesis of ``text`` finish."""
        self._release.setdefault(text, asyncio.Event()).set()

    def fail_on(self, text: str, message: str = "fake failure") -> None:
        """Synthesis of ``text`` raises TTSError(message) (once released)."""
        self._fail[text] = message

    async def _gate(self, text: str) -> None:
        """What stands before the audio: a failure, the hold, the delay."""
        if self.failing is not None:
            raise TTSError(self.failing)
        if self.hold:
            await self._release.setdefault(text, asyncio.Event()).wait()
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        if text in self._fail:
            raise TTSError(self._fail[text])

    async def synthesize(self, text: str) -> Speech:
        self.calls.append(text)
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        self.started(text).set()
        try:
            await self._gate(text)
            self.finished.append(text)
            return Speech(audio=self.audio_for(text), mime=self.mime, engine=self._name)
        except asyncio.CancelledError:
            self.cancelled.append(text)
            raise
        finally:
            self.active -= 1
            self.done(text).set()


class FakeStreamingTTS(FakeTTS):
    """A :class:`~desktop_agent.core.ports.StreamingTTSEngine` for tests.

    ``open_stream`` honours ``hold``, ``failing`` and ``fail_on`` like
    ``synthesize`` (before the first chunk), then returns a stream holding
    ``b"first:" + text``; ``streams[text]`` is the latest stream for that
    text, for the test to ``feed`` and ``finish``. ``stream_cancelled`` lists
    texts whose stream was cancelled.
    """

    SAMPLE_RATE = 22050

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.streams: dict[str, SpeechStream] = {}
        self.stream_cancelled: list[str] = []

    @staticmethod
    def first_chunk(text: str) -> bytes:
        return b"first:" + text.encode("utf-8")

    async def open_stream(self, text: str) -> SpeechStream:
        self.calls.append(text)
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        self.started(text).set()
        try:
            await self._gate(text)
            stream = SpeechStream(sample_rate=self.SAMPLE_RATE, engine=self.name)
            stream.set_canceller(lambda: self.stream_cancelled.append(text))
            stream.feed(self.first_chunk(text))
            self.streams[text] = stream
            self.finished.append(text)
            return stream
        except asyncio.CancelledError:
            self.cancelled.append(text)
            raise
        finally:
            self.active -= 1
            self.done(text).set()


class FakeCommunicate:
    """One fake ``edge_tts.Communicate``: streams ``chunks``, then raises
    ``error`` if given; with ``hang`` it never finishes (until cancelled)."""

    def __init__(
        self,
        chunks: Sequence[Mapping[str, Any]] = (),
        *,
        error: BaseException | None = None,
        hang: bool = False,
    ) -> None:
        self.chunks = list(chunks)
        self.error = error
        self.hang = hang
        self.closed = False
        self.streaming = asyncio.Event()
        """Set when ``stream()`` starts."""

    async def stream(self) -> AsyncGenerator[Mapping[str, Any], None]:
        self.streaming.set()
        try:
            for chunk in self.chunks:
                await asyncio.sleep(0)
                yield chunk
            if self.hang:
                await asyncio.Event().wait()
            if self.error is not None:
                raise self.error
        finally:
            self.closed = True


class FakeCommunicateFactory:
    """Callable like ``edge_tts.Communicate``; records each call's arguments
    and hands out the next scripted :class:`FakeCommunicate` (the last one
    repeats)."""

    def __init__(self, *scripts: FakeCommunicate) -> None:
        if not scripts:
            raise ValueError("FakeCommunicateFactory needs at least one FakeCommunicate")
        self._scripts = list(scripts)
        self.calls: list[dict[str, Any]] = []
        self.made: list[FakeCommunicate] = []

    def __call__(self, text: str, voice: str, **kwargs: Any) -> FakeCommunicate:
        self.calls.append({"text": text, "voice": voice, **kwargs})
        script = self._scripts.pop(0) if len(self._scripts) > 1 else self._scripts[0]
        self.made.append(script)
        return script
