"""Export a conversation to Markdown or JSON, and import that JSON (issue 14).

The JSON file holds the OpenAI message list (``messages``, enough to resume
the model's context anywhere that reads that format) and our display log
(``events``, for a faithful restore); an import without ``events`` rebuilds
them from the messages. Markdown is for reading (:mod:`conversation_markdown`):
each exchange as the window showed it, tool calls and results in code blocks.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from desktop_agent.core.display_log import events_from_history
from desktop_agent.storage.conversation_markdown import to_markdown
from desktop_agent.storage.conversations import StoredConversation, title_of

__all__ = ["FORMAT", "ConversationFileError", "Imported", "from_json", "to_json", "to_markdown"]

FORMAT = "desktop-agent-conversation"
JSONDict = dict[str, Any]


class ConversationFileError(ValueError):
    """The file is not a conversation this app wrote (one line, in English:
    the terminal and the logs say it so). ``key`` names the UI text that
    says it in the user's language, formatted with ``fields``; the window
    words it from them, not by reading the English."""

    def __init__(self, message: str, key: str, **fields: object) -> None:
        super().__init__(message)
        self.key = key
        self.fields = fields


def to_json(conversation: StoredConversation) -> str:
    return json.dumps(
        {"format": FORMAT, "version": 1, "id": conversation.id, "title": conversation.title,
         "messages": conversation.messages, "events": conversation.events},
        ensure_ascii=False, indent=1,
    )


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
        raise ConversationFileError(f"not JSON: {exc}", "conv_import_not_json", error=str(exc)) from None
    if isinstance(data, list):
        data = {"messages": data}
    if not isinstance(data, Mapping) or not isinstance(data.get("messages"), list):
        raise ConversationFileError("no message list in the file", "conv_import_no_messages")
    messages = [m for m in data["messages"] if isinstance(m, Mapping) and "role" in m]
    if len(messages) != len(data["messages"]):
        raise ConversationFileError(
            "the message list holds entries that are not messages", "conv_import_bad_messages"
        )
    events = data.get("events")
    if not isinstance(events, list) or not all(isinstance(e, Mapping) and "type" in e for e in events):
        events = events_from_history(messages)
    title = str(data.get("title") or title_of([dict(m) for m in messages]))
    return Imported(title, [dict(m) for m in messages], [dict(e) for e in events])
