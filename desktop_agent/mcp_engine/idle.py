"""Idle timeouts for the calls to one server, with at most one timer armed.

Why not ``asyncio.timeout`` per call: it arms and cancels a loop timer on
every call, and progress would re-arm it on every report. Measured against a
bare ``ClientSession.call_tool`` that was half of the engine's whole
per-call overhead (``benchmarks/bench_mcp.py``). Here a call only records its
deadline; progress only moves that number; one timer per server fires at the
earliest deadline, cancels the calls whose deadline has really passed, and
re-arms for the rest. Back-to-back calls thus arm a timer about once per
idle period instead of once per call.
"""

from __future__ import annotations

import asyncio
import math


class Watch:
    """One call's idle deadline."""

    __slots__ = ("_loop", "deadline", "fired", "idle", "task")

    def __init__(self, loop: asyncio.AbstractEventLoop, task: asyncio.Task[object], idle: float) -> None:
        self._loop = loop
        self.task = task
        self.idle = idle
        self.deadline = loop.time() + idle
        self.fired = False

    def touch(self) -> None:
        """Activity (a progress report): the call has ``idle`` seconds again."""
        self.deadline = self._loop.time() + self.idle


class IdleWatchdog:
    def __init__(self) -> None:
        self._watches: set[Watch] = set()
        self._handle: asyncio.TimerHandle | None = None
        self._armed_for = math.inf

    def start(self, idle: float) -> Watch:
        """Cancel the current task when it goes ``idle`` seconds without
        :meth:`Watch.touch`, until :meth:`stop`.

        The caller tells a timeout from any other cancellation by ``fired``
        (and must then ``uncancel()`` the task, as ``asyncio.timeout`` does).
        Not a context manager: that costs a generator per call.
        """
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        watch = Watch(loop, task, idle)
        self._watches.add(watch)
        if watch.deadline < self._armed_for:
            self._arm(loop, watch.deadline)
        return watch

    def stop(self, watch: Watch) -> None:
        self._watches.discard(watch)

    def _arm(self, loop: asyncio.AbstractEventLoop, when: float) -> None:
        if self._handle is not None:
            self._handle.cancel()
        self._armed_for = when
        self._handle = loop.call_at(when, self._check, loop)

    def _check(self, loop: asyncio.AbstractEventLoop) -> None:
        self._handle, self._armed_for = None, math.inf
        now = loop.time()
        for watch in self._watches:
            if not watch.fired and watch.deadline <= now:
                watch.fired = True
                watch.task.cancel()
        pending = [w.deadline for w in self._watches if not w.fired]
        if pending:
            self._arm(loop, min(pending))

    def close(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
        self._handle, self._armed_for = None, math.inf
