"""Just enough HTTP/1.1 for the scripted LLM server (standard library only).

Requests: a head, then a Content-Length or chunked body. Responses: JSON with
Content-Length, or a chunked event stream whose end (``0\\r\\n\\r\\n``) is
written only when the stream completes — so :func:`abort_writer` looks, to the
client, exactly like a connection dropped mid-reply.
"""

from __future__ import annotations

import asyncio
import json
from http import HTTPStatus
from typing import Any


class BadRequest(Exception):
    """The HTTP request could not be parsed; the message says why."""


def parse_head(head: bytes) -> tuple[str, str, str, dict[str, str]]:
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/"):
        raise BadRequest(f"malformed HTTP request line {lines[0][:80]!r}")
    headers = {}
    for line in lines[1:]:
        if line:
            name, sep, value = line.partition(":")
            if not sep:
                raise BadRequest(f"malformed HTTP header line {line[:80]!r}")
            headers[name.strip().lower()] = value.strip()
    return parts[0], parts[1], parts[2], headers


async def read_body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = bytearray()
        while True:
            size_line = await reader.readuntil(b"\r\n")
            try:
                size = int(size_line.split(b";")[0], 16)
            except ValueError as exc:
                raise BadRequest(f"malformed chunk size {size_line[:20]!r}") from exc
            if size == 0:
                while await reader.readuntil(b"\r\n") != b"\r\n":
                    pass  # trailers
                return bytes(body)
            body += await reader.readexactly(size)
            await reader.readexactly(2)
    try:
        length = int(headers.get("content-length", "0"))
    except ValueError as exc:
        raise BadRequest(f"malformed Content-Length {headers['content-length']!r}") from exc
    return await reader.readexactly(length) if length > 0 else b""


async def send_json(writer: asyncio.StreamWriter, status: int, body: Any, *, close: bool) -> None:
    data = json.dumps(body, ensure_ascii=False).encode()
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Error"
    writer.write(
        f"HTTP/1.1 {status} {phrase}\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n"
        f"Connection: {'close' if close else 'keep-alive'}\r\n\r\n".encode()
        + data
    )
    await writer.drain()


async def send_event(writer: asyncio.StreamWriter, data: str) -> None:
    payload = f"data: {data}\n\n".encode()
    writer.write(b"%x\r\n%b\r\n" % (len(payload), payload))
    await writer.drain()


async def abort_writer(writer: asyncio.StreamWriter) -> None:
    """Close without finishing the chunked body, after what was sent is flushed."""
    writer.transport.set_write_buffer_limits(high=0)
    await writer.drain()
    writer.transport.abort()


async def close_writer(writer: asyncio.StreamWriter) -> None:
    """Flush and close; a client that stops reading gets cut off after a bound."""
    if writer.transport.is_closing():
        return
    writer.close()
    try:
        async with asyncio.timeout(5):
            await writer.wait_closed()
    except (TimeoutError, ConnectionError):
        writer.transport.abort()


async def wait_for_eof(reader: asyncio.StreamReader) -> None:
    while await reader.read(65536):
        pass
