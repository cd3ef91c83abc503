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

from desktop_agent.core.hooks import kept_hook
from desktop_agent.core.json_types import JSONMapping, JSONReadable, as_object
from desktop_agent.core.stream_parser import strip_tags
from desktop_agent.storage.conversations import StoredConversation

_BACKTICKS = re.compile(r"`+")


def to_markdown(conversation: StoredConversation) -> str:
    messages = conversation.messages
    results = {str(m.get("tool_call_id")): m for m in messages if m.get("role") == "tool"}
    shown: set[int] = set()
    """ids of the tool messages already written under their call."""
    lines = [f"# {conversation.title or 'Conversation'}", ""]
    answering = False
    """Whether an ``## Assistant`` section is open (until the next user message)."""
    for message in messages:
        role = message.get("role")
        if kept_hook(message) or role not in ("user", "assistant", "tool"):
            continue
        if role == "user":
            lines += ["## User", "", _text(message.get("content")), ""]
            answering = False
            continue
        if id(message) in shown:
            continue
        if not answering:
            lines += ["## Assistant", ""]
            answering = True
        if role == "tool":  # a result whose call is not in the history
            lines += ["Result:", "", *_fenced(_text(message.get("content"))), ""]
            continue
        words = strip_tags(_text(message.get("content"))).strip()
        if words:
            lines += [words, ""]
        for call in message.get("tool_calls") or ():
            lines += _call(call)
            result = results.get(str(call.get("id")))
            if result is not None and id(result) not in shown:
                shown.add(id(result))
                lines += ["Result:", "", *_fenced(_text(result.get("content"))), ""]
    return "\n".join(lines).rstrip() + "\n"


def _call(call: JSONMapping) -> list[str]:
    function = as_object(call.get("function"))
    out = [f"Tool `{function.get('name') or '?'}`:", ""]
    arguments = str(function.get("arguments") or "").strip()
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
