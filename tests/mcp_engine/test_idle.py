"""The idle watchdog: one timer for all calls to a server.

Time is a :class:`FakeClock` the tests advance, so a timeout takes no wall
time and fires exactly when the clock passes the deadline.
"""

from __future__ import annotations

import asyncio

import pytest

from desktop_agent.mcp_engine.idle import IdleWatchdog, Watch
from desktop_agent.testing.fake_clock import FakeClock


async def _watched(
    dog: IdleWatchdog,
    idle: float,
    work: asyncio.Event,
    started: asyncio.Event | None = None,
    watches: list[Watch] | None = None,
) -> str:
    watch = dog.start(idle)
    if watches is not None:
        watches.append(watch)
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


async def _start(
    dog: IdleWatchdog, idle: float, work: asyncio.Event, watches: list[Watch] | None = None
) -> asyncio.Task[str]:
    """A watched call, returned once its watch is registered."""
    started = asyncio.Event()
    task = asyncio.create_task(_watched(dog, idle, work, started, watches))
    async with asyncio.timeout(5):
        await started.wait()
    return task


async def test_only_the_silent_call_times_out_while_the_other_finishes() -> None:
    clock = FakeClock()
    dog = IdleWatchdog(clock)
    done, never = asyncio.Event(), asyncio.Event()
    silent = await _start(dog, 1.0, never)
    quick = await _start(dog, 1.0, done)
    done.set()
    async with asyncio.timeout(5):
        finished = await quick

    clock.advance(1.0)
    async with asyncio.timeout(5):
        timed_out = await silent

    assert [timed_out, finished] == ["timed out", "finished"]
    dog.close()


async def test_nothing_times_out_before_the_idle_period_has_passed() -> None:
    clock = FakeClock()
    dog = IdleWatchdog(clock)
    work = asyncio.Event()
    task = await _start(dog, 1.0, work)

    clock.advance(0.999)
    await asyncio.sleep(0)  # let a cancellation, had there been one, reach the task
    work.set()

    async with asyncio.timeout(5):
        assert await task == "finished"
    dog.close()


async def test_a_touch_gives_the_call_its_whole_idle_period_again() -> None:
    clock = FakeClock()
    dog = IdleWatchdog(clock)
    watches: list[Watch] = []
    task = await _start(dog, 1.0, asyncio.Event(), watches)

    clock.advance(0.8)
    watches[0].touch()
    clock.advance(0.8)  # 1.6 s since the start, 0.8 s since the touch
    fired_early = watches[0].fired
    clock.advance(0.2)

    async with asyncio.timeout(5):
        result = await task
    assert (fired_early, result) == (False, "timed out")
    dog.close()


async def test_many_calls_share_one_armed_timer() -> None:
    clock = FakeClock()
    dog = IdleWatchdog(clock)
    never = asyncio.Event()
    tasks = [await _start(dog, 1.0, never) for _ in range(3)]

    assert clock.pending == [1.0]

    clock.advance(1.0)
    async with asyncio.timeout(5):
        results = await asyncio.gather(*tasks)
    assert results == ["timed out"] * 3
    dog.close()


async def test_a_later_call_is_still_watched_after_the_timer_fired_for_an_earlier_one() -> None:
    clock = FakeClock()
    dog = IdleWatchdog(clock)
    first_done = asyncio.Event()
    first = await _start(dog, 1.0, first_done)
    first_done.set()
    async with asyncio.timeout(5):
        assert await first == "finished"
    clock.advance(1.0)  # the timer armed for the first call fires with nothing to cancel
    second = await _start(dog, 1.0, asyncio.Event())

    clock.advance(1.0)

    async with asyncio.timeout(5):
        assert await second == "timed out"
    dog.close()


async def test_another_cancellation_is_not_mistaken_for_a_timeout() -> None:
    clock = FakeClock()
    dog = IdleWatchdog(clock)
    task = await _start(dog, 60, asyncio.Event())

    task.cancel()

    with pytest.raises(asyncio.CancelledError):
        async with asyncio.timeout(5):
            await task
    assert clock.pending == [60.0]  # the timer stays armed; it finds no call left when it fires
    dog.close()
    assert clock.pending == []


async def test_without_a_clock_the_running_loop_keeps_time() -> None:
    # Production's default: a real (5 ms) idle period on the loop's own clock.
    dog = IdleWatchdog()

    async with asyncio.timeout(5):
        assert await _watched(dog, 0.005, asyncio.Event()) == "timed out"
    dog.close()


async def test_a_held_call_never_times_out_and_gets_its_whole_period_once_released() -> None:
    clock = FakeClock()
    dog = IdleWatchdog(clock)
    watches: list[Watch] = []
    task = await _start(dog, 1.0, asyncio.Event(), watches)
    dog.hold(watches[0])

    clock.advance(50.0)  # the user takes their time
    await asyncio.sleep(0)  # let a cancellation, had there been one, reach the task
    held_fired = watches[0].fired
    dog.release(watches[0])
    clock.advance(0.9)
    released_early = watches[0].fired
    clock.advance(0.1)

    async with asyncio.timeout(5):
        result = await task
    assert (held_fired, released_early, result) == (False, False, "timed out")
    dog.close()
