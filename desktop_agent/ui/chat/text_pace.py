"""Streamed reply text drawn at a frame's pace, not a token's.

A reply streams a token every few milliseconds; drawing each one parses the
bubble's unfinished Markdown, lays its labels out again at the column's
width and repaints what is in view (a few ms a time beside a long reply),
so a loaded machine, which preempts each of those bursts, stalled the
event loop on most tokens (``benchmarks/bench_ui.py``'s loaded run). A
:class:`TextPace` draws the first text at once and holds what arrives in
the next :data:`PACE_MS`, drawing it as one piece when they are over: a
few draws a second at most, each a little later than its token, never
more than one interval.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer
from shiboken6 import isValid

from desktop_agent.ui.chat.bubble import MessageBubble

PACE_MS = 33
"""At most one draw of a streaming bubble per interval (about 30 a second)."""


class TextPace:
    """Holds text for one bubble at a time; :meth:`flush` draws what it holds."""

    def __init__(self, parent: QObject, interval_ms: int = PACE_MS) -> None:
        self._timer = QTimer(parent)
        self._timer.setSingleShot(True)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._tick)
        self._bubble: MessageBubble | None = None
        self._held: list[tuple[str, bool]] = []

    def append(self, bubble: MessageBubble, text: str, new_paragraph: bool) -> None:
        """``text`` for ``bubble``: drawn now, or held while a draw is recent."""
        if bubble is self._bubble and self._timer.isActive():
            self._held.append((text, new_paragraph))
            return
        self.flush()
        bubble.append(text, new_paragraph=new_paragraph)
        self._bubble = bubble
        self._timer.start()

    def flush(self) -> None:
        """Draw what is held now (the bubble ends, or something else is drawn)."""
        self._timer.stop()
        self._draw()

    @property
    def holding(self) -> bool:
        return bool(self._held)

    def _tick(self) -> None:
        if self._held:
            self._draw()
            self._timer.start()  # what comes next waits for the next interval too

    def _draw(self) -> None:
        bubble, held = self._bubble, self._held
        self._held = []
        if bubble is None or not held or not isValid(bubble):
            return
        text, new_paragraph = "", held[0][1]
        for piece, starts_round in held:
            if starts_round and text:  # a new round begins inside what was held
                bubble.append(text, new_paragraph=new_paragraph)
                text, new_paragraph = "", True
            text += piece
        bubble.append(text, new_paragraph=new_paragraph)


__all__ = ["PACE_MS", "TextPace"]
