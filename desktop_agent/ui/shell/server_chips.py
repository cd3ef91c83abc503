"""The MCP servers' items on the status bar, in as much width as there is.

Each server is a label (a coloured dot and its caption). Side by side they
can be wider than the window (six servers: ~900 px), and a status bar asks
its window for the width of everything on it: importing three servers made
the window grow from 1100 to 1255 px. So the items ask for no more than a
"+N" item: they show as many servers as fit, in order, and "+N" stands for
the rest, its tooltip naming each one (a click on it opens their menus:
the status bar's ``overflow_menu``).
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

SPACING = 10
"""Pixels between two items."""


class ServerChips(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.labels: list[QLabel] = []
        """One item a server, in order (hidden ones included)."""
        self._tips: list[str] = []
        self.more = QLabel(self)
        """``+N``: the servers that do not fit."""
        self.more.setCursor(Qt.CursorShape.PointingHandCursor)
        self.more.hide()
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)

    def set_labels(self, labels: list[QLabel], more_tips: list[str]) -> None:
        """Show ``labels`` (made by the status bar, parented here);
        ``more_tips``: each server's line for the ``+N`` tooltip."""
        self.labels = labels
        self._tips = more_tips
        for label in labels:
            label.setParent(self)
        self.updateGeometry()
        self._fit()

    def hidden(self) -> list[int]:
        """The indexes of the servers that do not fit now."""
        return [i for i, label in enumerate(self.labels) if label.isHidden()]

    def sizeHint(self) -> QSize:
        widths = [label.sizeHint().width() for label in self.labels]
        height = max([label.sizeHint().height() for label in self.labels] + [self.more.sizeHint().height()])
        return QSize(sum(widths) + SPACING * max(len(widths) - 1, 0), height)

    def minimumSizeHint(self) -> QSize:
        """Room for "+N" only: the items never widen the window."""
        if not self.labels:
            return QSize(0, 0)
        return QSize(self._more_width(len(self.labels)), self.sizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _more_width(self, count: int) -> int:
        return self.more.fontMetrics().horizontalAdvance(f"+{count}") + 8

    def _fit(self) -> None:
        """Lay the items out left to right; those that do not fit are hidden behind "+N"."""
        widths = [label.sizeHint().width() for label in self.labels]
        room = self.width()
        total = sum(widths) + SPACING * max(len(widths) - 1, 0)
        shown = len(widths)
        if total > room:
            shown = 0
            used = 0
            while shown < len(widths):
                need = used + widths[shown] + SPACING + self._more_width(len(widths) - shown - 1)
                if need > room:
                    break
                used += widths[shown] + SPACING
                shown += 1
        x, height = 0, self.height()
        for index, (label, width) in enumerate(zip(self.labels, widths, strict=True)):
            label.setVisible(index < shown)
            if index < shown:
                label.setGeometry(x, 0, width, height)
                x += width + SPACING
        rest = len(widths) - shown
        self.more.setVisible(rest > 0)
        if rest:
            self.more.setText(f"+{rest}")
            self.more.setToolTip("\n".join(self._tips[shown:]))
            self.more.setGeometry(x, 0, self._more_width(rest), height)
