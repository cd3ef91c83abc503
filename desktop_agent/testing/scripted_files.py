"""A scripted file server on 127.0.0.1 (standard library only), for model
downloads (``voice/stt/models.py``) that must never reach the network.

Each path serves a :class:`ServedFile`: its bytes, or a status, or a
redirect; optionally paced, cut off, or held after a number of bytes (a
download that hangs until the test cancels it). Every request's path is kept
in :attr:`ScriptedFileServer.requests`. One request per connection.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from http import HTTPStatus

from desktop_agent.testing.http11 import BadRequest, close_writer, parse_head
from desktop_agent.testing.loopback import LoopbackServer

_CHUNK = 16 * 1024


@dataclass(frozen=True)
class ServedFile:
    body: bytes = b""
    status: int = 200
    location: str | None = None
    """With a 3xx ``status``: where to go instead."""
    bytes_per_s: float | None = None
    """Pace the body at about this rate."""
    drop_after: int | None = None
    """Drop the connection after this many body bytes."""
    hold_after: int | None = None
    """Send this many body bytes, then nothing more until the server closes."""
    content_length: bool = True
    """Say the body's length (else the end of the connection ends it)."""


class ScriptedFileServer(LoopbackServer):
    def __init__(self, files: Mapping[str, ServedFile]) -> None:
        super().__init__()
        self.files = dict(files)
        self.requests: list[str] = []
        self.holding = asyncio.Event()
        """Set once a ``hold_after`` body stopped sending."""

    def url(self, path: str = "") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            method, path, _version, _headers = parse_head(head)
            self.requests.append(path)
            served = self.files.get(path) if method in ("GET", "HEAD") else None
            if served is None:
                await _send_head(writer, 404, {"Content-Length": "0"})
            else:
                await _send(writer, served, self.holding, head_only=method == "HEAD")
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, BadRequest):
            pass
        finally:
            if not writer.transport.is_closing():
                await close_writer(writer)


async def _send(writer: asyncio.StreamWriter, served: ServedFile, holding: asyncio.Event, *, head_only: bool) -> None:
    headers = {"Content-Type": "application/octet-stream"}
    if served.location is not None:
        headers["Location"] = served.location
    body = served.body if served.status == 200 else b""
    if served.content_length:
        headers["Content-Length"] = str(len(body))
    await _send_head(writer, served.status, headers)
    if head_only:
        return
    sent = 0
    while sent < len(body):
        stop = min(x for x in (served.drop_after, served.hold_after, len(body)) if x is not None)
        if sent >= stop:
            break
        chunk = body[sent : min(sent + _CHUNK, stop)]
        writer.write(chunk)
        await writer.drain()
        sent += len(chunk)
        if served.bytes_per_s:
            await asyncio.sleep(len(chunk) / served.bytes_per_s)
    if served.drop_after is not None and sent < len(body):
        writer.transport.abort()
    elif served.hold_after is not None and sent < len(body):
        holding.set()
        await asyncio.Event().wait()  # until aclose() cancels this handler


async def _send_head(writer: asyncio.StreamWriter, status: int, headers: dict[str, str]) -> None:
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Status"
    lines = [f"HTTP/1.1 {status} {phrase}", *(f"{k}: {v}" for k, v in headers.items()), "Connection: close"]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
    await writer.drain()
