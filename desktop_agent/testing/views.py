"""PlaybackView doubles: :class:`NullView` ignores everything (subclass it
and override what a test looks at)."""

from __future__ import annotations

from desktop_agent.core.messages import (
    ErrorMessage,
    InterruptedMessage,
    RoundEndMessage,
    TextMessage,
    ToolCallMessage,
    TurnEndMessage,
    WarningMessage,
)
from desktop_agent.core.playback import ToolEvent
from desktop_agent.core.risk import AutoDecider


class NullView:
    """A PlaybackView that shows nothing and answers nothing."""

    def show_text(self, message: TextMessage) -> None:
        pass

    def round_ended(self, message: RoundEndMessage) -> None:
        pass

    def tool_event(self, message: ToolEvent) -> None:
        pass

    def approval_needed(self, message: ToolCallMessage) -> None:
        pass

    def auto_approved(self, message: ToolCallMessage, by: AutoDecider = "always_allow") -> None:
        pass

    def notice(self, message: WarningMessage | ErrorMessage) -> None:
        pass

    def interrupted(self, message: InterruptedMessage) -> None:
        pass

    def turn_ended(self, message: TurnEndMessage) -> None:
        pass
