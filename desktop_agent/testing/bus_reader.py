"""BusReader: a test's view of a bus: every item in push order, and an
awaitable cursor over them (the bus itself only calls listeners)."""

from __future__ import annotations

import asyncio

from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.messages import BusItem
from desktop_agent.testing.json_dict import JSONDict


def unstamped(item: BusItem) -> JSONDict:
    """The item's contract JSON without ``session_id`` and ``seq``."""
    message = item.to_json()
    del message["session_id"], message["seq"]
    return message


class BusReader:
    """Attach before the first push; :meth:`get` returns items in order,
    waiting for the next one when all were taken."""

    def __init__(self, bus: SessionMessageBus) -> None:
        self.items: list[BusItem] = []
        self._cursor = 0
        self._arrived = asyncio.Event()
        bus.add_listener(self._take)

    def _take(self, item: BusItem) -> None:
        self.items.append(item)
        self._arrived.set()

    async def get(self) -> BusItem:
        while self._cursor >= len(self.items):
            self._arrived.clear()
            await self._arrived.wait()
        item = self.items[self._cursor]
        self._cursor += 1
        return item

    def get_nowait(self) -> BusItem | None:
        if self._cursor >= len(self.items):
            return None
        item = self.items[self._cursor]
        self._cursor += 1
        return item


class RecordingBus(SessionMessageBus):
    """A bus that keeps everything pushed on it, for tests that push first
    and look afterwards (:attr:`reader`)."""

    def __init__(self, session_id: str) -> None:
        super().__init__(session_id)
        self.reader = BusReader(self)

    def drain(self) -> list[JSONDict]:
        """The JSON (without ``session_id``/``seq``) of every message not
        taken yet, taking them."""
        out = []
        while (item := self.reader.get_nowait()) is not None:
            out.append(unstamped(item))
        return out
