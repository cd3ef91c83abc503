"""FakeAudioSink: an AudioSink that records and lets the test end each clip.

``play`` records the clip and waits until the test calls ``finish()`` (or
``stop()``); with ``auto_finish_s`` set (benchmarks) each clip lasts that
long instead. ``log`` is the whole story in order, for whole-list asserts.

``play_stream`` records ``("stream", mime)`` and then reads the stream as it
grows, timestamping each chunk with ``clock`` (``chunk_times``: the
benchmarks' "first audible sample" is the first chunk written to the sink);
it ends the same way as ``play``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable

from desktop_agent.core.ports import AudioSink
from desktop_agent.core.speech_stream import SpeechStream


class FakeAudioSink(AudioSink):
    """Events in ``log``: ``("play", audio, mime)``, then ``("end", index)``,
    ``("stopped", index)`` or ``("cancelled", index)`` when that play
    returns; ``("stop",)`` for each ``stop()`` call."""

    def __init__(self, *, auto_finish_s: float | None = None, clock: Callable[[], float] = time.perf_counter) -> None:
        self.auto_finish_s = auto_finish_s
        self.clock = clock
        self.plays: list[tuple[bytes, str]] = []
        """Every play in order; a stream's entry is its PCM read so far."""
        self.chunk_times: list[list[tuple[float, int]]] = []
        """Per ``play_stream`` call: (clock time, size) of each chunk read."""
        self.log: list[tuple[object, ...]] = []
        self.volume = 1.0
        self.muted = False
        self._current: asyncio.Event | None = None
        self._stopped = False
        self._changed = asyncio.Event()

    @property
    def playing(self) -> bool:
        return self._current is not None

    async def play(self, audio: bytes, mime: str) -> None:
        index = len(self.plays)
        self.plays.append((audio, mime))
        self.log.append(("play", audio, mime))
        await self._hold(index)

    async def play_stream(self, stream: SpeechStream) -> None:
        index = len(self.plays)
        self.plays.append((b"", stream.mime))
        self.log.append(("stream", stream.mime))
        times: list[tuple[float, int]] = []
        self.chunk_times.append(times)

        async def read() -> None:
            async for chunk in stream.chunks():
                times.append((self.clock(), len(chunk)))
                self.plays[index] = (self.plays[index][0] + chunk, stream.mime)
                self._notify()

        reader = asyncio.ensure_future(read())
        try:
            await self._hold(index)
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader

    async def _hold(self, index: int) -> None:
        done = asyncio.Event()
        self._current = done
        self._stopped = False
        self._notify()
        outcome = "end"
        try:
            if self.auto_finish_s is None:
                await done.wait()
            else:
                try:
                    async with asyncio.timeout(self.auto_finish_s):
                        await done.wait()
                except TimeoutError:
                    pass
            if self._stopped:
                outcome = "stopped"
        except asyncio.CancelledError:
            outcome = "cancelled"
            raise
        finally:
            if self._current is done:
                self._current = None
            self.log.append((outcome, index))
            self._notify()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_until(self, condition: Callable[[], bool]) -> None:
        """Wait until ``condition()`` holds after some play started or ended
        (bound it with asyncio.timeout)."""
        while not condition():
            await self._changed.wait()

    async def wait_for_plays(self, count: int) -> None:
        await self.wait_until(lambda: len(self.plays) >= count)

    async def wait_idle(self) -> None:
        await self.wait_until(lambda: self._current is None)

    def finish(self) -> None:
        """End the current clip as if it played to its end."""
        if self._current is not None:
            self._current.set()

    def stop(self) -> None:
        self.log.append(("stop",))
        if self._current is not None:
            self._stopped = True
            self._current.set()

    def set_volume(self, volume: float) -> None:
        self.volume = volume

    def set_muted(self, muted: bool) -> None:
        self.muted = muted
