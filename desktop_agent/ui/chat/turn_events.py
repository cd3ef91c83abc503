"""What the turn logic tells the window, and the fixed values it tells it in.

:class:`~desktop_agent.ui.chat.turn_logic.TurnLogic` decides without Qt; it
reports through a :class:`TurnEvents` (the Qt adapter,
:class:`~desktop_agent.ui.chat.turn_controller.TurnController`, turns each
call into a Signal; a test can record them plainly). The values that come in
a fixed set are enums, so a receiver can match them exhaustively and a typo
is a type error, not a silent miss. They are ``StrEnum``: each still equals
the word it always was (``TurnEnd.COMPLETED == "completed"``). Light: the
window imports it before it shows, so nothing here imports asyncio or core.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from desktop_agent.services import AppliedSettings
    from desktop_agent.ui.chat.turn_state import ButtonPhase


class TurnEnd(StrEnum):
    """How a turn ended: the core's outcome (``TurnOutcome.status``), or
    ``cancelled`` when its task was cancelled (closing, the interrupt's
    fallback)."""

    COMPLETED = "completed"
    USER = "user"
    REJECTED = "rejected"
    APPROVAL_TIMEOUT = "approval_timeout"
    ERROR = "error"
    CANCELLED = "cancelled"


class NoticeLevel(StrEnum):
    """How something said in the conversation looks: ``error`` and
    ``warning`` are Markdown boxes, ``system`` one plain line."""

    ERROR = "error"
    WARNING = "warning"
    SYSTEM = "system"


class WaitKind(StrEnum):
    """What waits for the user: an approval (named by its tool call id) or a
    form (by its form id)."""

    APPROVAL = "approval"
    FORM = "form"


class TurnEvents(Protocol):
    """Where the turn logic reports; every call is made on the event loop's
    thread."""

    def turn_ended(self, status: TurnEnd) -> None:
        """A turn ended; the conversation is saved."""

    def phase_set(self, phase: ButtonPhase) -> None:
        """The Send/Interrupt button's phase changed."""

    def said(self, level: NoticeLevel, text: str) -> None:
        """Something to show in the conversation."""

    def settings_applied(self, applied: AppliedSettings) -> None:
        """Settings were applied; the model in use now."""

    def speaking(self, speaking: bool) -> None:
        """A turn's speech started or stopped playing."""

    def give_back(self, text: str) -> None:
        """A message could not be sent (its MCP mentions did not expand, or
        the user interrupted that): its text goes back to the input."""


__all__ = ["NoticeLevel", "TurnEnd", "TurnEvents", "WaitKind"]
