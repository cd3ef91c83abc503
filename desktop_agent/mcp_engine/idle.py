"""Idle timeouts for the calls to one server, with at most one timer armed.

Why not ``asyncio.timeout`` per call: it arms and cancels a loop timer on
every call, and progress would re-arm it on every report. Measured against a
bare ``ClientSession.call_tool`` that was half of the engine's whole
per-call overhead (``benchmarks/bench_mcp.py``). Here a call only records its
deadline; progress only moves that number; one timer per server fires at the
earliest deadline, cancels the calls whose deadline has really passed, and
re-arms for the rest. Back-to-back calls thus arm a timer about once per
idle period instead of once per call.

Time comes from a :class:`Clock`: by default the running loop itself, so
production keeps the loop's monotonic clock; tests pass a
:class:`desktop_agent.testing.fake_clock.FakeClock` and advance it instead of
sleeping.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from typing import Any, Protocol


class Timer(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    """The part of an event loop the watchdog uses; ``asyncio`` loops satisfy it."""

    def time(self) -> float: ...

    def call_at(self, when: float, callback: Callable[..., object], *args: Any) -> Timer: ...


class Watch:
    """One call's idle deadline."""

    __slots__ = ("_clock", "deadline", "fired", "held", "idle", "task")

    def __init__(self, clock: Clock, task: asyncio.Task[object], idle: float) -> None:
        self._clock = clock
        self.task = task
        self.idle = idle
        self.deadline = clock.time() + idle
        self.fired = False
        self.held = 0
        """Reasons the call waits for the user, not the server (see :meth:`IdleWatchdog.hold`)."""

    def touch(self) -> None:
        """Activity (a progress report): the call has ``idle`` seconds again."""
        self.deadline = self._clock.time() + self.idle


class IdleWatchdog:
    def __init__(self, clock: Clock | None = None) -> None:
        """``clock``: ``None`` (production) means the running event loop's."""
        self._clock = clock
        self._watches: set[Watch] = set()
        self._handle: Timer | None = None
        self._armed_for = math.inf

    def start(self, idle: float) -> Watch:
        """Cancel the current task when it goes ``idle`` seconds without
        :meth:`Watch.touch`, until :meth:`stop`.

        The caller tells a timeout from any other cancellation by ``fired``
        (and must then ``uncancel()`` the task, as ``asyncio.timeout`` does).
        Not a context manager: that costs a generator per call.
        """
        clock: Clock = self._clock or asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        watch = Watch(clock, task, idle)
        self._watches.add(watch)
        if watch.deadline < self._armed_for:
            self._arm(clock, watch.deadline)
        return watch

    def stop(self, watch: Watch) -> None:
        self._watches.discard(watch)

    def hold(self, watch: Watch) -> None:
        """The call waits for the user (a server's form): it cannot time out
        until :meth:`release`, however long the user takes."""
        watch.held += 1

    def release(self, watch: Watch) -> None:
        """The user answered: the call has its whole idle period again."""
        watch.held -= 1
        if watch.held > 0 or watch not in self._watches:
            return
        watch.touch()
        if watch.deadline < self._armed_for:
            self._arm(self._clock or asyncio.get_running_loop(), watch.deadline)

    def _arm(self, clock: Clock, when: float) -> None:
        if self._handle is not None:
            self._handle.cancel()
        self._armed_for = when
        self._handle = clock.call_at(when, self._check, clock)

    def _check(self, clock: Clock) -> None:
        self._handle, self._armed_for = None, math.inf
        now = clock.time()
        for watch in self._watches:
            if not watch.fired and not watch.held and watch.deadline <= now:
                watch.fired = True
                watch.task.cancel()
        pending = [w.deadline for w in self._watches if not w.fired and not w.held]
        if pending:
            self._arm(clock, min(pending))

    def close(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
        self._handle, self._armed_for = None, math.inf
