"""Export a conversation to Markdown or JSON, and import that JSON (issue 14).

The JSON file holds the OpenAI message list (``messages``, enough to resume
the model's context anywhere that reads that format) and our display log
(``events``, for a faithful restore); an import without ``events`` rebuilds
them from the messages. Markdown is for reading: the user's and the
assistant's words, and one quoted line per tool call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from desktop_agent.core.display_log import events_from_history
from desktop_agent.core.stream_parser import strip_tags
from desktop_agent.storage.conversations import StoredConversation, title_of

FORMAT = "desktop-agent-conversation"
JSONDict = dict[str, Any]


class ConversationFileError(ValueError):
    """The file is not a conversation this app wrote (one line)."""


def to_json(conversation: StoredConversation) -> str:
    return json.dumps(
        {"format": FORMAT, "version": 1, "id": conversation.id, "title": conversation.title,
         "messages": conversation.messages, "events": conversation.events},
        ensure_ascii=False, indent=1,
    )


def to_markdown(conversation: StoredConversation) -> str:
    lines = [f"# {conversation.title or 'Conversation'}", ""]
    for message in conversation.messages:
        if message.get("_hook"):
            continue
        role, content = message.get("role"), str(message.get("content") or "")
        if role == "user":
            lines += ["## User", "", content, ""]
        elif role == "assistant":
            text = strip_tags(content).strip()
            if text:
                lines += ["## Assistant", "", text, ""]
            for call in message.get("tool_calls") or ():
                function = call.get("function") or {}
                lines += [f"> tool `{function.get('name', '?')}` {function.get('arguments', '')}", ""]
        elif role == "tool":
            result = " ".join(content.split())
            lines += [f"> result: {result[:500]}{'…' if len(result) > 500 else ''}", ""]
    return "\n".join(lines).rstrip() + "\n"


@dataclass(frozen=True)
class Imported:
    title: str
    messages: list[JSONDict]
    events: list[JSONDict]


def from_json(text: str) -> Imported:
    """Read an exported conversation; a bare OpenAI message list is taken too."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ConversationFileError(f"not JSON: {exc}") from None
    if isinstance(data, list):
        data = {"messages": data}
    if not isinstance(data, Mapping) or not isinstance(data.get("messages"), list):
        raise ConversationFileError("no message list in the file")
    messages = [m for m in data["messages"] if isinstance(m, Mapping) and "role" in m]
    if len(messages) != len(data["messages"]):
        raise ConversationFileError("the message list holds entries that are not messages")
    events = data.get("events")
    if not isinstance(events, list) or not all(isinstance(e, Mapping) and "type" in e for e in events):
        events = events_from_history(messages)
    title = str(data.get("title") or title_of([dict(m) for m in messages]))
    return Imported(title, [dict(m) for m in messages], [dict(e) for e in events])
