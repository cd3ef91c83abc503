"""A scripted ``POST /v1/audio/transcriptions`` server on 127.0.0.1 (standard
library only), for the ``openai`` recogniser's tests and the headless
``--audio-in`` runs.

Each request gets the next scripted reply (the last one repeats): a text,
or a :class:`SttFailure` (an HTTP status and message). Every upload is kept
in :attr:`ScriptedTranscriptionServer.uploads`, parsed from its multipart
form: the model, the file's name, type and bytes, the other fields.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.parser
import email.policy
from collections.abc import Sequence
from dataclasses import dataclass, field

from desktop_agent.testing.http11 import BadRequest, close_writer, parse_head, read_body, send_json
from desktop_agent.testing.loopback import LoopbackServer
from desktop_agent.testing.scripted_replies import error_body


@dataclass(frozen=True)
class SttFailure:
    status: int
    message: str = ""


@dataclass(frozen=True)
class Upload:
    """One transcription request as the server saw it."""

    model: str
    filename: str
    content_type: str
    audio: bytes
    fields: dict[str, str] = field(default_factory=dict)


SttReply = str | SttFailure


class ScriptedTranscriptionServer(LoopbackServer):
    def __init__(self, replies: Sequence[SttReply] = ("",)) -> None:
        super().__init__()
        self.replies: list[SttReply] = list(replies) or [""]
        self.uploads: list[Upload] = []
        self._next = 0

    def set_replies(self, replies: Sequence[SttReply]) -> None:
        self.replies, self._next = list(replies) or [""], 0

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while await self._serve_one(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        except BadRequest as exc:
            with contextlib.suppress(ConnectionError):
                await send_json(writer, 400, error_body(400, str(exc)), close=True)
        except asyncio.CancelledError:
            writer.transport.abort()  # closed by aclose(): no goodbye to wait for
            raise
        finally:
            if not writer.transport.is_closing():
                await close_writer(writer)

    async def _serve_one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            return False
        method, path, version, headers = parse_head(head)
        body = await read_body(reader, headers)
        close = headers.get("connection", "").lower() == "close" or version == "HTTP/1.0"
        if method != "POST" or not path.rstrip("/").endswith("/audio/transcriptions"):
            await send_json(writer, 404, error_body(404, f"no route for {method} {path}"), close=close)
            return not close
        upload = parse_upload(headers.get("content-type", ""), body)
        self.uploads.append(upload)
        reply = self.replies[min(self._next, len(self.replies) - 1)]
        self._next += 1
        if isinstance(reply, SttFailure):
            await send_json(writer, reply.status, error_body(reply.status, reply.message), close=close)
        else:
            await send_json(writer, 200, {"text": reply}, close=close)
        return not close


def parse_upload(content_type: str, body: bytes) -> Upload:
    """A ``multipart/form-data`` transcription request. Raises BadRequest."""
    if not content_type.startswith("multipart/form-data"):
        raise BadRequest(f"expected multipart/form-data, got {content_type!r}")
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body
    )
    fields: dict[str, str] = {}
    audio, filename, file_type = b"", "", ""
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        data = payload if isinstance(payload, bytes) else b""
        if part.get_filename():
            audio, filename, file_type = data, part.get_filename() or "", part.get_content_type()
        elif isinstance(name, str):
            fields[name] = data.decode()
    if not filename:
        raise BadRequest("the form has no file")
    return Upload(fields.pop("model", ""), filename, file_type, audio, fields)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m desktop_agent.testing.scripted_stt --text "what time is it"``:
    serve until SIGINT/SIGTERM, printing ``READY <base_url>`` first."""
    import argparse
    import signal

    parser = argparse.ArgumentParser(prog="python -m desktop_agent.testing.scripted_stt")
    parser.add_argument("--text", action="append", default=[], help="a reply (repeat for several)")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)

    async def serve() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        async with ScriptedTranscriptionServer(args.text or [""]) as server:
            print(f"READY {server.base_url}", flush=True)
            await stop.wait()

    asyncio.run(serve())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
