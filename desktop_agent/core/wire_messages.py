"""The messages a request is made of, built from the agent's typed working
list (``core/working_items.py``) at the moment a request is sent: the one
place each kind of message is written as JSON on the way to the LLM (on
disk, it is ``storage/history_json.py``'s). ``core/wire.py``'s
``normalize`` then makes them the wire form a strict server accepts.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable
from typing import Literal, assert_never

from desktop_agent.core.history_items import (
    AssistantMessage,
    ToolAnswer,
    UnreadMessage,
    UserMessage,
)
from desktop_agent.core.hooks import HOOK_KEY, ONCE_KEY, HookNote
from desktop_agent.core.json_types import JSONMapping, JSONObject, JSONValue
from desktop_agent.core.working_items import Instruction, WorkingItem

TOOL_ERROR_PREFIX = "Error: "
"""Marks a failed call's result (``is_error``) in its tool message, so the
model can tell a failure from a result (contracts §8)."""


TextRole = Literal["system", "user", "assistant"]

IMAGES_KEY = "_images"
"""A history user message's images, as OpenAI ``image_url`` parts: kept
beside its text so everything that reads a message's ``content`` reads
text; :func:`normalize` makes them the content's parts (the one place a
message's content is sent as a list)."""


def text_message(role: TextRole, content: str | None) -> JSONObject:
    """A system, user or assistant message of text: the one place it is built."""
    return {"role": role, "content": content}


TYPED_KEY = "_typed"
"""A history user message whose text was expanded (its MCP mentions,
contracts §10): what the user typed, for Edit and Regenerate. Never sent."""


def user_message(text: str, images: Iterable[tuple[str, bytes]] = (), *, typed: str | None = None) -> JSONObject:
    """The user's message: its text, and its images ((MIME type, bytes)) as
    ``image_url`` parts under :data:`IMAGES_KEY` (none: a plain text message);
    ``typed``: the words it was expanded from (:data:`TYPED_KEY`)."""
    message = text_message("user", text)
    if typed is not None and typed != text:
        message[TYPED_KEY] = typed
    parts: list[JSONValue] = [
        {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{base64.b64encode(data).decode()}"}}
        for mime, data in images
    ]
    if parts:
        message[IMAGES_KEY] = parts
    return message


def assistant_tool_calls(
    content: str | None, calls: Iterable[tuple[str | None, str, str]]
) -> JSONObject:
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


def tool_answer(text: str, *, is_error: bool | None) -> str:
    """A result's text as its tool message carries it: failures marked with
    :data:`TOOL_ERROR_PREFIX` (once: texts that already say "Error:" keep
    their own wording)."""
    if not is_error or text.startswith(TOOL_ERROR_PREFIX.strip()):
        return text
    return f"{TOOL_ERROR_PREFIX}{text or 'the tool failed without a message'}"


def tool_message(call_id: str, text: str, *, is_error: bool | None = False) -> JSONObject:
    """The ``tool`` message that answers one call: the one place it is built."""
    return {"role": "tool", "tool_call_id": call_id, "content": tool_answer(text, is_error=is_error)}


def hook_message(note: HookNote) -> JSONObject:
    """A hook note as a message: the one place its marker key
    (:data:`~desktop_agent.core.hooks.HOOK_KEY` or ``ONCE_KEY``) is written
    on the way to the LLM (:func:`normalize` strips it)."""
    return {"role": note.role, "content": note.content, HOOK_KEY if note.persistent else ONCE_KEY: note.names}


def history_message(item: WorkingItem) -> JSONMapping:
    """One history or working item as the message it is on the way to the
    LLM (what :func:`normalize` then makes the wire form of)."""
    match item:
        case Instruction():
            return text_message("system", item.content)
        case UserMessage():
            return user_message(item.content, ((i.mime, i.data) for i in item.images), typed=item.typed)
        case AssistantMessage() if item.tool_calls:
            return assistant_tool_calls(item.content, ((c.id, c.name, c.arguments) for c in item.tool_calls))
        case AssistantMessage():
            return text_message("assistant", item.content)
        case ToolAnswer():
            return tool_message(item.call_id, item.content)
        case HookNote():
            return hook_message(item)
        case UnreadMessage():
            return item.message
        case _:
            assert_never(item)


def history_messages(items: Iterable[WorkingItem]) -> list[JSONMapping]:
    """The items as messages (:func:`history_message`): what a request
    sends, made when it is sent."""
    return [history_message(item) for item in items]
