"""Versions of a conversation's turns: Regenerate and Edit keep what they
replace instead of discarding it, and the window switches between them
(‹ 1/2 ›).

A version is a *tail*: a turn and every turn after it, as they were (the
history from its user message on, and the display log from its
:class:`~desktop_agent.core.transcript.UserText` on). Regenerating the last
reply keeps that one exchange; editing an earlier message keeps the whole
rest of the conversation that followed it, so nothing the user saw is lost.
The conversation itself always holds the version on screen: that is what
the next turn sends, and what the store keeps as its history; the others
wait here.

Versions of a later turn belong to the tail they were made in: switching
turn 2 away from a tail carries the versions kept at its turn 4 with it,
and switching back brings them again (:attr:`Tail.later`).

Pure data and moves over :class:`~desktop_agent.core.conversation.Conversation`'s
public methods (``user_text_of``, ``cut_turns``, ``put_turns``); the JSON form
on disk is ``storage/conversation_versions.py``'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from desktop_agent.core.history_items import HistoryItem
from desktop_agent.core.transcript import DisplayItem


@dataclass
class Tail:
    """One version of a turn on: the turns as they were, and the versions
    kept inside them."""

    history: list[HistoryItem]
    events: list[DisplayItem]
    later: dict[int, VersionSet] = field(default_factory=dict)
    """Versions of turns after the first, made while this tail was shown."""


@dataclass
class VersionSet:
    """The versions of one turn, in the order they were made; the one at
    :attr:`current` is ``None``: it is the conversation's own, on screen."""

    tails: list[Tail | None]
    current: int

    @property
    def count(self) -> int:
        return len(self.tails)


@dataclass
class Versions:
    """A conversation's kept versions, by turn (0-based: the n-th user message)."""

    sets: dict[int, VersionSet] = field(default_factory=dict)
    changed: bool = False
    """Changed since the store last saved them."""

    def at(self, turn: int) -> tuple[int, int] | None:
        """(which, of how many) for turn ``turn`` (1-based, as ‹ 1/2 ›
        says it), or None when it has one version only."""
        found = self.sets.get(turn)
        return None if found is None else (found.current + 1, found.count)


class Conversation(Protocol):
    """What the moves need of a conversation (``core/conversation.py``'s)."""

    versions: Versions

    @property
    def busy(self) -> bool: ...

    def user_text_of(self, turn: int) -> str | None: ...

    def cut_turns(self, turn: int) -> tuple[list[HistoryItem], list[DisplayItem]] | None: ...

    def put_turns(self, history: list[HistoryItem], events: list[DisplayItem]) -> None: ...


def keep(conversation: Conversation, turn: int) -> str | None:
    """Take turn ``turn`` and every later one off the conversation, kept as
    a version of that turn; the user's words of turn ``turn`` (Regenerate
    asks them again, Edit replaces them), or None (nothing changed) while
    a turn runs or when there is no such turn. The turn run next becomes
    the newest version, the one shown."""
    text = conversation.user_text_of(turn)
    if text is None:
        return None
    cut = conversation.cut_turns(turn)
    if cut is None:
        return None
    history, events = cut
    versions = conversation.versions
    kept = Tail(history, events, _later_than(versions, turn))
    found = versions.sets.get(turn)
    if found is None:
        versions.sets[turn] = VersionSet([kept, None], 1)
    else:
        found.tails[found.current] = kept
        found.tails.append(None)
        found.current = found.count - 1
    versions.changed = True
    return text


def switch(conversation: Conversation, turn: int, index: int) -> bool:
    """Show version ``index`` (0-based) of turn ``turn``: the tail on screen
    is kept in its place and that one becomes the conversation's. False
    (nothing changed) while a turn runs, or for a version that is not there."""
    versions = conversation.versions
    found = versions.sets.get(turn)
    if found is None or not 0 <= index < found.count or index == found.current or conversation.busy:
        return False
    incoming = found.tails[index]
    cut = conversation.cut_turns(turn)
    if incoming is None or cut is None:
        return False
    history, events = cut
    found.tails[found.current] = Tail(history, events, _later_than(versions, turn))
    found.tails[index] = None
    found.current = index
    conversation.put_turns(incoming.history, incoming.events)
    versions.sets.update(incoming.later)
    versions.changed = True
    return True


def _later_than(versions: Versions, turn: int) -> dict[int, VersionSet]:
    """The sets of turns after ``turn``, taken out (they go with its tail)."""
    later = {t: s for t, s in versions.sets.items() if t > turn}
    for t in later:
        del versions.sets[t]
    return later


__all__ = ["Tail", "VersionSet", "Versions", "keep", "switch"]
