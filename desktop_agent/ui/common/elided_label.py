"""A one-line label that may be narrower than its text: it draws the text
cut with "…" and shows the whole of it on hover.

A plain ``QLabel`` asks for its whole text as its minimum width, so one long
line (a model's name, a demo notice) in the status bar made the window
wider than the user had it. :meth:`text` stays the whole text; only what is
drawn is cut.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QHelpEvent, QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QToolTip, QWidget


class ElidedLabel(QLabel):
    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        margins = self.contentsMargins()
        return QSize(self.fontMetrics().horizontalAdvance("…") + margins.left() + margins.right(), hint.height())

    def shown_text(self) -> str:
        """What is drawn: the text, cut with "…" to the label's width."""
        width = self.contentsRect().width()
        return self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, max(width, 0))

    def is_elided(self) -> bool:
        return self.shown_text() != self.text()

    def shown_tooltip(self) -> str:
        """What hovering shows: the whole text when it is cut (then the label's own tooltip)."""
        own = self.toolTip()
        if not self.is_elided():
            return own
        return f"{self.text()}\n{own}" if own else self.text()

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            tip = self.shown_tooltip()
            if tip:
                QToolTip.showText(event.globalPos(), tip, self)
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().event(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        style = self.style()
        style.drawItemText(
            painter, self.contentsRect(), int(self.alignment()), self.palette(), self.isEnabled(), self.shown_text(),
            self.foregroundRole(),
        )
