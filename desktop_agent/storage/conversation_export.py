"""Export a conversation to Markdown or JSON, and import that JSON.

The JSON file holds the OpenAI message list (``messages``, enough to resume
the model's context anywhere that reads that format) and our display log
(``events``, for a faithful restore); an import without ``events`` rebuilds
them from the messages. Both ways go through the typed history: the
messages are written from it and read into it by ``storage/history_json.py``
(a message it does not model is kept whole), so the file's format is the
one the app always wrote. Markdown is for reading (:mod:`conversation_markdown`):
each exchange as the window showed it, tool calls and results in code blocks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from desktop_agent.core.history_items import HistoryItem
from desktop_agent.core.json_types import JSONObject
from desktop_agent.storage.conversation_events import events_from_history
from desktop_agent.storage.conversation_markdown import to_markdown
from desktop_agent.storage.conversations import STORED_TITLE_MAX, StoredConversation, title_of
from desktop_agent.storage.history_json import history_items, history_json

__all__ = [
    "FORMAT", "IMPORT_MAX_BYTES", "AlreadyImported", "ConversationFileError", "Imported", "from_json", "to_json",
    "to_markdown",
]

FORMAT = "desktop-agent-conversation"


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
         "messages": history_json(conversation.messages), "events": list(conversation.events)},
        ensure_ascii=False, indent=1,
    )


class AlreadyImported(ConversationFileError):
    """The file's conversation is here already (the same id, or the same
    title and messages): nothing is stored unless a copy is asked for."""

    def __init__(self, existing_id: str, title: str) -> None:
        super().__init__(f"the conversation {title!r} is here already", "conv_import_already", title=title)
        self.existing_id = existing_id


@dataclass(frozen=True)
class Imported:
    title: str
    messages: list[HistoryItem]
    events: list[JSONObject]
    source_id: str | None = None
    """The id the file says the conversation had where it was exported
    (None: a bare message list or another host's file)."""


IMPORT_MAX_BYTES = 64 << 20
"""The largest file taken for import (read no further than this)."""
DEPTH_MAX = 100
"""Deeper than this is not a conversation (a tool's arguments are a few levels)."""


class _Function(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)
    name: str = Field(min_length=1)
    arguments: str


class _ToolCall(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)
    id: str = Field(min_length=1)
    type: Literal["function"] = "function"
    function: _Function


class _Message(BaseModel):
    """One OpenAI message as this app writes and reads them; keys of other
    hosts (``name``, ``refusal``…) and our own (``_hook``) are kept."""

    model_config = ConfigDict(extra="allow", strict=True)
    role: Literal["system", "user", "assistant", "tool"]
    content: str | list[dict[str, Any]] | None = None
    tool_calls: list[_ToolCall] | None = None
    tool_call_id: str | None = None


class _File(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)
    title: str | None = None
    messages: list[_Message]
    events: list[dict[str, Any]] | None = None


def from_json(text: str) -> Imported:
    """Read an exported conversation; a bare OpenAI message list is taken too.
    Raises :class:`ConversationFileError` (one line) on anything that is not
    one: invalid JSON, nesting past :data:`DEPTH_MAX`, text that is not
    Unicode (a lone surrogate), a field of the wrong shape. Nothing is
    partly taken."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ConversationFileError(f"not JSON: {exc}", "conv_import_not_json", error=str(exc)) from None
    except RecursionError:
        raise _too_deep() from None
    _check_values(data)
    if isinstance(data, list):
        data = {"messages": data}
    if not isinstance(data, Mapping) or not isinstance(data.get("messages"), list):
        raise ConversationFileError("no message list in the file", "conv_import_no_messages")
    if not all(isinstance(m, Mapping) and "role" in m for m in data["messages"]):
        raise ConversationFileError(
            "the message list holds entries that are not messages", "conv_import_bad_messages"
        )
    try:
        checked = _File.model_validate(data)
    except ValidationError as exc:
        raise _invalid(exc) from None
    messages = history_items(m.model_dump(exclude_unset=True) for m in checked.messages)
    events = checked.events
    if events is None or not all(isinstance(e.get("type"), str) for e in events):
        events = events_from_history(messages)
    title = (checked.title or title_of(messages))[:STORED_TITLE_MAX]
    source_id = data.get("id")
    return Imported(title, messages, [dict(e) for e in events], source_id if _ID.fullmatch(str(source_id)) else None)


_ID = re.compile(r"[0-9A-Za-z_-]{1,64}")
"""An id an import may keep (the app's are 32 hex digits)."""


def _check_values(data: object) -> None:
    """Nesting and text, walked without recursion (the file is hostile)."""
    stack: list[tuple[object, int, tuple[str | int, ...]]] = [(data, 1, ())]
    while stack:
        value, depth, where = stack.pop()
        if depth > DEPTH_MAX:
            raise _too_deep()
        if isinstance(value, str):
            _check_text(value, where)
        elif isinstance(value, dict):
            for key, item in value.items():
                _check_text(key, where)
                stack.append((item, depth + 1, (*where, key)))
        elif isinstance(value, list):
            stack.extend((item, depth + 1, (*where, index)) for index, item in enumerate(value))


def _check_text(text: str, where: tuple[str | int, ...]) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        place = _place(where) or "the file"
        raise ConversationFileError(
            f"{place} holds text that is not valid Unicode (a lone surrogate)", "conv_import_not_unicode",
            where=place,
        ) from None


def _too_deep() -> ConversationFileError:
    return ConversationFileError(
        f"it is nested more than {DEPTH_MAX} levels deep", "conv_import_too_deep", limit=DEPTH_MAX)


_WHY = {
    "missing": "is missing",
    "string_type": "must be text",
    "string_too_short": "must not be empty",
    "list_type": "must be a list",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
    "literal_error": "is not one of the values allowed",
}


def _invalid(exc: ValidationError) -> ConversationFileError:
    """The first problem pydantic found, as one line: where, and what."""
    error = exc.errors()[0]
    kind = str(error.get("type", ""))
    loc = tuple(part for part in error.get("loc", ()) if not _union_branch(part))
    place = _place(loc) or "the file"
    why = _WHY.get(kind, "is not valid")
    return ConversationFileError(f"{place} {why}", f"conv_import_why_{kind}" if kind in _WHY else
                                 "conv_import_why_invalid", where=place)


def _union_branch(part: object) -> bool:
    """A union's branch in pydantic's error path (``content`` may be text,
    parts or null: it names the branch tried), not a place in the file."""
    return isinstance(part, str) and ("[" in part or part in ("str", "list", "none"))


def _place(where: tuple[object, ...]) -> str:
    """``("messages", 3, "tool_calls")`` → ``messages[3].tool_calls``."""
    out = ""
    for part in where:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out
