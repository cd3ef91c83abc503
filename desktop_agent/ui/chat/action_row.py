"""The row of actions under a message: Copy on every message of the user and
the assistant; Regenerate on the last reply and Edit on the user's last
message, offered only while no turn runs (``message_actions.ChatActions``
says which, and does what they mean).

Signals (ActionRow):
    requested(kind: MessageAction)
                           Regenerate or Edit was clicked
    left()                 the pointer left the row (a floating row may go)
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import QApplication, QHBoxLayout, QToolButton, QWidget

from desktop_agent.texts import Texts

COPIED_MS = 1500


class MessageAction(StrEnum):
    """What a message's row asks the chat to do (Copy it does itself)."""

    REGENERATE = "regenerate"
    EDIT = "edit"
    PREVIOUS_VERSION = "previous_version"
    NEXT_VERSION = "next_version"
    """‹ and › of the turn's versions (``version_switch.VersionSwitch``)."""


def _button(parent: QWidget) -> QToolButton:
    """A button of the row; its texts are the row's (``ActionRow._set_texts``)."""
    button = QToolButton(parent)
    button.setObjectName("messageAction")
    button.setAutoRaise(True)
    button.setCursor(Qt.CursorShape.PointingHandCursor)
    return button


class ActionRow(QWidget):
    requested = Signal(MessageAction)
    left = Signal()

    def __init__(self, text: Callable[[], str], texts: Texts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("messageActions")
        self._text = text
        self._texts = texts
        self._editing = False
        self.copy_button = _button(self)
        self._copied = QTimer(self)  # "Copied" goes back to its label (a child timer: it dies with the row)
        self._copied.setSingleShot(True)
        self._copied.setInterval(COPIED_MS)
        self._copied.timeout.connect(self._set_texts)
        self.regenerate_button = _button(self)
        self.edit_button = _button(self)
        self.copy_button.clicked.connect(self.copy)
        self.regenerate_button.clicked.connect(lambda: self.requested.emit(MessageAction.REGENERATE))
        self.edit_button.clicked.connect(lambda: self.requested.emit(MessageAction.EDIT))
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(2)
        row.addStretch(1)
        for button in (self.copy_button, self.regenerate_button, self.edit_button):
            row.addWidget(button)
        self.regenerate_button.hide()
        self.edit_button.hide()
        self._set_texts()
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)  # floating, it hides the text below
        self.set_floating(True)

    def set_floating(self, floating: bool) -> None:
        """Over the bubble's corner (hover), or a row in it (the last exchange)."""
        self.setProperty("floating", floating)
        self.style().unpolish(self)
        self.style().polish(self)

    def offer(self, *, regenerate: bool, edit: bool, editing: bool = False) -> None:
        """Which of Regenerate and Edit the row offers now (``editing``:
        Edit says Cancel edit). Only what changes is touched: every message
        of the user's is offered Edit again as each turn starts and ends."""
        for button, shown in ((self.regenerate_button, regenerate), (self.edit_button, edit)):
            if button.isHidden() == shown:
                button.setVisible(shown)
        if editing != self._editing:
            self._editing = editing
            self._set_texts()

    def retranslate(self, texts: Texts) -> None:
        """The buttons' texts again in ``texts``' language (a language switch)."""
        self._texts = texts
        self._set_texts()
        self.adjustSize()

    def _set_texts(self) -> None:
        """The buttons' texts and tips as the row is now (Copied for a
        moment after a copy, Cancel edit while editing), in the row's
        language: at creation, on :meth:`offer` and on :meth:`retranslate`."""
        self.copy_button.setText(self._texts.tr("copied") if self._copied.isActive() else self._texts.tr("msg_copy"))
        self.copy_button.setToolTip(self._texts.tr("msg_copy_tip"))
        self.regenerate_button.setText(self._texts.tr("msg_regenerate"))
        self.regenerate_button.setToolTip(self._texts.tr("msg_regenerate_tip"))
        self.edit_button.setText(self._texts.tr("msg_cancel_edit") if self._editing else self._texts.tr("msg_edit"))
        self.edit_button.setToolTip(self._texts.tr("msg_edit_tip"))

    def leaveEvent(self, event: QEvent) -> None:
        self.left.emit()
        super().leaveEvent(event)

    def copy(self) -> None:
        QApplication.clipboard().setText(self._text())
        self.copy_button.setText(self._texts.tr("copied"))
        self._copied.start()
