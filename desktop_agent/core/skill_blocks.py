"""Where skills enter a turn's messages (contracts §9). The core knows only this
port; the skills themselves (files, YAML, the catalogue's wording) live in
``skills_engine/``.

- The catalogue of enabled skills is one system
  :class:`~desktop_agent.core.working_items.Instruction` at ``working[1]``,
  right after the main system prompt (at 0 when there is none). No enabled
  skill: no block.
- A user message that starts with ``/<skill-name>`` gets that skill's body
  as a system instruction right after it, for every request of the turn. The
  user's text is left as typed; the block is not kept in history (the wire
  normalizer of §2a folds it into the last user message or the leading
  system message).
"""

from __future__ import annotations

from typing import Protocol

from desktop_agent.core.history_items import UnreadMessage, UserMessage
from desktop_agent.core.working_items import Instruction, WorkingItem, role_of, text_of


class SkillPrompts(Protocol):
    def catalogue(self) -> str | None:
        """The catalogue block's text; None when no skill is enabled."""
        ...

    def invoked(self, user_text: str) -> str | None:
        """The instruction block for a message that starts with
        ``/<enabled-skill-name>``; None for any other text."""
        ...


def insert_skill_blocks(working: list[WorkingItem], skills: SkillPrompts) -> None:
    """Add the catalogue and an explicitly invoked skill to ``working`` (the
    turn's items: the main system prompt, if any, then the history, then
    the user's message and the turn's first hook notes)."""
    user_index = next(
        (i for i in range(len(working) - 1, -1, -1) if _users(working[i])),  # hook notes are not the user's
        None,
    )
    if user_index is not None:
        item = working[user_index]
        content = item.message.get("content") if isinstance(item, UnreadMessage) else text_of(item)
        block = skills.invoked(content) if isinstance(content, str) else None
        if block is not None:
            working.insert(user_index + 1, Instruction("skill", block))
    catalogue = skills.catalogue()
    if catalogue is not None:
        at = 1 if working and role_of(working[0]) == "system" else 0
        working.insert(at, Instruction("skills", catalogue))


def _users(item: WorkingItem) -> bool:
    """A message of the user's (an unread one by its role, unless it is a hook's)."""
    return isinstance(item, UserMessage) or (
        isinstance(item, UnreadMessage) and item.role == "user" and "_hook" not in item.message
    )
