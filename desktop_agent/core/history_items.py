"""The conversation's history as typed items: what the model has read and
will read again, one item per message.

``Conversation.history`` is a list of these, derived from each turn's
transcript (``core/history.py``). Nothing in memory holds the history as
OpenAI JSON: its two JSON forms are made at the edges, each in one place —
the messages sent to the LLM by :func:`desktop_agent.core.wire.history_messages`,
the rows written to and read from disk (and the export file) by
``storage/history_json.py``.

- :class:`UserMessage`: the user's message as the model read it (its MCP
  mentions expanded), the words typed when those differ, and its images;
- :class:`AssistantMessage`: a reply's text and the tool calls it made;
- :class:`ToolAnswer`: the text one call's ``tool`` message gives back;
- :class:`~desktop_agent.core.hooks.HookNote`: a persistent hook prompt,
  sent and never shown;
- :class:`UnreadMessage`: a stored message this version does not model (an
  imported system message, another host's extra keys), kept as it was so it
  is sent and saved back unchanged, the way the display log keeps an
  :class:`~desktop_agent.core.transcript.UnreadEvent`.

Readers ``match`` on :data:`HistoryItem` ending in ``assert_never``.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop_agent.core.hooks import HOOK_KEY, ONCE_KEY, HookNote
from desktop_agent.core.json_types import JSONObject
from desktop_agent.core.messages import ImageContent


@dataclass(frozen=True, slots=True)
class UserMessage:
    """The user's message."""

    content: str
    """What the model reads (the typed words, or them with their MCP mentions expanded)."""
    typed: str | None = None
    """The words the user typed when the model read something else; None:
    :attr:`content` itself (Edit and Regenerate give back :attr:`words`)."""
    images: tuple[ImageContent, ...] = ()
    """Images sent with it (an MCP resource's or prompt's)."""

    @property
    def words(self) -> str:
        """What the user typed."""
        return self.typed if self.typed is not None else self.content


def user_item(content: str, images: tuple[ImageContent, ...] = (), *, typed: str | None = None) -> UserMessage:
    """A :class:`UserMessage`; ``typed`` is kept only where it differs from
    ``content`` (so each message has one typed form, as its JSON has one)."""
    return UserMessage(content, typed if typed is not None and typed != content else None, images)


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One call of an assistant message."""

    id: str
    name: str
    arguments: str
    """The arguments as JSON text, as the model sent them (the wire repairs
    text that is not a JSON object, contracts §2a)."""


@dataclass(frozen=True, slots=True)
class AssistantMessage:
    """A reply: its text (None: it only called tools) and its calls."""

    content: str | None
    tool_calls: tuple[ToolCall, ...] = ()


@dataclass(frozen=True, slots=True)
class ToolAnswer:
    """What the model reads back for one call (its result, a failure marked
    ``Error:``, or why it was rejected)."""

    call_id: str
    content: str


@dataclass(frozen=True, slots=True)
class UnreadMessage:
    """A stored message none of the other items stands for exactly, kept
    whole: sent as it is (the wire normalizer copes with any message) and
    written back unchanged."""

    message: JSONObject

    @property
    def role(self) -> str:
        """Its ``role`` ("" when it has none that is text)."""
        role = self.message.get("role")
        return role if isinstance(role, str) else ""

    @property
    def text(self) -> str:
        """Its words: a text content, or the text parts of a list of parts."""
        content = self.message.get("content")
        if isinstance(content, str):
            return content
        parts = content if isinstance(content, list) else []
        return "".join(str(p.get("text", "")) for p in parts if isinstance(p, dict) and p.get("type") == "text")

    @property
    def hook(self) -> bool:
        """It carries a hook's marker (never the user's words)."""
        return HOOK_KEY in self.message or ONCE_KEY in self.message


HistoryItem = UserMessage | AssistantMessage | ToolAnswer | HookNote | UnreadMessage


def users_words(item: HistoryItem) -> str | None:
    """The words of a message the user typed; None for any other (hook
    notes are the model's). An unread one counts by its role."""
    if isinstance(item, UserMessage):
        return item.words
    if isinstance(item, UnreadMessage) and item.role == "user" and not item.hook:
        return item.text
    return None


__all__ = [
    "AssistantMessage", "HistoryItem", "HookNote", "ToolAnswer", "ToolCall", "UnreadMessage", "UserMessage",
    "user_item", "users_words",
]
