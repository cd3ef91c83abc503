"""History (DESIGN §6, seed §7 "round_end"): OpenAI messages built from what
the playback queue actually consumed.

- text accumulates; ``round_end`` flushes it as its own assistant message;
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
from typing import Any

from desktop_agent.core.stream_parser import strip_intent_tags

JSONDict = dict[str, Any]

TOOL_CONTEXT_MAX_LEN = 300
NO_TRUNCATE_TOOLS: frozenset[str] = frozenset({"get_skill"})
TRUNCATION_MARK = "…[truncated]"


@dataclass
class _Call:
    id: str
    name: str
    arguments: Any
    answer: str | None = None


class HistoryRecorder:
    """Feed it consumed bus messages in order; read :attr:`messages`."""

    def __init__(self) -> None:
        self.messages: list[JSONDict] = []
        self._text: list[str] = []
        self._calls: dict[str, _Call] = {}

    def consume(self, message: Mapping[str, Any]) -> None:
        kind = message["type"]
        if kind == "text":
            self._text.append(str(message.get("raw_text", message.get("text", ""))))
        elif kind == "tool_call":
            self._tool_call(message)
        elif kind == "tool_rejected":
            call = self._call(message)
            reason = str(message.get("reason", "the tool call was rejected"))
            partial = message.get("partial_result")
            if partial:
                body = partial if isinstance(partial, str) else json.dumps(partial, ensure_ascii=False)
                reason = f"{body}\n{reason}"
            call.answer = reason
        elif kind in ("round_end", "interrupted", "turn_end"):
            self.flush()

    def _call(self, message: Mapping[str, Any]) -> _Call:
        call_id = str(message["tool_call_id"])
        call = self._calls.get(call_id)
        if call is None:
            call = _Call(call_id, str(message.get("tool_name", "")), message.get("arguments"))
            self._calls[call_id] = call
        if message.get("arguments") is not None:
            call.arguments = message["arguments"]
        return call

    def _tool_call(self, message: Mapping[str, Any]) -> None:
        call = self._call(message)
        if message.get("state") == "result":
            call.answer = str(message.get("result", ""))

    def flush(self) -> None:
        text = strip_intent_tags("".join(self._text)).strip()
        self._text.clear()
        answered = [c for c in self._calls.values() if c.answer is not None]
        self._calls.clear()
        if answered:
            self.messages.append(
                {
                    "role": "assistant",
                    "content": text or None,
                    "tool_calls": [
                        {
                            "id": c.id,
                            "type": "function",
                            "function": {"name": c.name, "arguments": _arguments_json(c.arguments)},
                        }
                        for c in answered
                    ],
                }
            )
            for c in answered:
                self.messages.append({"role": "tool", "tool_call_id": c.id, "content": c.answer})
        elif text:
            self.messages.append({"role": "assistant", "content": text})


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
