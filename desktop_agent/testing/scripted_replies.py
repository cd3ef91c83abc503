"""What the scripted LLM server says: replies, and the OpenAI chunks they become.

Kept apart from the HTTP plumbing in :mod:`desktop_agent.testing.scripted_server`
so a test (or a benchmark) can build the exact chunk list a reply turns into
without a socket, and so the JSON-file form used by subprocesses parses the
same dataclasses the in-process tests construct.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal

from desktop_agent.core.wire import assistant_tool_calls
from desktop_agent.testing.json_dict import JSONDict


@dataclass(frozen=True)
class ToolCallScript:
    """One tool call the scripted model makes."""

    name: str
    arguments: str
    """Raw JSON text, streamed as is (it may be invalid on purpose)."""
    id: str | None = "auto"
    """``"auto"``: a server-generated ``call_<n>``; None: the deltas carry no id."""
    chunks: int = 3
    """The arguments are split into this many deltas."""


@dataclass(frozen=True)
class Reply:
    """One scripted answer to one ``/chat/completions`` request."""

    text: str = ""
    """Streamed content."""
    chunk_size: int = 4
    """Characters per content delta."""
    chunks: tuple[str, ...] | None = None
    """Explicit content deltas; overrides ``text``/``chunk_size``."""
    tool_calls: tuple[ToolCallScript, ...] = ()
    status: int = 200
    """Non-200: a JSON error body ``{"error": {...}}`` instead of a stream."""
    error_message: str = ""
    drop_after: int | None = None
    """Close the connection abruptly after this many content deltas."""
    delay_s: float = 0.0
    """Sleep before each delta, to pace a stream or let a test interrupt it."""
    tokens_per_s: float | None = None
    """Alternative pacing: ``1 / tokens_per_s`` seconds before each delta."""
    hang: bool = False
    """Send the headers, then nothing until the client goes away."""
    raw_events: tuple[str, ...] = ()
    """SSE ``data:`` payloads sent as they are before the reply's own deltas:
    a chunk of the wrong shape, an in-stream ``{"error": ...}`` (what a
    misbehaving server sends)."""
    finish_reason: str | None = None
    """The reply's ``finish_reason``; None: ``tool_calls`` when it calls a
    tool, else ``stop`` (``length``: cut at ``max_tokens``)."""

    def finish(self) -> str:
        return self.finish_reason or ("tool_calls" if self.tool_calls else "stop")

    def content_deltas(self) -> tuple[str, ...]:
        if self.chunks is not None:
            return self.chunks
        size = max(1, self.chunk_size)
        return tuple(self.text[i : i + size] for i in range(0, len(self.text), size))

    def pause_s(self) -> float:
        if self.tokens_per_s:
            return self.delay_s + 1.0 / self.tokens_per_s
        return self.delay_s


Script = Sequence[Reply] | Callable[[JSONDict], Reply]
"""A list consumed in order, or a function of the request body."""


def text_reply(text: str, **kw: Any) -> Reply:
    """A reply that streams ``text``; ``kw`` are other :class:`Reply` fields."""
    return Reply(text=text, **kw)


def tool_reply(name: str, args: Mapping[str, Any], text: str = "") -> Reply:
    """A reply that (after optional ``text``) calls one tool with ``args``."""
    return Reply(text=text, tool_calls=(ToolCallScript(name, json.dumps(args, ensure_ascii=False)),))


# ------------------------------------------------------------------ JSON form


def _build(cls: type[Any], data: object, where: str) -> Any:
    if not isinstance(data, dict):
        raise ValueError(f"{where} must be a JSON object, got {type(data).__name__}")
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"{where} has unknown key {unknown[0]!r} (known: {', '.join(sorted(known))})")
    return cls(**data)


def replies_from_json(data: object) -> list[Reply]:
    """Parse a list of :class:`Reply` dicts (``tool_calls`` as a list of dicts)."""
    if not isinstance(data, list):
        raise ValueError("the script must be a JSON list of reply objects")
    replies = []
    for n, item in enumerate(data, 1):
        if isinstance(item, dict):
            item = dict(item)
            calls = item.get("tool_calls", ())
            if not isinstance(calls, list | tuple):
                raise ValueError(f"reply #{n}: tool_calls must be a list")
            item["tool_calls"] = tuple(
                _build(ToolCallScript, c, f"reply #{n} tool call #{i}") for i, c in enumerate(calls, 1)
            )
            if item.get("chunks") is not None:
                item["chunks"] = tuple(item["chunks"])
            if item.get("raw_events") is not None:
                item["raw_events"] = tuple(item["raw_events"])
        replies.append(_build(Reply, item, f"reply #{n}"))
    return replies


# ------------------------------------------------------------------ chunks

StepKind = Literal["role", "content", "tool", "finish"]

_ERROR_KINDS = {
    400: ("invalid_request_error", "bad_request"),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("permission_denied", "forbidden"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}


def error_body(status: int, message: str) -> JSONDict:
    """The JSON body OpenAI sends with a non-200 status."""
    kind, code = _ERROR_KINDS.get(status, ("server_error", "server_error"))
    return {"error": {"message": message or f"scripted error {status}", "type": kind, "code": code}}


def _split(text: str, parts: int) -> list[str]:
    parts = max(1, min(parts, len(text))) if text else 1
    size, extra = divmod(len(text), parts)
    out, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        out.append(text[start:end])
        start = end
    return out


def stream_deltas(
    reply: Reply, call_ids: Sequence[str | None]
) -> Iterator[tuple[StepKind, JSONDict, str | None]]:
    """The ``delta`` objects of a streamed reply, in order, with their finish reason.

    ``call_ids`` gives the id for each tool call (None: omit the key).
    """
    yield "role", {"role": "assistant", "content": ""}, None
    for piece in reply.content_deltas():
        yield "content", {"content": piece}, None
    for index, (call, call_id) in enumerate(zip(reply.tool_calls, call_ids, strict=True)):
        head: JSONDict = {
            "index": index,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        if call_id is not None:
            head["id"] = call_id
        yield "tool", {"tool_calls": [head]}, None
        for fragment in _split(call.arguments, call.chunks):
            yield "tool", {"tool_calls": [{"index": index, "function": {"arguments": fragment}}]}, None
    yield "finish", {}, reply.finish()


def completion_message(reply: Reply, call_ids: Sequence[str | None]) -> JSONDict:
    """The ``message`` of a non-streamed reply."""
    content = "".join(reply.content_deltas()) or None
    if not reply.tool_calls:
        return {"role": "assistant", "content": content}
    return assistant_tool_calls(
        content,
        ((cid, c.name, c.arguments) for c, cid in zip(reply.tool_calls, call_ids, strict=True)),
    )


def usage_for(request: Mapping[str, Any], completion_tokens: int) -> JSONDict:
    """A deterministic, rough token count (4 characters a token)."""
    prompt = len(json.dumps(request.get("messages", []), ensure_ascii=False)) // 4
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt + completion_tokens,
    }
