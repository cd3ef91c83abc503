"""SpeechStream: one segment's PCM as the engine produces it, so speech
starts sooner.

A whole-clip engine hands the playback queue its audio only after the last
sample; a streaming engine (espeak-ng) hands it this instead, as soon as the
first samples exist, and keeps feeding it. The sink starts playing the first
chunk while later ones are still being synthesised.

Any number of readers may iterate :meth:`SpeechStream.chunks`, each from the
start (the pipeline's cache and the sink read the same stream); chunks are
kept, which for espeak-ng is a few hundred KB per segment at most.
``finish`` ends it (with an error if production failed after the first
chunk; what was produced still plays). ``cancel`` stops the producer.
"""

from __future__ import annotations

import asyncio
import io
import wave
from collections.abc import AsyncIterator, Callable


class SpeechStream:
    """Raw little-endian signed PCM of one segment, growing until finished."""

    def __init__(self, *, sample_rate: int, engine: str, channels: int = 1, sample_width: int = 2) -> None:
        if sample_rate <= 0 or channels <= 0 or sample_width <= 0:
            raise ValueError("SpeechStream: sample_rate, channels and sample_width must be positive")
        self.sample_rate = sample_rate
        self.channels = channels
        self.sample_width = sample_width
        self.engine = engine
        self._chunks: list[bytes] = []
        self._size = 0
        self._changed = asyncio.Event()
        self._finished = asyncio.Event()
        self._error: str | None = None
        self._on_cancel: Callable[[], object] | None = None
        self._on_done: list[Callable[[SpeechStream], object]] = []

    @property
    def mime(self) -> str:
        """The raw-PCM media type (RFC 2586 ``audio/L16``) with its format."""
        return f"audio/L{8 * self.sample_width};rate={self.sample_rate};channels={self.channels}"

    @property
    def size(self) -> int:
        """Bytes of PCM produced so far."""
        return self._size

    @property
    def finished(self) -> bool:
        return self._finished.is_set()

    @property
    def error(self) -> str | None:
        """Why production stopped early (None while running or after success)."""
        return self._error

    # ------------------------------------------------------------ producer

    def feed(self, chunk: bytes) -> None:
        if self.finished:
            raise RuntimeError("SpeechStream: feed after finish")
        if chunk:
            self._chunks.append(chunk)
            self._size += len(chunk)
            self._wake()

    def finish(self, error: str | None = None) -> None:
        """No more chunks. Idempotent; the first call decides the error."""
        if self.finished:
            return
        self._error = error
        self._finished.set()
        self._wake()
        for callback in self._on_done:
            callback(self)
        self._on_done.clear()

    def set_canceller(self, cancel: Callable[[], object]) -> None:
        """What :meth:`cancel` calls to stop the producer (kill the process)."""
        self._on_cancel = cancel

    def add_done_callback(self, callback: Callable[[SpeechStream], object]) -> None:
        if self.finished:
            callback(self)
        else:
            self._on_done.append(callback)

    # ------------------------------------------------------------ consumers

    def cancel(self) -> None:
        """Stop producing; readers see the end after what was produced."""
        if self.finished:
            return
        if self._on_cancel is not None:
            self._on_cancel()
        self.finish("cancelled")

    async def chunks(self) -> AsyncIterator[bytes]:
        """Every chunk from the first, waiting for more until finished."""
        index = 0
        while True:
            while index < len(self._chunks):
                index += 1
                yield self._chunks[index - 1]
            if self.finished:
                return
            changed = self._changed
            await changed.wait()

    async def wait_finished(self) -> None:
        await self._finished.wait()

    def pcm(self) -> bytes:
        """The PCM produced so far."""
        return b"".join(self._chunks)

    def wav(self) -> bytes:
        """What was produced so far as a WAV file (for whole-clip sinks and the cache)."""
        buffer = io.BytesIO()
        with wave.open(buffer, "wb") as writer:
            writer.setnchannels(self.channels)
            writer.setsampwidth(self.sample_width)
            writer.setframerate(self.sample_rate)
            writer.writeframes(self.pcm())
        return buffer.getvalue()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()
