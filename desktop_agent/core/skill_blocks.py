"""Where skills enter a turn's messages (contracts §9). The core knows only this
port; the skills themselves (files, YAML, the catalogue's wording) live in
``skills_engine/``.

- The catalogue of enabled skills is one system message at ``messages[1]``,
  right after the main system prompt (at 0 when there is none). No enabled
  skill: no block.
- A user message that starts with ``/<skill-name>`` gets that skill's body
  as a system message right after it, for every request of the turn. The
  user's text is left as typed; the block is not kept in history (the wire
  normalizer of §2a folds it into the last user message or the leading
  system message).
"""

from __future__ import annotations

from typing import Protocol

from desktop_agent.core.json_types import JSONMapping


class SkillPrompts(Protocol):
    def catalogue(self) -> str | None:
        """The catalogue block's text; None when no skill is enabled."""
        ...

    def invoked(self, user_text: str) -> str | None:
        """The instruction block for a message that starts with
        ``/<enabled-skill-name>``; None for any other text."""
        ...


def insert_skill_blocks(working: list[JSONMapping], skills: SkillPrompts) -> None:
    """Add the catalogue and an explicitly invoked skill to ``working`` (the
    turn's messages: the main system prompt, if any, then the history, then
    the user's message last)."""
    user_index = next(
        (i for i in range(len(working) - 1, -1, -1)
         if working[i].get("role") == "user" and "_hook" not in working[i]),  # hook messages are not the user's
        None,
    )
    if user_index is not None:
        content = working[user_index].get("content")
        block = skills.invoked(content) if isinstance(content, str) else None
        if block is not None:
            working.insert(user_index + 1, {"role": "system", "content": block})
    catalogue = skills.catalogue()
    if catalogue is not None:
        at = 1 if working and working[0].get("role") == "system" else 0
        working.insert(at, {"role": "system", "content": catalogue})
