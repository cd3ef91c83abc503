"""Saved conversations as the composition root hands them to the window:
the library the sidebar lists and searches, and how one is opened. The
window without this feature has no sidebar. Type-only imports: the window
imports this before it shows."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop_agent.conversation_library import ConversationLibrary
    from desktop_agent.core.conversation import Conversation


def _none_opened(_old: Conversation, _conversation_id: str) -> Conversation | None:
    return None


@dataclass(frozen=True)
class ConversationsFeature:
    library: ConversationLibrary
    """The saved conversations (the sidebar's list and search)."""
    open: Callable[[Conversation, str], Conversation | None] = _none_opened
    """The saved conversation with this id, after the given one (already
    saved), whose resources may then be released; None when it is gone."""


__all__ = ["ConversationsFeature"]
