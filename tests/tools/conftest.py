"""Shared fixtures for the built-in tool tests: a real bus and a context that
lets a test wait (bounded) for partial output instead of sleeping."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import psutil
import pytest

from desktop_agent.core.timers import Timers
from desktop_agent.core.tool_context import BusToolContext
from desktop_agent.testing.bus_reader import RecordingBus
from desktop_agent.testing.json_dict import JSONDict


class WatchedContext(BusToolContext):
    """BusToolContext that wakes waiters whenever the partial output changes."""

    def __init__(self, bus: RecordingBus, tool_call_id: str = "call-1", *, output_timers: Timers | None = None) -> None:
        super().__init__(bus, tool_call_id, "conv-1", output_timers=output_timers)
        self.bus = bus
        self._changed = asyncio.Event()

    def set_partial(self, key: str, value: Any) -> None:
        super().set_partial(key, value)
        self._changed.set()

    async def wait_partial(self, predicate: Callable[[JSONDict], bool], timeout: float = 10) -> JSONDict:
        """The partial output once ``predicate`` accepts it."""
        async with asyncio.timeout(timeout):
            while True:
                snapshot = self.partial.snapshot() or {}
                if predicate(snapshot):
                    return snapshot
                self._changed.clear()
                await self._changed.wait()


def no_longer_runs(pid: int) -> bool:
    """Whether ``pid`` is gone or a zombie (a killed grandchild stays one until init reaps it)."""
    try:
        return bool(psutil.Process(pid).status() == psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return True


def bus_messages(bus: RecordingBus) -> list[JSONDict]:
    """Everything pushed so far and not yet drained, without ``seq`` and
    ``session_id``."""
    return bus.drain()


@pytest.fixture
def drain() -> Callable[[RecordingBus], list[JSONDict]]:
    return bus_messages


@pytest.fixture
def bus() -> RecordingBus:
    return RecordingBus("s1")


@pytest.fixture
def ctx(bus: RecordingBus) -> WatchedContext:
    return WatchedContext(bus)
