"""The clock and timers behind the core's timeouts and pacing, as a port.

In the app they are the running event loop's (``loop.time()``,
``loop.call_later``); a test passes a ``FakeClock``
(``desktop_agent.testing.fake_clock``), whose time moves only when the test
says so, so "nothing happened for 10 s" takes no wall time and is exact.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Protocol


class Cancellable(Protocol):
    """A scheduled call (``asyncio.TimerHandle``, ``FakeTimer``)."""

    def cancel(self) -> None: ...


class Timers(Protocol):
    def time(self) -> float: ...

    def call_later(self, delay: float, callback: Callable[[], object]) -> Cancellable: ...


async def wait_set(event: asyncio.Event, timeout: float | None, timers: Timers | None = None) -> bool:
    """Wait until ``event`` is set or ``timeout`` seconds have passed on
    ``timers`` (None: the running loop's); whether it was set. ``timeout``
    None waits as long as it takes. What ``asyncio.timeout`` does, on a
    clock a test can move."""
    if timeout is None:
        await event.wait()
        return True
    expired = asyncio.Event()
    timer = (timers or asyncio.get_running_loop()).call_later(timeout, expired.set)
    waiters = [asyncio.ensure_future(event.wait()), asyncio.ensure_future(expired.wait())]
    try:
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
    finally:
        timer.cancel()
        for waiter in waiters:
            waiter.cancel()
    return event.is_set()


@asynccontextmanager
async def timeout(seconds: float | None, timers: Timers | None = None) -> AsyncIterator[None]:
    """``asyncio.timeout(seconds)`` on ``timers`` (None: the running loop's,
    which is then exactly ``asyncio.timeout``): the body is cancelled and
    ``TimeoutError`` raised once ``seconds`` have passed on that clock, so a
    test moves it with ``FakeClock.advance`` instead of waiting. ``seconds``
    None never expires."""
    if timers is None or seconds is None:
        async with asyncio.timeout(seconds):
            yield
        return
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(None) as bound:
        # Expiring is asyncio's own (a reschedule to now): the same cancel
        # and TimeoutError, uncancel included, as a loop deadline.
        timer = timers.call_later(seconds, lambda: bound.reschedule(loop.time()))
        try:
            yield
        finally:
            timer.cancel()
