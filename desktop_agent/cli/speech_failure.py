"""Say once on the terminal that speech failed, instead of silently
producing no audio.

With ``--tts auto`` a failed online voice falls back to espeak-ng and the
engine's own notice says so; with ``--tts edge`` (or ``espeak``) there is no
fallback, and each reply's ``audio`` event carries the error while the
terminal stayed silent: the user heard nothing and was not told why. The
first failed segment of the run is reported in one line; the rest are in
the events file.
"""

from __future__ import annotations

from collections.abc import Callable

from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.messages import AudioMessage, BusItem

_MAX_CHARS = 200


class SpeechFailureNotice:
    """Listens on each turn's bus; ``say`` gets one line, the first time."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self._say = say
        self.said = False

    def attach(self, bus: SessionMessageBus) -> None:
        bus.add_listener(self._on_item)

    def _on_item(self, item: BusItem) -> None:
        message = item.message
        if self.said or not isinstance(message, AudioMessage) or not message.error:
            return
        self.said = True
        reason = " ".join(message.error.split())
        if len(reason) > _MAX_CHARS:
            reason = reason[: _MAX_CHARS - 1] + "…"
        engine = f" ({message.engine})" if message.engine else ""
        self._say(f"notice: speech failed{engine}, replies are shown, not spoken: {reason}")
