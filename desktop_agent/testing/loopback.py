"""LoopbackServer: the life cycle the scripted servers share — listen on
127.0.0.1, one task per connection, and close that drops every connection
and waits for the handlers. Subclasses serve one connection in
:meth:`LoopbackServer._serve`."""

from __future__ import annotations

import asyncio
import contextlib
from types import TracebackType
from typing import Self


class LoopbackServer:
    def __init__(self) -> None:
        self.connections_opened = 0
        self._server: asyncio.Server | None = None
        self._port = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()

    async def start(self, port: int = 0) -> None:
        self._server = await asyncio.start_server(self._on_connection, "127.0.0.1", port)
        self._port = self._server.sockets[0].getsockname()[1]

    async def aclose(self) -> None:
        """Stop listening and drop every open connection."""
        server, self._server = self._server, None
        if server is None:
            return
        server.close()
        for writer in list(self._writers):
            writer.transport.abort()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=5)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(5):
                await server.wait_closed()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    @property
    def port(self) -> int:
        return self._port

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._port}/v1"

    async def _on_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._writers.add(writer)
        self.connections_opened += 1
        try:
            await self._serve(reader, writer)
        except asyncio.CancelledError:
            # aclose() cancels handlers (one may sit in a pacing sleep). Ending
            # quietly matters: asyncio 3.11's start_server callback calls
            # task.exception() on the finished handler, which raises (and logs
            # "Exception in callback") for a task that ended cancelled.
            writer.transport.abort()
        finally:
            self._tasks.discard(task)
            self._writers.discard(writer)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        raise NotImplementedError
