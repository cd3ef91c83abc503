"""The message box: Enter sends, Shift+Enter starts a new line.

Signals:
    submitted()   Enter without Shift (the text is still in the box)
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QPlainTextEdit, QSizePolicy, QWidget

from desktop_agent.texts import Texts

MAX_LINES = 6
_PADDING = 14
"""Vertical padding + border of the style sheet's ``QPlainTextEdit#input``."""


class InputBox(QPlainTextEdit):
    submitted = Signal()

    def __init__(self, texts: Texts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._texts = texts
        self.setObjectName("input")
        self.setPlaceholderText(self._texts.tr("input_placeholder"))
        self.setTabChangesFocus(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.document().contentsChanged.connect(self._fit)
        self._fit()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                self.insertPlainText("\n")
            else:
                self.submitted.emit()
            event.accept()
            return
        super().keyPressEvent(event)

    def _fit(self) -> None:
        """Grow with the text up to MAX_LINES, then scroll."""
        count = self.document().blockCount()
        lines = max(1, min(MAX_LINES, count))
        self.setVerticalScrollBarPolicy(
            Qt.ScrollBarPolicy.ScrollBarAsNeeded if count > MAX_LINES else Qt.ScrollBarPolicy.ScrollBarAlwaysOff
        )
        chrome = int(self.document().documentMargin() * 2) + 2 * self.frameWidth() + _PADDING
        self.setFixedHeight(lines * self.fontMetrics().lineSpacing() + chrome)
