"""The wire normalizer's tool-call steps (``core/wire.py``, contracts §2a,
rules 2 and 4): each assistant ``tool_calls`` message followed by exactly
its answers, in call order, with nine-character wire ids derived from the
original ones and arguments that are the text of a JSON object (the start
of anything else quoted in the call's tool message); and, for the strict
profile, earlier calls and results replayed as text. Also the two text
helpers every step uses (:func:`message_text`, :func:`joined`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NoReturn, TypeAlias

from desktop_agent.core.json_depth import MAX_ARGUMENT_DEPTH, nests_deeper_than
from desktop_agent.core.json_types import JSONObject, JSONReadable, as_list, as_object

log = logging.getLogger(__name__)

WireMessage: TypeAlias = dict[str, JSONReadable]
"""A message of the wire form: a new dict (its keys are the normalizer's to
set) whose values may be the input's own, only read (tool calls, texts)."""

CALL_AS_TEXT = "[called {name} with {arguments}]"
RESULT_AS_TEXT = "[result of {name}]\n{content}"
ARGUMENTS_NOTE = "[the arguments of this call were not a JSON object; the model sent: {raw}]"
RAW_ARGUMENTS_MAX = 300
"""Characters of such arguments the note quotes."""

_WIRE_ID = re.compile(r"[A-Za-z0-9]{9}")
_ID_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


@dataclass
class WireIds:
    """Wire ids of one request: nine letters or digits, unique."""

    used: set[str] = field(default_factory=set)

    def wire_id(self, original: str, position: str) -> str:
        if _WIRE_ID.fullmatch(original) and original not in self.used:
            self.used.add(original)
            return original
        seed = original or position
        for salt in range(1000):
            digest = hashlib.sha256(f"{seed}\0{salt}".encode()).digest()
            candidate = "".join(_ID_ALPHABET[b % len(_ID_ALPHABET)] for b in digest[:9])
            if candidate not in self.used:
                self.used.add(candidate)
                return candidate
        raise AssertionError("no free tool call id")  # pragma: no cover - 62**9 ids


def pair_tool_calls(body: list[WireMessage]) -> list[WireMessage]:
    """Each assistant ``tool_calls`` message followed by exactly its answers,
    in call order, with wire ids and JSON-object arguments."""
    ids = WireIds()
    out: list[WireMessage] = []
    index = 0
    while index < len(body):
        message = body[index]
        index += 1
        if message["role"] == "tool":
            log.debug("wire: dropped a tool message that answers no call before it")
            continue
        if "tool_calls" not in message:
            out.append(message)
            continue
        answers: list[WireMessage] = []
        while index < len(body) and body[index]["role"] == "tool":
            answers.append(body[index])
            index += 1
        out.extend(_answered_calls(message, answers, ids, len(out)))
    return out


def _answered_calls(
    message: WireMessage, answers: list[WireMessage], ids: WireIds, position: int
) -> list[WireMessage]:
    calls: list[JSONObject] = []
    replies: list[WireMessage] = []
    unused = list(answers)
    for n, raw in enumerate(as_list(message["tool_calls"])):
        if not isinstance(raw, Mapping):
            continue
        original = str(raw.get("id") or "")
        answer = next((a for a in unused if a["tool_call_id"] == original), None)
        if answer is None:
            log.debug("wire: dropped tool call %r, which has no answer", original)
            continue
        unused.remove(answer)
        function = raw.get("function")
        function = function if isinstance(function, Mapping) else {}
        arguments, raw_arguments = _arguments(function.get("arguments"))
        call_id = ids.wire_id(original, f"{position}.{n}")
        calls.append(
            {
                "id": call_id,
                "type": "function",
                "function": {"name": str(function.get("name") or ""), "arguments": arguments},
            }
        )
        content = message_text(answer)
        if raw_arguments is not None:
            content = joined(content, ARGUMENTS_NOTE.format(raw=raw_arguments))
        replies.append({"role": "tool", "tool_call_id": call_id, "content": content})
    head = {k: v for k, v in message.items() if k != "tool_calls"}
    return [{**head, "tool_calls": calls}, *replies] if calls else [head]


def _arguments(raw: JSONReadable) -> tuple[str, str | None]:
    """(JSON-object text to send, the original text when it was not one)."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return "{}", None
    if isinstance(raw, Mapping):
        if nests_deeper_than(raw, MAX_ARGUMENT_DEPTH):
            return "{}", f"an object nested more than {MAX_ARGUMENT_DEPTH} levels deep"
        try:
            return json.dumps(raw, ensure_ascii=False, allow_nan=False), None
        except (TypeError, ValueError):
            return "{}", _short(str(raw))
    text = raw if isinstance(raw, str) else str(raw)
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):  # RecursionError: nested too deeply to parse
        return "{}", _short(text)
    if not isinstance(value, dict) or nests_deeper_than(value, MAX_ARGUMENT_DEPTH):
        # Too deep is refused like invalid JSON: the agent never ran such a
        # call, and a server's recursive parser need not be tried with it.
        return "{}", _short(text)
    return text, None


def _short(raw: str) -> str:
    """The original arguments as the tool message quotes them: their start,
    enough to show the model what it sent (a megabyte of them would be
    sent again with every request of the turn)."""
    return raw if len(raw) <= RAW_ARGUMENTS_MAX else raw[:RAW_ARGUMENTS_MAX] + "…"


def _no_constant(name: str) -> NoReturn:
    """NaN and Infinity are not JSON: servers in Go or Rust refuse them."""
    raise ValueError(name)


def tool_history_as_text(body: list[WireMessage]) -> list[WireMessage]:
    """The strict profile's replay: calls become assistant text, results
    user messages (merged afterwards with their neighbours)."""
    names: dict[str, str] = {}
    out: list[WireMessage] = []
    for message in body:
        if message["role"] == "tool":
            name = names.get(str(message["tool_call_id"]), "the tool")
            out.append({"role": "user", "content": RESULT_AS_TEXT.format(name=name, content=message["content"])})
            continue
        calls = as_list(message.get("tool_calls"))  # as _answered_calls built them
        if not calls:
            out.append(message)
            continue
        said = [message_text(message)]
        for call in map(as_object, calls):
            function = as_object(call["function"])
            names[str(call["id"])] = str(function["name"])
            said.append(CALL_AS_TEXT.format(name=function["name"], arguments=function["arguments"]))
        flat = {k: v for k, v in message.items() if k != "tool_calls"}
        out.append({**flat, "content": joined(*said)})
    return out


def message_text(message: WireMessage) -> str | None:
    """A cleaned message's content: text, or None (an assistant's, with calls)."""
    content = message.get("content")
    return content if isinstance(content, str) else None


def joined(*parts: str | None) -> str | None:
    """Texts joined by a blank line, each kept exactly; when all are empty,
    the first as it was (None stays None for an assistant's content)."""
    kept = [p for p in parts if p]
    return "\n\n".join(kept) if kept else parts[0]
