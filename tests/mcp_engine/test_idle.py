"""The idle watchdog: one timer for all calls to a server."""

from __future__ import annotations

import asyncio

import pytest

from desktop_agent.mcp_engine.idle import IdleWatchdog


async def _watched(
    dog: IdleWatchdog, idle: float, work: asyncio.Event, started: asyncio.Event | None = None
) -> str:
    watch = dog.start(idle)
    if started is not None:
        started.set()
    try:
        await work.wait()
        return "finished"
    except asyncio.CancelledError:
        if watch.fired and watch.task.uncancel() == 0:
            return "timed out"
        raise
    finally:
        dog.stop(watch)


async def test_only_the_silent_call_times_out_while_the_other_finishes() -> None:
    dog = IdleWatchdog()
    done, never = asyncio.Event(), asyncio.Event()
    silent = asyncio.create_task(_watched(dog, 0.05, never))
    quick = asyncio.create_task(_watched(dog, 0.05, done))
    done.set()

    async with asyncio.timeout(5):
        results = await asyncio.gather(silent, quick)

    assert list(results) == ["timed out", "finished"]
    dog.close()


async def test_a_later_call_is_still_watched_after_the_timer_fired_for_an_earlier_one() -> None:
    dog = IdleWatchdog()
    first_done = asyncio.Event()
    first = asyncio.create_task(_watched(dog, 0.05, first_done))
    first_done.set()
    assert await first == "finished"

    async with asyncio.timeout(5):
        second = await _watched(dog, 0.05, asyncio.Event())

    assert second == "timed out"
    dog.close()


async def test_another_cancellation_is_not_mistaken_for_a_timeout() -> None:
    dog = IdleWatchdog()
    started = asyncio.Event()
    task = asyncio.create_task(_watched(dog, 60, asyncio.Event(), started))
    async with asyncio.timeout(5):
        await started.wait()

    task.cancel()

    with pytest.raises(asyncio.CancelledError):
        async with asyncio.timeout(5):
            await task
    dog.close()
