"""Per-turn decisions of the window, without Qt: the system messages that
say why a turn stopped, and the interrupt button's two phases (contracts §7).

System messages, one per turn:

- the user clicked Interrupt → "Conversation interrupted";
- the user clicked Reject → "Conversation interrupted" too (a rejection
  ends the turn just as an interrupt does), shown at the click; the
  ``interrupted`` that follows shows nothing more;
- the approval timed out (not the user's doing) → "Tool approval timed out…".

An ``interrupted`` with reason ``error`` adds nothing: the error notice
already said what happened.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from desktop_agent.texts import INTERRUPTED_TEXT


class ButtonPhase(StrEnum):
    """Send (idle) → Interrupt (turn running) → Interrupting… (disabled, until
    ``interrupted`` arrives or the fallback fires) → Send."""

    SEND = "send"
    INTERRUPT = "interrupt"
    INTERRUPTING = "interrupting"


@dataclass
class TurnTracker:
    """What the user did during the running turn."""

    user_interrupted: bool = False
    user_rejected: bool = False
    interrupted_seen: bool = False

    def interrupt_clicked(self) -> None:
        self.user_interrupted = True

    def reject_clicked(self) -> str | None:
        """The system message to show now (once per turn)."""
        if self.user_rejected or self.user_interrupted:
            return None
        self.user_rejected = True
        return "sys_interrupted"

    def on_interrupted(self, reason: str) -> str | None:
        """The system message for an ``interrupted`` message, if any."""
        if self.interrupted_seen:
            return None
        self.interrupted_seen = True
        if self.user_rejected:
            return None
        if self.user_interrupted:
            reason = "user"
        return INTERRUPTED_TEXT.get(reason)
