"""FakeAudioSink: an AudioSink that records and lets the test end each clip.

``play`` records the clip and waits until the test calls ``finish()`` (or
``stop()``); with ``auto_finish_s`` set (benchmarks) each clip lasts that
long instead. ``log`` is the whole story in order, for whole-list asserts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from desktop_agent.core.ports import AudioSink


class FakeAudioSink(AudioSink):
    """Events in ``log``: ``("play", audio, mime)``, then ``("end", index)``,
    ``("stopped", index)`` or ``("cancelled", index)`` when that play
    returns; ``("stop",)`` for each ``stop()`` call."""

    def __init__(self, *, auto_finish_s: float | None = None) -> None:
        self.auto_finish_s = auto_finish_s
        self.plays: list[tuple[bytes, str]] = []
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
        done = asyncio.Event()
        self._current = done
        self._stopped = False
        self.plays.append((audio, mime))
        self.log.append(("play", audio, mime))
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
