"""Actions under a message: Copy on every message of the user and the
assistant; Regenerate on the last reply and Edit on the user's last message,
offered only while no turn runs.

:class:`ActionRow` is the row of buttons a bubble holds. :class:`ChatActions`
does what Regenerate and Edit mean for the window: it takes the last
exchange off the screen and has the controller run it again (Regenerate) or
puts the user's words back in the box so that sending replaces the last
exchange (Edit). What "the last exchange" is in the history is the core's
call (``Conversation.take_back_last_exchange``).

Signals (ActionRow):
    requested(kind: str)   Regenerate (``regenerate``) or Edit (``edit``) was clicked
    left()                 the pointer left the row (a floating row may go)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication, QHBoxLayout, QToolButton, QWidget
from shiboken6 import isValid

from desktop_agent.ui.i18n import tr

if TYPE_CHECKING:
    from desktop_agent.ui.chat.bubble import MessageBubble
    from desktop_agent.ui.chat.chat_view import ChatView
    from desktop_agent.ui.chat.input_box import InputBox
    from desktop_agent.ui.chat.turn_controller import TurnController
    from desktop_agent.ui.chat.turn_view import TurnView

COPIED_MS = 1500


def _button(parent: QWidget) -> QToolButton:
    """A button of the row; its texts are the row's (``ActionRow._set_texts``)."""
    button = QToolButton(parent)
    button.setObjectName("messageAction")
    button.setAutoRaise(True)
    button.setCursor(Qt.CursorShape.PointingHandCursor)
    return button


class ActionRow(QWidget):
    requested = Signal(str)
    left = Signal()

    def __init__(self, text: Callable[[], str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("messageActions")
        self._text = text
        self._editing = False
        self.copy_button = _button(self)
        self._copied = QTimer(self)  # "Copied" goes back to its label (a child timer: it dies with the row)
        self._copied.setSingleShot(True)
        self._copied.setInterval(COPIED_MS)
        self._copied.timeout.connect(self._set_texts)
        self.regenerate_button = _button(self)
        self.edit_button = _button(self)
        self.copy_button.clicked.connect(self.copy)
        self.regenerate_button.clicked.connect(lambda: self.requested.emit("regenerate"))
        self.edit_button.clicked.connect(lambda: self.requested.emit("edit"))
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(2)
        row.addStretch(1)
        for button in (self.copy_button, self.regenerate_button, self.edit_button):
            row.addWidget(button)
        self.offer(regenerate=False, edit=False)  # and the buttons' texts (_set_texts)
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)  # floating, it hides the text below
        self.set_floating(True)

    def set_floating(self, floating: bool) -> None:
        """Over the bubble's corner (hover), or a row in it (the last exchange)."""
        self.setProperty("floating", floating)
        self.style().unpolish(self)
        self.style().polish(self)

    def offer(self, *, regenerate: bool, edit: bool, editing: bool = False) -> None:
        """Which of Regenerate and Edit the row offers now (``editing``:
        Edit says Cancel edit)."""
        self.regenerate_button.setVisible(regenerate)
        self.edit_button.setVisible(edit)
        self._editing = editing
        self._set_texts()

    def retranslate(self) -> None:
        """The buttons' texts again in the current language (a language switch)."""
        self._set_texts()
        self.adjustSize()

    def _set_texts(self) -> None:
        """The buttons' texts and tips as the row is now (Copied for a
        moment after a copy, Cancel edit while editing), in the current
        language: at creation, on :meth:`offer` and on :meth:`retranslate`."""
        self.copy_button.setText(tr("copied") if self._copied.isActive() else tr("msg_copy"))
        self.copy_button.setToolTip(tr("msg_copy_tip"))
        self.regenerate_button.setText(tr("msg_regenerate"))
        self.regenerate_button.setToolTip(tr("msg_regenerate_tip"))
        self.edit_button.setText(tr("msg_cancel_edit") if self._editing else tr("msg_edit"))
        self.edit_button.setToolTip(tr("msg_edit_tip"))

    def leaveEvent(self, event: QEvent) -> None:
        self.left.emit()
        super().leaveEvent(event)

    def copy(self) -> None:
        QApplication.clipboard().setText(self._text())
        self.copy_button.setText(tr("copied"))
        self._copied.start()


class ChatActions(QObject):
    """Regenerate and Edit in a window (its chat, input and controller).

    ``open_turn`` is the window's: it shows the user's words and returns
    the turn's view, as for any turn."""

    def __init__(
        self,
        chat: ChatView,
        input_box: InputBox,
        controller: TurnController[TurnView],
        open_turn: Callable[[str], TurnView],
        *,
        hint: Callable[[str], None] = lambda _text: None,
    ) -> None:
        super().__init__(chat)  # it goes with the chat it acts on, not the controller that outlives it
        self._chat, self._input, self._controller = chat, input_box, controller
        self._open_turn = open_turn
        self._hint = hint
        self._edited: MessageBubble | None = None
        """The user's message Edit put back in the box (the last one, when clicked)."""
        chat.action_requested.connect(self._on_action)
        controller.phase_changed.connect(lambda _phase: self.refresh())
        controller.turn_finished.connect(lambda _status: self.refresh())
        input_box.textChanged.connect(self._on_text_changed)
        self._esc = QShortcut(QKeySequence(Qt.Key.Key_Escape), input_box, self.cancel_edit,
                              context=Qt.ShortcutContext.WidgetShortcut)
        self._esc.setEnabled(False)  # only while editing: otherwise Esc is the window's (it stops a turn)
        self.refresh()

    @property
    def editing(self) -> bool:
        """Edit was clicked and can still be done: the next send replaces the last exchange."""
        return self._still_editing() and self._controller.can_redo

    def _still_editing(self) -> bool:
        return self._edited is not None and self._edited is self._chat.last_user_bubble()

    def refresh(self) -> None:
        """Offer Regenerate and Edit on the last exchange, when they can run now."""
        if not isValid(self._chat) or not isValid(self._controller):
            return  # the window is being torn down; its last signals find no chat
        can = self._controller.can_redo
        if self._edited is not None and not (can and self._still_editing()):
            # A turn started, or another conversation is on screen: the edit is over.
            self._end_edit()
        self._chat.offer_actions(can, editing=self._edited is not None)

    def regenerate(self) -> bool:
        """Ask the last message again; its reply on screen goes."""
        user = self._chat.last_user_bubble()
        if user is None or not self._controller.can_redo:
            return False
        self.cancel_edit()
        self._chat.remove_from(user)  # the turn shows the same words again
        return self._controller.redo_last(None, self._open_turn)

    def edit(self) -> None:
        """Put the last message back in the box; sending it replaces the exchange."""
        user = self._chat.last_user_bubble()
        if user is None or not self._controller.can_redo:
            return
        if self._edited is not None:
            self.cancel_edit()
            return
        self._input.setPlainText(user.text())
        self._edited = user  # after setPlainText: its textChanged must not end the edit
        self._esc.setEnabled(True)
        self._input.setFocus()
        self._input.moveCursor(self._input.textCursor().MoveOperation.End)
        self._hint(tr("msg_editing"))
        self.refresh()

    def send_edited(self, text: str) -> bool:
        """The edited message is sent: it replaces the last exchange."""
        user = self._chat.last_user_bubble()
        if user is None or not text.strip() or not self._controller.can_redo:
            return False
        self._end_edit()
        self._chat.remove_from(user)
        return self._controller.redo_last(text, self._open_turn)

    def cancel_edit(self) -> None:
        """Esc, or Cancel edit: the box empties, nothing is replaced."""
        if self._edited is None:
            return
        self._end_edit()
        self._input.clear()
        self.refresh()

    def _end_edit(self) -> None:
        self._edited = None
        self._esc.setEnabled(False)
        self._hint("")

    def _on_text_changed(self) -> None:
        if self._edited is not None and not self._input.toPlainText().strip():
            self._end_edit()  # the box was emptied: nothing is being edited
            self.refresh()

    def _on_action(self, kind: str, _bubble: MessageBubble) -> None:
        if kind == "regenerate":
            self.regenerate()
        elif kind == "edit":
            self.edit()
