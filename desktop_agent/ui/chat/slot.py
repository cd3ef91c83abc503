"""A message's place in the chat column (:class:`Slot`): it keeps the
message's height for the current width, so the column's layout never asks
every message again."""

from __future__ import annotations

from typing import Literal

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QSizePolicy, QWidget
from shiboken6 import isValid

USER_SHARE = 0.75
"""A user bubble is at most this share of the view's width."""

Side = Literal["full", "left", "right", "center"]

FRAME_EDGE = 16
"""How far up from its bottom a message's frame is drawn differently (a
bubble's 10 px rounded corners and its border)."""


def repaint_grown(widget: QWidget, event: QResizeEvent) -> None:
    """What a static widget (``WA_StaticContents``: Qt paints only its new
    part when it grows) repaints of what it had: when it only grew taller,
    its old bottom edge, now inside it (a frame's corners and border there
    are drawn again as the middle); after any other change, all of it."""
    old, new = event.oldSize(), event.size()
    if old.width() == new.width() and 0 < old.height() <= new.height():
        widget.update(0, max(0, old.height() - FRAME_EDGE), new.width(), FRAME_EDGE)
    else:
        widget.update()


class Slot(QWidget):
    """Holds one message widget at a fixed height for the current width.

    Why not put the messages straight into the column's layout: a column of
    word-wrapped labels in a resizable scroll area asks *every* label for
    its height-for-width on each change (measured: ~0.35 ms a message, so
    a reply streaming into 500 messages stalled the loop for 170 ms per
    segment). A slot answers from its cached height, and recomputes only
    when its own widget asks (a ``LayoutRequest``) or the width changes.
    It also places the widget: full width, at the left up to the widget's
    maximum width (cards), or at the right at its preferred width, at most
    ``USER_SHARE`` of the view (user bubbles).
    """

    def __init__(self, widget: QWidget, side: Side) -> None:
        super().__init__()
        widget.setParent(self)
        self.widget = widget
        self._side = side
        self._height = 0
        self._width = -1
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        # It paints nothing itself: growing (a streaming reply) must not
        # repaint all of it, only what is new (its widget repaints its own).
        self.setAttribute(Qt.WidgetAttribute.WA_StaticContents)

    def sizeHint(self) -> QSize:
        return QSize(0, self._height)

    def minimumSizeHint(self) -> QSize:
        return QSize(0, self._height)

    def event(self, event: QEvent) -> bool:
        # A slot being destroyed may still get events after its widget is
        # gone (a message action asked for a new size, then the conversation
        # was cleared): fitting a deleted widget would crash.
        if event.type() == QEvent.Type.LayoutRequest and isValid(self.widget):
            self._fit()
        return super().event(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        if self.width() != self._width and isValid(self.widget):
            self._fit()
        super().resizeEvent(event)

    def measure(self, width: int) -> int:
        """Fit the widget to ``width`` now and return the height it takes
        (what the layout will give it at that width, without waiting for a
        layout pass: a restore measures what it draws to fill the view)."""
        self._fit(width)
        return self._height

    def _fit(self, at: int | None = None) -> None:
        available = self._width = self.width() if at is None else at
        widget = self.widget
        if self._side == "right":
            width = min(widget.sizeHint().width(), int(available * USER_SHARE))
        else:
            width = min(available, widget.maximumWidth())
        width = max(width, widget.minimumSizeHint().width() if self._side != "full" else 0, 1)
        height = widget.heightForWidth(width) if widget.hasHeightForWidth() else -1
        if height < 0:
            height = widget.sizeHint().height()
        x = available - width if self._side == "right" else (available - width) // 2 if self._side == "center" else 0
        widget.setGeometry(x, 0, width, height)
        if height != self._height:
            self._height = height
            self.updateGeometry()
