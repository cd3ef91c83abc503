"""A small rotating-arc busy indicator: a tool call shows at once that it
is working, before any progress arrives (contracts §7).

Qt has no spinner widget; an indeterminate ``QProgressBar`` reads as a bar,
not as "working". The timer runs only while the spinner is visible, so
hundreds of finished cards cost nothing.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QHideEvent, QPainter, QPaintEvent, QPen, QShowEvent
from PySide6.QtWidgets import QWidget

_STEP_DEG = 30
_INTERVAL_MS = 80


class Spinner(QWidget):
    def __init__(self, parent: QWidget | None = None, size: int = 16) -> None:
        super().__init__(parent)
        self._angle = 0
        self._size = size
        self._timer = QTimer(self)
        self._timer.setInterval(_INTERVAL_MS)
        self._timer.timeout.connect(self._advance)
        self.setFixedSize(size, size)

    def sizeHint(self) -> QSize:
        return QSize(self._size, self._size)

    @property
    def spinning(self) -> bool:
        return self._timer.isActive()

    def _advance(self) -> None:
        self._angle = (self._angle + _STEP_DEG) % 360
        self.update()

    def showEvent(self, event: QShowEvent) -> None:
        self._timer.start()
        super().showEvent(event)

    def hideEvent(self, event: QHideEvent) -> None:
        self._timer.stop()
        super().hideEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        color = QColor(self.palette().color(self.foregroundRole()))
        track = QColor(color)
        track.setAlpha(50)
        rect = QRectF(2, 2, self._size - 4, self._size - 4)
        pen = QPen(track, 2)
        painter.setPen(pen)
        painter.drawEllipse(rect)
        pen.setColor(color)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(pen)
        painter.drawArc(rect, -self._angle * 16, 100 * 16)
        painter.end()
