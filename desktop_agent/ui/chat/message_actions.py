"""What Regenerate, Edit and ‹ › under a message mean for the window.

:class:`ChatActions` takes the last exchange off the screen and has the
controller run it again (Regenerate), or puts a message of the user's (any
of them) back in the box so that sending replaces it and what followed
(Edit). What was replaced is kept as a version of that turn
(``core/versions.py``); the turn's last reply then shows ‹ n/N ›, and
switching redraws the conversation (``redraw``, the window's) with the
version chosen, which is what the next turn sends.

A bubble's turn is counted from the end: the chat shows the conversation's
last turns (a search hit's window that hides the end offers no actions).

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
        redraw: Callable[[int], None] = lambda _turn: None,
    ) -> None:
        super().__init__(chat)  # it goes with the chat it acts on, not the controller that outlives it
        self._chat, self._input, self._controller = chat, input_box, controller
        self._logic = controller.logic
        self._open_turn = open_turn
        self._hint = hint
        self._redraw = redraw
        """Draw the conversation again after a switch, turn ``n`` in view."""
        self._edited: MessageBubble | None = None
        """The user's message Edit put back in the box."""
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
        return self._edited is not None and isValid(self._edited) and self._edited in self._users()

    def _users(self) -> list[MessageBubble]:
        from desktop_agent.ui.chat.bubble import MessageBubble

        return [w for w in self._chat.items() if isinstance(w, MessageBubble) and w.role == "user"]

    def turn_of(self, bubble: MessageBubble) -> int | None:
        """The conversation's turn (0-based) of a user bubble, or of a reply
        (its user's); None when the screen does not end with the
        conversation's last turn (or the bubble is not a turn's)."""
        from desktop_agent.ui.chat.bubble import MessageBubble

        items, users = self._chat.items(), self._users()
        if bubble not in items:
            return None
        first = self._first_turn(users)
        if first is None:
            return None
        user = next((w for w in reversed(items[: items.index(bubble) + 1])
                     if isinstance(w, MessageBubble) and w.role == "user"), None)
        if user is None:
            return None
        turn = first + users.index(user)
        return turn if turn >= 0 else None

    def _first_turn(self, users: list[MessageBubble]) -> int | None:
        """The conversation's turn of the first user bubble on screen (below
        0 when the screen shows more than the history holds); None when the
        screen does not end with the conversation's last turn."""
        conversation = self._logic.conversation
        total = conversation.turn_count()
        if not users or users[-1].text() != conversation.user_text_of(total - 1):
            return None  # a turn not in the history yet, or the end hidden
        return total - len(users)

    def refresh(self) -> None:
        """Offer Regenerate on the last exchange and Edit on every message of
        the user's, when they can run now, and each turn's ‹ n/N ›."""
        if not isValid(self._chat) or not isValid(self._controller):
            return  # the window is being torn down; its last signals find no chat
        can = self._logic.can_redo
        if self._edited is not None and not (can and self._still_editing()):
            # A turn started, or another conversation is on screen: the edit is over.
            self._end_edit()
        users = self._users()
        self._chat.offer_actions(can, editing=bool(users) and self._edited is users[-1])
        for user in users[:-1]:
            user.offer_actions(regenerate=False, edit=can, editing=user is self._edited)
        self._show_versions(users, can)

    def _show_versions(self, users: list[MessageBubble], can: bool) -> None:
        """‹ n/N › under the last reply of each turn that has versions (its
        user's message when it has none); hidden while a turn runs."""
        from desktop_agent.ui.chat.bubble import MessageBubble

        kept = self._logic.conversation.versions
        first = self._first_turn(users) if can and kept.sets else None
        # One pass over the chat (this runs as each turn starts and ends):
        # each turn's user bubble, then the last reply before the next one.
        turns: list[list[MessageBubble]] = []
        showing: list[MessageBubble] = []
        for widget in self._chat.items():
            if not isinstance(widget, MessageBubble):
                continue
            if widget.versions is not None and not widget.versions.isHidden():
                showing.append(widget)
            if widget.role == "user":
                turns.append([widget])
            elif widget.role == "assistant" and turns:
                turns[-1][1:] = [widget]
        shown: dict[MessageBubble, tuple[int, int]] = {}
        if first is not None:
            for n, turn in enumerate(turns):
                position = kept.at(first + n) if first + n >= 0 else None
                if position is not None:
                    shown[turn[-1]] = position
        for bubble in showing:
            if bubble not in shown:
                bubble.set_versions(None)
        for bubble, position in shown.items():
            bubble.set_versions(position)

    def regenerate(self) -> bool:
        """Ask the last message again; its reply on screen goes (kept as a version)."""
        user = self._chat.last_user_bubble()
        if user is None or not self._logic.can_redo:
            return False
        self.cancel_edit()
        self._chat.remove_from(user)  # the turn shows the same words again
        return self._logic.redo_last(None, self._open_turn)

    def edit(self, bubble: MessageBubble | None = None) -> None:
        """Put a message of the user's (the last one by default) back in
        the box; sending it replaces it and what followed. Edit again on the
        message being edited cancels."""
        user = bubble if bubble is not None else self._chat.last_user_bubble()
        if user is None or not self._logic.can_redo or self.turn_of(user) is None:
            return
        if self._edited is not None:
            same = self._edited is user
            self.cancel_edit()
            if same:
                return
        self._input.setPlainText(user.text())
        self._edited = user  # after setPlainText: its textChanged must not end the edit
        self._esc.setEnabled(True)
        self._input.setFocus()
        self._input.moveCursor(self._input.textCursor().MoveOperation.End)
        self._hint(self._chat.texts.tr("msg_editing"))
        self.refresh()

    def send_edited(self, text: str) -> bool:
        """The edited message is sent: it replaces that message and what
        followed (kept as the turn's earlier version)."""
        user = self._edited if self._still_editing() else None
        turn = self.turn_of(user) if user is not None else None
        if user is None or turn is None or not text.strip() or not self._logic.can_redo:
            return False
        self._end_edit()
        self._chat.remove_from(user)
        return self._logic.redo_from(turn, text, self._open_turn)

    def switch_version(self, bubble: MessageBubble, delta: int) -> bool:
        """‹ (-1) or › (+1) under a turn's reply: show that version."""
        turn = self.turn_of(bubble)
        position = self._logic.conversation.versions.at(turn) if turn is not None else None
        if turn is None or position is None:
            return False
        self.cancel_edit()
        if not self._logic.switch_version(turn, position[0] - 1 + delta):
            return False
        self._redraw(turn)
        self.refresh()
        return True

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

    def _on_action(self, kind: MessageAction, bubble: MessageBubble) -> None:
        if kind == MessageAction.REGENERATE:
            self.regenerate()
        elif kind == MessageAction.EDIT:
            self.edit(bubble)
        elif kind in (MessageAction.PREVIOUS_VERSION, MessageAction.NEXT_VERSION):
            self.switch_version(bubble, -1 if kind == MessageAction.PREVIOUS_VERSION else 1)
