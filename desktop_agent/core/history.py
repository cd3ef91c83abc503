"""History (DESIGN §6, seed §7 "round_end"): OpenAI messages built from what
the playback queue actually consumed.

- text accumulates (its raw characters, intent tags removed, every space
  and newline kept); ``round_end`` flushes it as its own assistant message;
- tool calls of a round merge the pending text into the assistant message
  that carries ``tool_calls``, followed by one ``tool`` message per call;
- a rejected or interrupted call becomes a ``tool`` message with the reason
  (partial result first);
- content never shown never enters history.

Invariant (:func:`check_history`): every ``tool_calls`` id is answered by
exactly one following ``tool`` message.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, assert_never

from desktop_agent.core.json_types import JSONDict
from desktop_agent.core.messages import (
    AudioMessage,
    BusMessage,
    CardMessage,
    ErrorMessage,
    FormRequestMessage,
    InterruptedMessage,
    RoundEndMessage,
    TextMessage,
    ToolCallMessage,
    ToolOutputMessage,
    ToolProgressMessage,
    ToolRejectedMessage,
    TranscriptMessage,
    TurnEndMessage,
    WarningMessage,
)
from desktop_agent.core.stream_parser import strip_intent_tags, strip_tags

TOOL_CONTEXT_MAX_LEN = 300
NO_TRUNCATE_TOOLS: frozenset[str] = frozenset({"get_skill"})
TRUNCATION_MARK = "…[truncated]"


@dataclass
class _Call:
    id: str
    name: str
    arguments: Any
    answer: str | None = None


def assistant_tool_calls(
    content: str | None, calls: Iterable[tuple[str | None, str, str]]
) -> JSONDict:
    """The assistant message that carries ``tool_calls``: the one place it
    is built. ``calls``: (id, name, arguments as JSON text); a None id only
    comes from test scripts of a server that omits it."""
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
            for call_id, name, arguments in calls
        ],
    }


class HistoryRecorder:
    """Feed it consumed bus messages in order; read :attr:`messages`."""

    def __init__(self) -> None:
        self.messages: list[JSONDict] = []
        self._text: list[str] = []
        self._calls: dict[str, _Call] = {}

    def consume(self, message: BusMessage) -> None:
        match message:
            case TextMessage():
                self._text.append(message.raw_text)
            case ToolCallMessage():
                call = self._call(message.tool_call_id, message.tool_name, message.arguments)
                if message.state == "result":
                    call.answer = message.result or ""
            case ToolRejectedMessage():
                call = self._call(message.tool_call_id, message.tool_name, message.arguments)
                reason = message.reason
                partial = message.partial_result
                if partial:
                    reason = f"{json.dumps(dict(partial), ensure_ascii=False)}\n{reason}"
                call.answer = reason
            case RoundEndMessage() | InterruptedMessage() | TurnEndMessage():
                self.flush()
            case (
                ToolProgressMessage()
                | ToolOutputMessage()
                | FormRequestMessage()
                | CardMessage()
                | AudioMessage()
                | WarningMessage()
                | ErrorMessage()
                | TranscriptMessage()
            ):
                pass  # shown, never sent back to the model
            case _:
                assert_never(message)

    def _call(self, call_id: str, name: str, arguments: Mapping[str, Any] | None) -> _Call:
        call = self._calls.get(call_id)
        if call is None:
            call = self._calls[call_id] = _Call(call_id, name, arguments)
        if arguments is not None:
            call.arguments = arguments
        return call

    def flush(self) -> None:
        text = strip_intent_tags("".join(self._text))
        self._text.clear()
        answered = [c for c in self._calls.values() if c.answer is not None]
        self._calls.clear()
        content = text if strip_tags(text).strip() else None  # nothing visible: no message
        if answered:
            self.messages.append(
                assistant_tool_calls(
                    content, ((c.id, c.name, _arguments_json(c.arguments)) for c in answered)
                )
            )
            for c in answered:
                self.messages.append({"role": "tool", "tool_call_id": c.id, "content": c.answer})
        elif content is not None:
            self.messages.append({"role": "assistant", "content": content})


def _arguments_json(arguments: Any) -> str:
    if arguments is None:
        return "{}"
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + TRUNCATION_MARK


def truncate_for_send(
    messages: Sequence[Mapping[str, Any]],
    *,
    max_len: int = TOOL_CONTEXT_MAX_LEN,
    no_truncate: Iterable[str] = NO_TRUNCATE_TOOLS,
) -> list[JSONDict]:
    """Copy of ``messages`` with tool arguments and results cut to ``max_len``
    characters, except for tools in ``no_truncate`` (found for ``tool``
    messages through their ``tool_call_id``)."""
    keep = frozenset(no_truncate)
    names: dict[str, str] = {}
    out: list[JSONDict] = []
    for message in messages:
        copy = dict(message)
        if copy.get("tool_calls"):
            calls = []
            for tc in copy["tool_calls"]:
                fn = dict(tc["function"])
                names[str(tc["id"])] = str(fn["name"])
                if fn["name"] not in keep:
                    fn["arguments"] = _cut(str(fn.get("arguments") or ""), max_len)
                calls.append({**tc, "function": fn})
            copy["tool_calls"] = calls
        elif copy.get("role") == "tool":
            if names.get(str(copy.get("tool_call_id"))) not in keep:
                copy["content"] = _cut(str(copy.get("content") or ""), max_len)
        out.append(copy)
    return out


class HistoryError(ValueError):
    pass


def check_history(messages: Sequence[Mapping[str, Any]]) -> None:
    """Raise :class:`HistoryError` unless every ``tool_calls`` id is answered
    by exactly one ``tool`` message before the next assistant/user turn."""
    expected: list[str] = []
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in expected:
                raise HistoryError(f"message {index}: tool answer {call_id!r} matches no pending tool call")
            expected.remove(call_id)
            continue
        if expected:
            raise HistoryError(f"message {index}: tool calls {expected} were never answered")
        if role == "assistant" and message.get("tool_calls"):
            expected = [str(tc["id"]) for tc in message["tool_calls"]]
            if len(set(expected)) != len(expected):
                raise HistoryError(f"message {index}: duplicate tool call ids {expected}")
    if expected:
        raise HistoryError(f"end of history: tool calls {expected} were never answered")
