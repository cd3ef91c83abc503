"""A tool card's phase, in a module of its own: the window's
``card_changed`` Signal carries it, and the window is built before the core
is imported (start-up), which the card reducer (``state.py``) needs."""

from __future__ import annotations

from enum import StrEnum


class CardPhase(StrEnum):
    """Where a card is in the contracts §7 states (``state.py`` draws them).
    Each equals its old word, which the style sheet's
    ``QFrame#toolCard[phase="…"]`` selectors still match."""

    PREPARING = "preparing"
    APPROVAL = "approval"
    EXECUTING = "executing"
    DONE = "done"
    REJECTED = "rejected"
    INVALIDATED = "invalidated"
