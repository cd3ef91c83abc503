"""Prompt hooks at the checkpoints of a turn (contracts §9).

Pure: the hooks arrive already loaded (``hooks_engine`` reads the files at
start-up, off the event loop); this module only says which messages a
checkpoint adds and how long each one lives.

- The hooks of one checkpoint are merged per ``(role, persistent)`` into one
  message, their prompts joined by a blank line, in file order (the groups
  in the order their first hook appears).
- Each merged group is a :class:`HookNote`. A persistent one stays in the
  agent's working list and in the canonical history, and no chat view shows
  it; one that is not lives for exactly one request —
  :func:`desktop_agent.core.working_items.drop_once` removes it as soon as
  the request that carried it was sent — and never enters history.
- As a message (sent, or saved) a note is marked ``"_hook": "<names>"``
  (persistent) or ``"_hook_once": "<names>"``: on the way to the LLM by
  :func:`desktop_agent.core.wire.hook_message`, on disk by
  ``storage/history_json.py``.

The wire normalizer (``core/wire.py``) sends only the wire keys, so neither
marker reaches a server.

Who inserts what: the conversation (``core/conversation.py``) owns the
checkpoints at the edges of a turn (``turn_start``, ``after_rejection``,
``turn_end``); the agent (``core/agent.py``) the ones inside it
(``before_tool_round``, ``after_tool_result``), and hands the persistent
notes to history on the ``round_end`` after which they were inserted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal, get_args

Checkpoint = Literal["turn_start", "before_tool_round", "after_tool_result", "after_rejection", "turn_end"]
CHECKPOINTS: tuple[str, ...] = get_args(Checkpoint)
HookRole = Literal["system", "user"]
HOOK_ROLES: tuple[str, ...] = get_args(HookRole)

HOOK_KEY = "_hook"
"""Marks a persistent hook message (kept in history, never shown)."""
ONCE_KEY = "_hook_once"
"""Marks a non-persistent hook message (sent with one request, then removed)."""


@dataclass(frozen=True, slots=True)
class Hook:
    """One enabled hook, its prompt already read."""

    name: str
    checkpoint: Checkpoint
    role: HookRole
    persistent: bool
    prompt: str


@dataclass(frozen=True, slots=True)
class HookNote:
    """The hooks of one checkpoint with the same role and lifetime, merged
    into one message: sent to the model, never shown. A persistent one stays
    in history; one that is not goes with one request."""

    role: HookRole
    content: str
    names: str
    """The hooks' names, comma-separated, in file order."""
    persistent: bool


def hook_notes(hooks: Iterable[Hook], checkpoint: Checkpoint) -> list[HookNote]:
    """What ``checkpoint`` adds: one note per ``(role, persistent)``, in
    file order; empty when no hook is at this checkpoint."""
    groups: dict[tuple[HookRole, bool], list[Hook]] = {}
    for hook in hooks:
        if hook.checkpoint == checkpoint:
            groups.setdefault((hook.role, hook.persistent), []).append(hook)
    return [
        HookNote(role, "\n\n".join(h.prompt.strip() for h in members), ", ".join(h.name for h in members), persistent)
        for (role, persistent), members in groups.items()
    ]


def persistent(notes: Iterable[HookNote]) -> tuple[HookNote, ...]:
    """The notes that stay in history."""
    return tuple(note for note in notes if note.persistent)


def kept_hook(message: Mapping[str, object]) -> bool:
    """A persistent hook message (marked with hook names): what a saved
    history holds of hooks."""
    return bool(message.get(HOOK_KEY))


def is_hook(message: Mapping[str, object]) -> bool:
    """A hook message of either lifetime: never shown in a chat view."""
    return HOOK_KEY in message or ONCE_KEY in message
