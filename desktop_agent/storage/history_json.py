"""The history's JSON form on disk: one OpenAI-shaped message per typed
item (``core/history_items.py``), the form the database's ``messages`` rows,
the export file and ``--history-json`` hold.

The layout is the one the app always wrote, key for key: a user message's
``content`` is what the model read, ``_typed`` the words typed when they
differ, ``_images`` its images as ``image_url`` parts (data URLs); an
assistant message carries ``tool_calls`` only when it called tools; a hook
prompt is its role and text marked ``_hook`` (persistent) or ``_hook_once``.
So a database or file written before the history was typed reads back the
same, and what is written now reads the same in an older version.

Reading is exact or not at all: a message becomes a typed item only when
that item writes it back equal (:func:`history_item`); anything else (an
imported system message, another host's extra keys, a damaged row) is kept
whole as an :class:`~desktop_agent.core.history_items.UnreadMessage`, and
written back as it came.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Mapping
from typing import assert_never

from desktop_agent.core.history_items import (
    AssistantMessage,
    HistoryItem,
    ToolAnswer,
    ToolCall,
    UnreadMessage,
    UserMessage,
)
from desktop_agent.core.hooks import HOOK_KEY, ONCE_KEY, HookNote
from desktop_agent.core.json_types import JSONMapping, JSONObject, JSONReadable, JSONValue, as_list, to_object
from desktop_agent.core.messages import ImageContent
from desktop_agent.core.wire import IMAGES_KEY, TYPED_KEY
from desktop_agent.storage.lazy_sequence import LazySequence

__all__ = ["StoredHistory", "history_item", "history_items", "history_json", "item_json"]

_DATA_URL = re.compile(r"data:([^;,]+);base64,(.*)", re.DOTALL)


def item_json(item: HistoryItem) -> JSONObject:
    """One item as its message on disk (a new dict)."""
    match item:
        case UserMessage():
            message: JSONObject = {"role": "user", "content": item.content}
            if item.typed is not None:
                message[TYPED_KEY] = item.typed
            if item.images:
                message[IMAGES_KEY] = [_image_part(image) for image in item.images]
            return message
        case AssistantMessage():
            message = {"role": "assistant", "content": item.content}
            if item.tool_calls:
                message["tool_calls"] = [_call_json(call) for call in item.tool_calls]
            return message
        case ToolAnswer():
            return {"role": "tool", "tool_call_id": item.call_id, "content": item.content}
        case HookNote():
            return {"role": item.role, "content": item.content, HOOK_KEY if item.persistent else ONCE_KEY: item.names}
        case UnreadMessage():
            return to_object(item.message)
        case _:
            assert_never(item)


def history_json(items: Iterable[HistoryItem]) -> list[JSONObject]:
    """The history as its list of messages on disk."""
    return [item_json(item) for item in items]


def history_item(message: JSONMapping) -> HistoryItem:
    """The typed item a stored message stands for; an
    :class:`UnreadMessage` unless that item writes it back equal."""
    plain = _plain(message)
    if plain is not None:
        return plain
    owned = to_object(message)
    item = _read(owned)
    return item if item is not None and item_json(item) == owned else UnreadMessage(owned)


def history_items(messages: Iterable[JSONReadable]) -> list[HistoryItem]:
    """Stored messages as typed items; an entry that is not a JSON object
    (never written by this app) is left out."""
    return [history_item(m) for m in messages if isinstance(m, Mapping)]


class StoredHistory(LazySequence[HistoryItem]):
    """A saved history as its stored messages, each made a typed item
    (:func:`history_item`) the first time it is read, then kept: opening a
    2,000-message conversation made every item (~8 ms) where the window
    reads only the last few (is there a last message to regenerate?); the
    conversation makes the rest when it first needs them all
    (``Conversation.history``). Reads as the list :func:`history_items`
    makes of the same messages."""

    def __init__(self, messages: Iterable[JSONReadable]) -> None:
        self._messages = [m for m in messages if isinstance(m, Mapping)]
        self._items: list[HistoryItem | None] = [None] * len(self._messages)
        self.made = 0
        """How many items were made so far."""

    def __len__(self) -> int:
        return len(self._messages)

    def _item(self, index: int) -> HistoryItem:
        item = self._items[index]
        if item is None:
            item = self._items[index] = history_item(self._messages[index])
            self.made += 1
        return item

    def __repr__(self) -> str:
        return f"StoredHistory({len(self)} messages, {self.made} made)"


def _plain(message: JSONMapping) -> HistoryItem | None:
    """Most of a long history, read at a glance: a user message or reply
    that is its role and text alone, a tool answer that is its role, call
    id and text. Each writes back equal by construction (:func:`item_json`),
    so opening a 2,000-message conversation skips the copy and the
    write-back check for them (two thirds of its reading time)."""
    if type(message) is not dict:
        return None
    role, content = message.get("role"), message.get("content")
    if type(content) is not str:
        return None
    size = len(message)
    if size == 2 and role == "user":
        return UserMessage(content)
    if size == 2 and role == "assistant":
        return AssistantMessage(content)
    call_id = message.get("tool_call_id")
    if size == 3 and role == "tool" and type(call_id) is str:
        return ToolAnswer(call_id, content)
    return None


def _read(message: JSONObject) -> HistoryItem | None:
    role, content = message.get("role"), message.get("content")
    hook = message.get(HOOK_KEY, message.get(ONCE_KEY))
    if hook is not None:
        if role in ("system", "user") and isinstance(content, str) and isinstance(hook, str):
            return HookNote("system" if role == "system" else "user", content, hook, HOOK_KEY in message)
        return None
    if role == "user" and isinstance(content, str):
        typed = message.get(TYPED_KEY)
        images = _images(message.get(IMAGES_KEY))
        if images is None or (typed is not None and not isinstance(typed, str)):
            return None
        return UserMessage(content, typed, images)
    if role == "assistant" and (content is None or isinstance(content, str)):
        calls = _calls(message.get("tool_calls"))
        return None if calls is None else AssistantMessage(content, calls)
    if role == "tool" and isinstance(content, str):
        call_id = message.get("tool_call_id")
        return ToolAnswer(call_id, content) if isinstance(call_id, str) else None
    return None


def _call_json(call: ToolCall) -> JSONObject:
    return {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}


def _calls(raw: JSONValue) -> tuple[ToolCall, ...] | None:
    calls: list[ToolCall] = []
    for entry in as_list(raw):
        function = entry.get("function") if isinstance(entry, Mapping) else None
        if not isinstance(entry, Mapping) or not isinstance(function, Mapping):
            return None
        call_id, name, arguments = entry.get("id"), function.get("name"), function.get("arguments")
        if not (isinstance(call_id, str) and isinstance(name, str) and isinstance(arguments, str)):
            return None
        calls.append(ToolCall(call_id, name, arguments))
    return tuple(calls)


def _image_part(image: ImageContent) -> JSONValue:
    url = f"data:{image.mime};base64,{base64.b64encode(image.data).decode()}"
    return {"type": "image_url", "image_url": {"url": url}}


def _images(raw: JSONValue) -> tuple[ImageContent, ...] | None:
    """The images of ``_images`` parts; None when one is not a data URL."""
    images: list[ImageContent] = []
    for part in as_list(raw):
        inner = part.get("image_url") if isinstance(part, Mapping) else None
        url = inner.get("url") if isinstance(inner, Mapping) else None
        found = _DATA_URL.fullmatch(url) if isinstance(url, str) else None
        if found is None:
            return None
        try:
            images.append(ImageContent(found.group(1), base64.b64decode(found.group(2), validate=True)))
        except (binascii.Error, ValueError):
            return None
    return tuple(images)

