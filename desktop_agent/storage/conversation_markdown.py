"""A conversation as a Markdown transcript, for reading.

It reads as the window showed it: one ``## User`` section per message the
user typed, and one ``## Assistant`` section for everything the assistant
did in answer, as the live bubble holds it: the words of each round in turn,
with the tool calls made between them. A call's arguments and its result go
in fenced code blocks, whole, so a result's line breaks, Markdown and
backticks show as they were instead of being rendered or run together; the
fence is longer than any run of backticks inside it. Hook messages
(:func:`~desktop_agent.core.hooks.kept_hook`) are the model's, not the
user's: they neither show nor split the answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import assert_never

from desktop_agent.core.history_items import (
    AssistantMessage,
    HistoryItem,
    ToolAnswer,
    UnreadMessage,
    UserMessage,
)
from desktop_agent.core.hooks import HookNote, kept_hook
from desktop_agent.core.json_types import JSONReadable, as_list, as_object
from desktop_agent.core.stream_parser import strip_tags
from desktop_agent.storage.conversations import StoredConversation

_BACKTICKS = re.compile(r"`+")


@dataclass(frozen=True, slots=True)
class _Said:
    """What one history item puts on the page."""

    role: str
    text: str
    calls: tuple[tuple[str, str, str], ...] = ()
    """(id, name, arguments) of an assistant's calls."""
    call_id: str = ""
    """A tool answer's call."""


def _said(item: HistoryItem) -> _Said | None:
    """The item as the page reads it; None for what never shows (hooks)."""
    match item:
        case UserMessage():
            return _Said("user", item.content)
        case AssistantMessage():
            return _Said("assistant", item.content or "", tuple((c.id, c.name, c.arguments) for c in item.tool_calls))
        case ToolAnswer():
            return _Said("tool", item.content, call_id=item.call_id)
        case HookNote():
            return None
        case UnreadMessage():
            message = item.message
            role = message.get("role")
            if kept_hook(message) or role not in ("user", "assistant", "tool"):
                return None
            calls = tuple(
                (str(call.get("id")), str(function.get("name") or ""), str(function.get("arguments") or ""))
                for call in map(as_object, as_list(message.get("tool_calls")))
                for function in (as_object(call.get("function")),)
            )
            return _Said(str(role), _text(message.get("content")), calls, str(message.get("tool_call_id")))
        case _:
            assert_never(item)


def to_markdown(conversation: StoredConversation) -> str:
    said = [s for s in map(_said, conversation.messages) if s is not None]
    results = {s.call_id: s for s in said if s.role == "tool"}
    shown: set[int] = set()
    """ids of the tool answers already written under their call."""
    lines = [f"# {conversation.title or 'Conversation'}", ""]
    answering = False
    """Whether an ``## Assistant`` section is open (until the next user message)."""
    for message in said:
        if message.role == "user":
            lines += ["## User", "", message.text, ""]
            answering = False
            continue
        if id(message) in shown:
            continue
        if not answering:
            lines += ["## Assistant", ""]
            answering = True
        if message.role == "tool":  # a result whose call is not in the history
            lines += ["Result:", "", *_fenced(message.text), ""]
            continue
        words = strip_tags(message.text).strip()
        if words:
            lines += [words, ""]
        for call_id, name, arguments in message.calls:
            lines += _call(name, arguments)
            result = results.get(call_id)
            if result is not None and id(result) not in shown:
                shown.add(id(result))
                lines += ["Result:", "", *_fenced(result.text), ""]
    return "\n".join(lines).rstrip() + "\n"


def _call(name: str, arguments: str) -> list[str]:
    out = [f"Tool `{name or '?'}`:", ""]
    arguments = arguments.strip()
    if arguments:
        try:
            arguments, info = json.dumps(json.loads(arguments), ensure_ascii=False, indent=2), "json"
        except ValueError:
            info = ""
        out += [*_fenced(arguments, info), ""]
    return out


def _text(content: JSONReadable) -> str:
    """A message's words: its string, or the text parts of a part list."""
    if isinstance(content, str):
        return content
    if isinstance(content, Iterable) and not isinstance(content, bytes | Mapping):
        return "\n".join(str(p.get("text")) for p in content if isinstance(p, Mapping) and p.get("text"))
    return "" if content is None else str(content)


def _fenced(text: str, info: str = "") -> list[str]:
    """``text`` in a code block whose fence no backtick run inside can close."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    body = text.rstrip("\n")
    return [fence + info, body, fence] if body else [fence + info, fence]
