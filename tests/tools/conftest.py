"""Shared fixtures for the built-in tool tests: a real bus and a context that
lets a test wait (bounded) for partial output instead of sleeping."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.tool_router import BusToolContext

JSONDict = dict[str, Any]


class WatchedContext(BusToolContext):
    """BusToolContext that wakes waiters whenever the partial output changes."""

    def __init__(self, bus: SessionMessageBus, tool_call_id: str = "call-1") -> None:
        super().__init__(bus, tool_call_id, "conv-1")
        self.bus = bus
        self._changed = asyncio.Event()

    def set_partial(self, key: str, value: Any) -> None:
        super().set_partial(key, value)
        self._changed.set()

    async def wait_partial(self, predicate: Callable[[JSONDict], bool], timeout: float = 10) -> JSONDict:
        """The partial output (without ``_id``) once ``predicate`` accepts it."""
        async with asyncio.timeout(timeout):
            while True:
                snapshot = self.bus.snapshot_partial() or {}
                if predicate(snapshot):
                    return snapshot
                self._changed.clear()
                await self._changed.wait()


def bus_messages(bus: SessionMessageBus) -> list[JSONDict]:
    """Everything pushed so far, without ``seq`` and ``session_id``."""
    out = []
    while (item := bus.get_nowait()) is not None:
        out.append({k: v for k, v in item.message.items() if k not in ("seq", "session_id")})
    return out


@pytest.fixture
def drain() -> Callable[[SessionMessageBus], list[JSONDict]]:
    return bus_messages


@pytest.fixture
def bus() -> SessionMessageBus:
    return SessionMessageBus("s1")


@pytest.fixture
def ctx(bus: SessionMessageBus) -> WatchedContext:
    return WatchedContext(bus)
