"""The message box: Enter sends, Shift+Enter starts a new line. A picker
(:meth:`InputBox.set_picker`, the ``/`` and ``@`` lists) gets the keys it
wants first: Up, Down, Enter, Tab and Esc while its list is open.

Signals:
    submitted()   Enter without Shift (the text is still in the box)
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QFocusEvent, QKeyEvent, QResizeEvent
from PySide6.QtWidgets import QPlainTextEdit, QSizePolicy, QWidget

from desktop_agent.texts import Texts

MAX_LINES = 6
_PADDING = 14
"""Vertical padding + border of the style sheet's ``QPlainTextEdit#input``."""


class PickerKeys(Protocol):
    """What the box asks of its picker (``ui/chat/picker.py``)."""

    def wants_key(self, event: QKeyEvent) -> bool:
        """``event`` is for the open list (asked before shortcuts see it)."""
        ...

    def handle_key(self, event: QKeyEvent) -> bool:
        """Act on ``event``; False: the box types it."""
        ...

    def focus_left(self) -> None: ...


class InputBox(QPlainTextEdit):
    submitted = Signal()

    def __init__(self, texts: Texts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._texts = texts
        self._picker: PickerKeys | None = None
        self.setObjectName("input")
        self._place_hint()
        self.setTabChangesFocus(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.document().contentsChanged.connect(self._fit)
        self._fit()

    def retranslate(self, texts: Texts) -> None:
        self._texts = texts
        self._place_hint()

    def _place_hint(self) -> None:
        """The whole hint (Enter sends, Shift+Enter starts a line) where it
        fits on the box's one line; where the box is narrow (an 800 px
        window) only "Type a message", the keys then in its tooltip."""
        full = self._texts.tr("input_placeholder")
        room = self.viewport().width() - 2 * self.document().documentMargin()
        fits = self.fontMetrics().horizontalAdvance(full) <= room
        self.setPlaceholderText(full if fits else self._texts.tr("input_placeholder_short"))
        self.setToolTip("" if fits else full)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place_hint()

    def set_picker(self, picker: PickerKeys | None) -> None:
        """The ``/`` and ``@`` lists' keys go to ``picker`` first."""
        self._picker = picker

    def event(self, event: QEvent) -> bool:
        # Here, not in keyPressEvent: Tab moves the focus before keyPressEvent
        # is called, and an accepted ShortcutOverride keeps Esc from the
        # window's shortcuts (the Edit's cancel) while the list is open.
        picker = self._picker
        if picker is not None and isinstance(event, QKeyEvent):
            if event.type() == QEvent.Type.ShortcutOverride and picker.wants_key(event):
                event.accept()
                return True
            if event.type() == QEvent.Type.KeyPress and picker.handle_key(event):
                event.accept()
                return True
        return super().event(event)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        if self._picker is not None:
            self._picker.focus_left()
        super().focusOutEvent(event)

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
