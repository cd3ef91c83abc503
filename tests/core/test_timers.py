"""core/timers.timeout: asyncio.timeout on a clock a test moves."""

from __future__ import annotations

import asyncio

import pytest

from desktop_agent.core.timers import timeout
from desktop_agent.testing.fake_clock import FakeClock


async def test_a_bound_on_a_fake_clock_expires_only_when_the_clock_passes_it() -> None:
    clock = FakeClock()
    started = asyncio.Event()

    async def bounded() -> None:
        async with timeout(10, clock):
            started.set()
            await asyncio.Event().wait()

    task = asyncio.ensure_future(bounded())
    async with asyncio.timeout(5):
        await started.wait()
        clock.advance(9.9)
        assert not task.done() and clock.pending == [10.0]
        clock.advance(0.1)
        with pytest.raises(TimeoutError):
            await task


async def test_a_body_that_ends_in_time_leaves_no_timer_behind() -> None:
    clock = FakeClock()
    async with timeout(10, clock):
        await asyncio.sleep(0)
    assert clock.pending == []
    clock.advance(20)  # nothing left to fire into a finished block


async def test_an_outer_cancel_is_not_taken_for_the_bound() -> None:
    clock = FakeClock()
    started = asyncio.Event()

    async def bounded() -> None:
        async with timeout(10, clock):
            started.set()
            await asyncio.Event().wait()

    task = asyncio.ensure_future(bounded())
    async with asyncio.timeout(5):
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert clock.pending == []


async def test_without_timers_it_is_the_loops_timeout() -> None:
    with pytest.raises(TimeoutError):
        async with timeout(0.001):
            await asyncio.Event().wait()  # ends by the bound itself: no wall-clock threshold asserted
