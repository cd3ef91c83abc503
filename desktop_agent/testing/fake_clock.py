"""FakeClock: time that moves only when the test says so.

Why: an idle timeout of a second, tested with the real clock, costs a second
of wall time per test and still races a loaded machine. With this clock a
test calls :meth:`FakeClock.advance` and the timers and sleepers it passes
run at once, in deadline order, so "nothing happened for 10 s" takes
microseconds and is exact.

It has the two methods of an event loop that timer code needs, ``time()`` and
``call_at()``, so code written against the running loop (such as
:class:`desktop_agent.mcp_engine.idle.IdleWatchdog`) takes it unchanged.
What it does not fake: ``asyncio.timeout`` and the loop's own timers, which
keep the real clock, so a test's safety bound (``asyncio.timeout(5)``) still
works.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable
from typing import Any


class FakeTimer:
    """What :meth:`FakeClock.call_at` returns: like ``asyncio.TimerHandle``."""

    __slots__ = ("_args", "_callback", "_cancelled", "when")

    def __init__(self, when: float, callback: Callable[..., object], args: tuple[Any, ...]) -> None:
        self.when = when
        self._callback = callback
        self._args = args
        self._cancelled = False

    def cancel(self) -> None:
        self._cancelled = True

    def cancelled(self) -> bool:
        return self._cancelled

    def _run(self) -> None:
        self._callback(*self._args)


class FakeClock:
    """A monotonic clock for tests; starts at ``start`` and moves by :meth:`advance`.

    Timer callbacks run synchronously inside :meth:`advance` (not on a later
    loop iteration), so right after ``advance`` returns every timer that was
    due has run; tasks they woke or cancelled still need the loop to run
    (await them, bounded).
    """

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._timers: list[tuple[float, int, FakeTimer]] = []
        self._order = itertools.count()
        self._scheduled = asyncio.Event()

    def now(self) -> float:
        return self._now

    def time(self) -> float:
        """Same as :meth:`now`; the name ``asyncio.AbstractEventLoop`` uses."""
        return self._now

    def call_at(self, when: float, callback: Callable[..., object], *args: Any) -> FakeTimer:
        timer = FakeTimer(when, callback, args)
        heapq.heappush(self._timers, (when, next(self._order), timer))
        self._scheduled.set()
        return timer

    def call_later(self, delay: float, callback: Callable[..., object], *args: Any) -> FakeTimer:
        return self.call_at(self._now + delay, callback, *args)

    async def sleep(self, seconds: float) -> None:
        """Return once the clock has been advanced by ``seconds`` (or more)."""
        woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        timer = self.call_later(seconds, _resolve, woken)
        try:
            await woken
        finally:
            timer.cancel()

    @property
    def pending(self) -> list[float]:
        """Deadlines of the timers not yet run or cancelled, earliest first."""
        return sorted(when for when, _, timer in self._timers if not timer.cancelled())

    async def wait_scheduled(self, count: int = 1) -> None:
        """Return once ``count`` timers or sleepers are pending (bound it with ``asyncio.timeout``)."""
        while len(self.pending) < count:
            self._scheduled.clear()
            await self._scheduled.wait()

    def advance(self, seconds: float) -> None:
        """Move time forward and run every timer due by then, earliest first.

        A timer a callback schedules within the window runs too.
        """
        if seconds < 0:
            raise ValueError(f"a monotonic clock cannot go back ({seconds} s)")
        target = self._now + seconds
        while self._timers and self._timers[0][0] <= target:
            when, _, timer = heapq.heappop(self._timers)
            if timer.cancelled():
                continue
            self._now = max(self._now, when)
            timer._run()
        self._now = target


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
