"""SessionMessageBus: the ordered FIFO between the chat handler and whatever
shows the turn (the window's playback queue, the headless printer).

Every message is a JSON-serialisable dict with ``type``, ``session_id`` and a
per-session ``seq`` (DESIGN §5). Audio bytes travel beside the message in the
:class:`BusItem`, never inside it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from desktop_agent.core.ports import ImageContent

JSONDict = dict[str, Any]

MESSAGE_TYPES = frozenset(
    {
        "text",
        "audio",
        "tool_call",
        "tool_progress",
        "form_request",
        "card",
        "tool_rejected",
        "interrupted",
        "round_end",
        "warning",
        "error",
        "turn_end",
    }
)


@dataclass(frozen=True, slots=True)
class BusItem:
    """One bus message, with the audio bytes of an ``audio`` message."""

    message: JSONDict
    audio: bytes | None = None
    images: tuple[ImageContent, ...] = ()
    """Images a tool returned (``tool_call`` result), for the UI's card."""

    @property
    def type(self) -> str:
        return str(self.message["type"])


Listener = Callable[[BusItem], None]


class SessionMessageBus:
    """Per-session ordered message FIFO.

    ``tool_output_cache`` holds the partial output of the executing tool as
    ``{"_id": tool_call_id, ...}``; the chat handler clears it when a tool
    starts executing and reads it synchronously on interrupt.
    """

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.tool_output_cache: JSONDict | None = None
        self._seq = 0
        self._queue: asyncio.Queue[BusItem] = asyncio.Queue()
        self._listeners: list[Listener] = []
        self._closed = False

    def add_listener(self, listener: Listener) -> None:
        """Called synchronously for every message as it is pushed."""
        self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        self._listeners.remove(listener)

    def push(
        self,
        type_: str,
        /,
        audio: bytes | None = None,
        images: tuple[ImageContent, ...] = (),
        **fields: Any,
    ) -> JSONDict:
        if type_ not in MESSAGE_TYPES:
            raise ValueError(f"unknown bus message type: {type_!r}")
        self._seq += 1
        message: JSONDict = {"type": type_, "session_id": self.session_id, "seq": self._seq}
        message.update(fields)
        item = BusItem(message, audio, images)
        self._queue.put_nowait(item)
        for listener in self._listeners:
            listener(item)
        return message

    async def get(self) -> BusItem:
        return await self._queue.get()

    def get_nowait(self) -> BusItem | None:
        try:
            return self._queue.get_nowait()
        except asyncio.QueueEmpty:
            return None

    @property
    def pushed(self) -> int:
        """How many messages were pushed so far (the last ``seq``)."""
        return self._seq

    def snapshot_partial(self) -> JSONDict | None:
        """The executing tool's partial output without ``_id`` (synchronous,
        so no tool writer can interleave)."""
        cache = self.tool_output_cache
        if not cache:
            return None
        partial = {k: v for k, v in cache.items() if k != "_id"}
        return partial or None
