"""A read-stream wrapper that says when the transport has ended.

Why: when a stdio server dies, the SDK's dispatcher fails pending requests
with "Connection closed", but nothing public tells the *owner* of an idle
session. The dispatcher iterates the transport's read stream inside
``async with``; leaving that block means the connection is over, so the
wrapper calls ``on_end`` there, and the owner task wakes up and reaps.
"""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType
from typing import Any, Generic, Self, TypeVar

from mcp.shared._stream_protocols import ReadStream

T = TypeVar("T")


class WatchedReadStream(Generic[T]):
    def __init__(self, inner: ReadStream[T], on_end: Callable[[], None]) -> None:
        self._inner = inner
        self._on_end = on_end
        self._ended = False

    @property
    def last_context(self) -> Any:
        # The dispatcher reads the sender's contextvars snapshot from here (HTTP transports).
        return getattr(self._inner, "last_context", None)

    def _end(self) -> None:
        if not self._ended:
            self._ended = True
            self._on_end()

    async def receive(self) -> T:
        return await self._inner.receive()

    async def aclose(self) -> None:
        try:
            await self._inner.aclose()
        finally:
            self._end()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> T:
        try:
            return await self._inner.__anext__()
        except StopAsyncIteration:
            self._end()
            raise

    async def __aenter__(self) -> Self:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        try:
            return await self._inner.__aexit__(exc_type, exc_val, exc_tb)
        finally:
            self._end()
