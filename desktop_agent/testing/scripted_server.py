"""A real OpenAI-compatible HTTP server that answers from a script.

Every test and benchmark that needs "an LLM" talks to this over loopback with
the real openai SDK, so the provider, the SSE parsing and the retry policy are
exercised for real. It is plain ``asyncio.start_server`` with a small
HTTP/1.1 parser (keep-alive, chunked streaming bodies) so it needs nothing
beyond the standard library and serves on the caller's event loop — a test
can ``await`` a subprocess (the headless CLI) while this answers it.

Streams use chunked transfer encoding on purpose: an abrupt close
(``Reply.drop_after``) then surfaces in the client as an incomplete body, the
way a dropped connection to a real endpoint does.

Run standalone (for a subprocess or an outside test)::

    python -m desktop_agent.testing.scripted_server --script replies.json [--port N]

prints ``READY <base_url>`` and serves until killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import time
from collections.abc import Sequence

from desktop_agent.testing.http11 import (
    BadRequest,
    abort_writer,
    close_writer,
    parse_head,
    read_body,
    send_event,
    send_json,
    wait_for_eof,
)
from desktop_agent.testing.json_dict import JSONDict
from desktop_agent.testing.loopback import LoopbackServer
from desktop_agent.testing.scripted_replies import (
    Reply,
    Script,
    ToolCallScript,
    completion_message,
    error_body,
    replies_from_json,
    stream_deltas,
    text_reply,
    tool_reply,
    usage_for,
)
from desktop_agent.testing.strict_checks import RequestCheck

__all__ = ["Reply", "Script", "ScriptedLLMServer", "ToolCallScript", "main", "text_reply", "tool_reply"]

log = logging.getLogger(__name__)

_MAX_HEAD = 64 * 1024


class ScriptedLLMServer(LoopbackServer):
    """Serves ``POST /v1/chat/completions`` (streamed or not) from ``script``.

    ``requests`` holds every chat request body received, in order (refused
    ones too); ``connections_opened`` counts TCP connections (keep-alive
    reuses one). ``refuse`` (see :mod:`desktop_agent.testing.strict_checks`)
    answers 400 with its message to the requests it objects to, without
    using up a scripted reply: a strict server's chat template.
    """

    def __init__(
        self,
        script: Script,
        *,
        model: str = "scripted",
        refuse: RequestCheck | None = None,
        models: Sequence[str] = (),
    ) -> None:
        self.model = model
        self.models = tuple(models) or (model,)
        """What ``GET /v1/models`` lists (the Settings dialog's Fetch models)."""
        self.refuse = refuse
        super().__init__()
        self.requests: list[JSONDict] = []
        self._script: Script = script
        self._next = 0
        self._call_ids = itertools.count(1)

    def set_script(self, script: Script) -> None:
        """Replace the script; a list starts again from its first reply."""
        self._script = script
        self._next = 0

    # ------------------------------------------------------------ HTTP

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while await self._serve_one(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the client went away; nothing to answer
        except BadRequest as exc:
            with contextlib.suppress(ConnectionError):
                await send_json(writer, 400, error_body(400, str(exc)), close=True)
        await close_writer(writer)

    async def _serve_one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Answer one request; False when the connection must close."""
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError as exc:
            if exc.partial.strip():
                raise BadRequest("incomplete HTTP request head") from exc
            return False
        except asyncio.LimitOverrunError as exc:
            raise BadRequest("HTTP request head too large") from exc
        method, path, version, headers = parse_head(head)
        body = await read_body(reader, headers)
        close = headers.get("connection", "").lower() == "close" or version == "HTTP/1.0"
        if method == "GET" and path.rstrip("/").endswith("/models"):
            models = {
                "object": "list",
                "data": [{"id": name, "object": "model", "owned_by": "scripted"} for name in self.models],
            }
            await send_json(writer, 200, models, close=close)
            return not close
        if method != "POST" or not path.rstrip("/").endswith("/chat/completions"):
            await send_json(writer, 404, error_body(404, f"no route for {method} {path}"), close=close)
            return not close
        try:
            request = json.loads(body)
            if not isinstance(request, dict):
                raise ValueError("the body is not a JSON object")
        except ValueError as exc:
            await send_json(
                writer, 400, error_body(400, f"request body is not valid JSON: {exc}"), close=close
            )
            return not close
        self.requests.append(request)
        refusal = self.refuse(request) if self.refuse is not None else None
        if refusal is not None:
            await send_json(writer, 400, error_body(400, refusal), close=close)
            return not close
        reply = self._reply_for(request)
        if reply.status != 200:
            await send_json(writer, reply.status, error_body(reply.status, reply.error_message), close=close)
            return not close
        call_ids = [self._call_id(call) for call in reply.tool_calls]
        if request.get("stream"):
            return await self._stream(writer, reader, request, reply, call_ids) and not close
        return await self._complete(writer, reader, request, reply, call_ids) and not close

    def _reply_for(self, request: JSONDict) -> Reply:
        script = self._script
        if callable(script):
            try:
                return script(request)
            except Exception as exc:
                log.exception("scripted server: the script function failed")
                return Reply(status=500, error_message=f"script function raised {type(exc).__name__}: {exc}")
        n = self._next
        self._next += 1
        if n >= len(script):
            return Reply(
                status=500,
                error_message=f"script exhausted: request #{n + 1} but the script has {len(script)} replies",
            )
        return script[n]

    def _call_id(self, call: ToolCallScript) -> str | None:
        if call.id == "auto":
            return f"call_{next(self._call_ids)}"
        return call.id

    async def _complete(
        self,
        writer: asyncio.StreamWriter,
        reader: asyncio.StreamReader,
        request: JSONDict,
        reply: Reply,
        call_ids: Sequence[str | None],
    ) -> bool:
        if reply.hang:
            await wait_for_eof(reader)
            return False
        if reply.drop_after is not None:
            return False
        if reply.pause_s():
            await asyncio.sleep(reply.pause_s())
        body = {
            "id": f"chatcmpl-scripted-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": [
                {
                    "index": 0,
                    "message": completion_message(reply, call_ids),
                    "finish_reason": reply.finish(),
                }
            ],
            "usage": usage_for(request, len(reply.content_deltas())),
        }
        await send_json(writer, 200, body, close=False)
        return True

    async def _stream(
        self,
        writer: asyncio.StreamWriter,
        reader: asyncio.StreamReader,
        request: JSONDict,
        reply: Reply,
        call_ids: Sequence[str | None],
    ) -> bool:
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n"
            b"Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        await writer.drain()
        if reply.hang:
            await wait_for_eof(reader)
            return False
        options = request.get("stream_options")
        usage = isinstance(options, dict) and bool(options.get("include_usage"))
        base: JSONDict = {
            "id": f"chatcmpl-scripted-{len(self.requests)}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": self.model,
        }
        for raw in reply.raw_events:
            await send_event(writer, raw)
        pause, sent_content, deltas = reply.pause_s(), 0, 0
        for kind, delta, finish in stream_deltas(reply, call_ids):
            if kind != "role" and reply.drop_after is not None and sent_content >= reply.drop_after:
                await abort_writer(writer)
                return False
            if kind in ("content", "tool"):
                if pause:
                    await asyncio.sleep(pause)
                deltas += 1
                sent_content += kind == "content"
            chunk = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
            if usage:
                chunk["usage"] = None
            await send_event(writer, json.dumps(chunk, ensure_ascii=False))
        if usage:
            await send_event(writer, json.dumps({**base, "choices": [], "usage": usage_for(request, deltas)}))
        await send_event(writer, "[DONE]")
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True


# ------------------------------------------------------------------ CLI


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m desktop_agent.testing.scripted_server --script replies.json``."""
    import argparse
    import signal
    import sys

    parser = argparse.ArgumentParser(prog="python -m desktop_agent.testing.scripted_server")
    parser.add_argument("--script", required=True, help="JSON file: a list of Reply objects")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--model", default="scripted")
    parser.add_argument("--requests-jsonl", help="append each request body to this file as one JSON line")
    args = parser.parse_args(argv)
    try:
        with open(args.script, encoding="utf-8") as f:
            replies = replies_from_json(json.load(f))
    except (OSError, ValueError, TypeError) as exc:
        print(f"scripted_server: cannot load {args.script}: {exc}", file=sys.stderr)
        return 2

    async def serve() -> None:
        server = ScriptedLLMServer(replies, model=args.model)
        if args.requests_jsonl:
            server.requests = _JsonlList(args.requests_jsonl)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await server.start(args.port)
        print(f"READY {server.base_url}", flush=True)
        try:
            await stop.wait()
        finally:
            await server.aclose()

    asyncio.run(serve())
    return 0


class _JsonlList(list[JSONDict]):
    """A request list that also appends each body to a JSONL file."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self._path = path

    def append(self, item: JSONDict) -> None:
        super().append(item)
        with open(self._path, "a", encoding="utf-8") as f:
            f.write(json.dumps(item, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
