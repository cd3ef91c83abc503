"""The agent's working list inside one turn: the history items it starts
from, plus the instructions it adds for its requests and never keeps.

The agent grows this list round by round (``core/agent.py``); the skills
(``core/skill_blocks.py``) and one-time hook notes are inserted into it,
and each request is fitted to the model's context from it
(``core/budget.py``). It becomes OpenAI JSON in one place only, at the
moment a request is sent: :func:`desktop_agent.core.wire.history_messages`,
then :func:`~desktop_agent.core.wire.normalize`.

- :class:`Instruction`: a system message of the app's own (the main system
  prompt, the planning and continuation prompts, the skills catalogue, an
  invoked skill's body), sent, never shown, never in history;
- a non-persistent :class:`~desktop_agent.core.hooks.HookNote` lives for
  one request (:func:`drop_once`); the planning round's ``[continue]`` is a
  :class:`~desktop_agent.core.history_items.UserMessage`.
"""

from __future__ import annotations

from collections.abc import MutableSequence
from dataclasses import dataclass, replace
from typing import Literal

from desktop_agent.core.history_items import (
    AssistantMessage,
    HistoryItem,
    ToolAnswer,
    UnreadMessage,
    UserMessage,
)
from desktop_agent.core.hooks import ONCE_KEY, HookNote
from desktop_agent.core.stream_parser import strip_intent_tags

InstructionKind = Literal["system", "planning", "continuation", "skills", "skill"]


@dataclass(frozen=True, slots=True, eq=False)
class Instruction:
    """A system message the agent adds to its requests. Compared by
    identity: a temporary prompt is removed as this very item, never an
    equal one."""

    kind: InstructionKind
    """Which: the main system prompt, the planning or continuation prompt,
    the skills catalogue, or an invoked skill's body."""
    content: str


WorkingItem = HistoryItem | Instruction


def role_of(item: WorkingItem) -> str:
    """The role its message has on the wire ("" for an unread one without one)."""
    match item:
        case Instruction():
            return "system"
        case UserMessage():
            return "user"
        case AssistantMessage():
            return "assistant"
        case ToolAnswer():
            return "tool"
        case HookNote():
            return item.role
        case UnreadMessage():
            return item.role


def text_of(item: WorkingItem) -> str | None:
    """Its text content (None: an assistant message with only calls, or an
    unread one whose content is not text)."""
    if isinstance(item, UnreadMessage):
        content = item.message.get("content")
        return content if isinstance(content, str) else None
    return item.content


def is_hook_item(item: WorkingItem) -> bool:
    """A hook note of either lifetime (never the user's words)."""
    return isinstance(item, HookNote) or (isinstance(item, UnreadMessage) and item.hook)


def drop_once(items: MutableSequence[WorkingItem]) -> None:
    """Remove every non-persistent hook note: its request was sent."""
    for index in range(len(items) - 1, -1, -1):
        item = items[index]
        if (isinstance(item, HookNote) and not item.persistent) or (
            isinstance(item, UnreadMessage) and ONCE_KEY in item.message
        ):
            del items[index]


def answered_ids(items: MutableSequence[WorkingItem]) -> set[str]:
    """The call ids the list's tool answers answer."""
    ids = {item.call_id for item in items if isinstance(item, ToolAnswer) and item.call_id}
    for item in items:
        if isinstance(item, UnreadMessage) and item.role == "tool" and item.message.get("tool_call_id"):
            ids.add(str(item.message["tool_call_id"]))
    return ids


def without_intent_tags(item: WorkingItem) -> WorkingItem:
    """An assistant message's text without intent tags, for the requests
    after planning (the model must not read them back and learn to write
    them outside planning); history keeps its own as they are."""
    if isinstance(item, AssistantMessage) and item.content is not None:
        return replace(item, content=strip_intent_tags(item.content))
    if isinstance(item, UnreadMessage) and item.role == "assistant":
        content = item.message.get("content")
        if isinstance(content, str):
            return UnreadMessage({**item.message, "content": strip_intent_tags(content)})
    return item


__all__ = ["Instruction", "InstructionKind", "WorkingItem", "answered_ids", "drop_once", "is_hook_item", "role_of",
           "text_of", "without_intent_tags"]
