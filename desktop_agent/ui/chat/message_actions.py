"""What Regenerate and Edit under a message mean for the window.

:class:`ChatActions` takes the last exchange off the screen and has the
controller run it again (Regenerate) or puts the user's words back in the box
so that sending replaces the last exchange (Edit). What "the last exchange"
is in the history is the core's call (``Conversation.take_back_last_exchange``).

The row of buttons a bubble holds is ``action_row.ActionRow``: a module of
its own, so that the bubble does not import this one, which acts on bubbles.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from shiboken6 import isValid

from desktop_agent.ui.chat.action_row import MessageAction

if TYPE_CHECKING:
    from desktop_agent.ui.chat.bubble import MessageBubble
    from desktop_agent.ui.chat.chat_view import ChatView
    from desktop_agent.ui.chat.input_box import InputBox
    from desktop_agent.ui.chat.turn_controller import TurnController
    from desktop_agent.ui.chat.turn_view import TurnView


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
        self._logic = controller.logic
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
        return self._still_editing() and self._logic.can_redo

    def _still_editing(self) -> bool:
        return self._edited is not None and self._edited is self._chat.last_user_bubble()

    def refresh(self) -> None:
        """Offer Regenerate and Edit on the last exchange, when they can run now."""
        if not isValid(self._chat) or not isValid(self._controller):
            return  # the window is being torn down; its last signals find no chat
        can = self._logic.can_redo
        if self._edited is not None and not (can and self._still_editing()):
            # A turn started, or another conversation is on screen: the edit is over.
            self._end_edit()
        self._chat.offer_actions(can, editing=self._edited is not None)

    def regenerate(self) -> bool:
        """Ask the last message again; its reply on screen goes."""
        user = self._chat.last_user_bubble()
        if user is None or not self._logic.can_redo:
            return False
        self.cancel_edit()
        self._chat.remove_from(user)  # the turn shows the same words again
        return self._logic.redo_last(None, self._open_turn)

    def edit(self) -> None:
        """Put the last message back in the box; sending it replaces the exchange."""
        user = self._chat.last_user_bubble()
        if user is None or not self._logic.can_redo:
            return
        if self._edited is not None:
            self.cancel_edit()
            return
        self._input.setPlainText(user.text())
        self._edited = user  # after setPlainText: its textChanged must not end the edit
        self._esc.setEnabled(True)
        self._input.setFocus()
        self._input.moveCursor(self._input.textCursor().MoveOperation.End)
        self._hint(self._chat.texts.tr("msg_editing"))
        self.refresh()

    def send_edited(self, text: str) -> bool:
        """The edited message is sent: it replaces the last exchange."""
        user = self._chat.last_user_bubble()
        if user is None or not text.strip() or not self._logic.can_redo:
            return False
        self._end_edit()
        self._chat.remove_from(user)
        return self._logic.redo_last(text, self._open_turn)

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

    def _on_action(self, kind: MessageAction, _bubble: MessageBubble) -> None:
        if kind == MessageAction.REGENERATE:
            self.regenerate()
        elif kind == MessageAction.EDIT:
            self.edit()
