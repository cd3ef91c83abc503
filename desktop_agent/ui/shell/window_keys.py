"""The main window's keyboard: Esc stops the turn, Shift+Esc skips the
sentence being spoken, Alt+A / Alt+R answer the approval that waits, the
newest approval card takes the keyboard when it appears, and Enter while a
reply runs says why nothing was sent. Settings (Ctrl+, and the platform's
Preferences key) and a new conversation (the platform's New key) open from
anywhere in the window.

Esc and Shift+Esc are read where a key lands when nothing in the window
wanted it (an event filter on the window, which sees a key press the
focused widget ignored and passed up to its parents), not through a
window-wide ``QShortcut``: a shortcut is tried before any widget sees the
key, and would steal Esc from whoever has a use for it — an open dialog or
menu (their own windows), push-to-talk (which cancels what it records;
this module also stands back while ``window.voice.hearing``), the Edit
that Esc cancels, a search field (Esc empties a field that has a clear
button, as its button would; the next Esc stops the turn).

Alt+A and Alt+R are shortcuts, enabled only while a card waits: they must
work wherever the keyboard is in the window, and Alt+letter would
otherwise type a letter into the input. The keys are written on the buttons
(``ui/cards/approval.py`` says why these keys).

An approval card takes the keyboard when it appears, with its focus ring,
unless the user is typing: a text field with the focus holds text, or a
key went into the input less than :data:`TYPING_PAUSE_S` ago (a message
being written is never cut by a card; its keys still work from the input).
Tab from the input reaches the waiting card before anything older. Once the
card is answered (or the turn ends), the keyboard goes back to the input.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QEvent, QObject, Qt, SignalInstance
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication, QLineEdit, QPlainTextEdit, QTextEdit, QWidget

from desktop_agent.ui.cards.phase import CardPhase
from desktop_agent.ui.chat.turn_state import ButtonPhase
from desktop_agent.ui.common.key_hints import APPROVE_KEY, REJECT_KEY, key_text

if TYPE_CHECKING:
    from desktop_agent.ui.cards.tool_card import ToolCardWidget
    from desktop_agent.ui.chat.chat_view import ChatView
    from desktop_agent.ui.chat.input_box import InputBox
    from desktop_agent.ui.chat.send_button import SendButton
    from desktop_agent.ui.chat.turn_logic import TurnLogic
    from desktop_agent.ui.chat.turn_view import TurnView
    from desktop_agent.ui.voice.glue import VoiceGlue

TYPING_PAUSE_S = 2.0
"""A key pressed in the input less than this long ago: the user is typing."""


class KeysWindow(Protocol):
    """What the keyboard needs of the window (the main window is one)."""

    @property
    def input(self) -> InputBox: ...

    @property
    def chat(self) -> ChatView: ...

    @property
    def send_button(self) -> SendButton: ...

    @property
    def voice(self) -> VoiceGlue | None:
        """Speech input, once attached (push-to-talk takes Esc while it hears)."""

    @property
    def controller(self) -> TurnLogic[TurnView] | None: ...

    @property
    def view(self) -> TurnView | None: ...

    @property
    def card_changed(self) -> SignalInstance: ...

    def interrupt(self) -> None: ...

    def open_settings(self) -> object: ...

    def new_conversation(self) -> bool: ...

    def window(self) -> QWidget:
        """The top-level widget: the shortcuts' parent, where Esc is read."""


class WindowKeys(QObject):
    def __init__(self, window: KeysWindow, *, clock: Callable[[], float] = time.monotonic) -> None:
        top = window.window()
        super().__init__(top)
        self._window, self._top = window, top
        self.clock = clock
        """Times the keys going into the input (tests set it)."""
        self._last_key: float | None = None
        """When a key last went into the input."""
        self._said_busy: object | None = None
        """The turn (its view) "a reply is still running" was said for."""
        self.approve_shortcut = QShortcut(QKeySequence(APPROVE_KEY), top, lambda: self._answer(True))
        self.reject_shortcut = QShortcut(QKeySequence(REJECT_KEY), top, lambda: self._answer(False))
        self._sync_shortcuts()
        QShortcut(QKeySequence.StandardKey.Preferences, top, window.open_settings)
        if QKeySequence("Ctrl+,") not in QKeySequence.keyBindings(QKeySequence.StandardKey.Preferences):
            # Preferences is Ctrl+, only on macOS; the same key twice would be ambiguous (neither fires).
            QShortcut(QKeySequence("Ctrl+,"), top, window.open_settings)
        QShortcut(QKeySequence.StandardKey.New, top, window.new_conversation)
        top.installEventFilter(self)
        window.input.installEventFilter(self)
        window.card_changed.connect(self._on_card)

    # ------------------------------------------------------------ keys

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.KeyPress or not isinstance(event, QKeyEvent):
            return False
        if watched is self._window.input:
            self._last_key = self.clock()
            return False
        if watched is not self._top or event.key() != Qt.Key.Key_Escape:
            return False
        modifiers = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        if modifiers == Qt.KeyboardModifier.NoModifier:
            return self.stop()
        if modifiers == Qt.KeyboardModifier.ShiftModifier:
            return self.skip()
        return False

    def stop(self) -> bool:
        """Esc: what Interrupt does while a turn (or its last words' speech)
        runs. False when Esc has nothing to do here."""
        window = self._window
        if window.voice is not None and window.voice.hearing:
            return False  # push-to-talk's Esc cancels the recording instead
        focused = QApplication.focusWidget()
        if isinstance(focused, QLineEdit) and focused.isClearButtonEnabled() and focused.text():
            focused.clear()  # what the field's clear button does; the next Esc stops the turn
            return True
        if window.send_button.phase != ButtonPhase.INTERRUPT:
            return False
        window.interrupt()
        return True

    def skip(self) -> bool:
        """Shift+Esc: skip the sentence being spoken; the turn goes on."""
        controller = self._window.controller
        return controller is not None and controller.skip_speech()

    def say_busy(self) -> None:
        """Enter with text while the model still replies: nothing is sent,
        and one line (once a turn) says why and what stops the reply; the
        text stays in the input. (While only the reply's last words are
        spoken, Enter stops them and sends: ``TurnLogic.start_turn``.)"""
        window, controller = self._window, self._window.controller
        if controller is None or not controller.replying or window.send_button.phase != ButtonPhase.INTERRUPT:
            return
        if self._said_busy is controller.view:
            return
        self._said_busy = controller.view
        if self.pending_card() is not None:
            fields = {"approve": key_text(APPROVE_KEY), "reject": key_text(REJECT_KEY)}
            window.chat.add_system(window.chat.texts.tr("reply_waits_for_approval", **fields), key="reply_waits_for_approval", **fields)
        else:
            window.chat.add_system(window.chat.texts.tr("reply_running"), key="reply_running")

    def _answer(self, approved: bool) -> None:
        card = self.pending_card()
        if card is not None:
            card.answer_key(approved)

    # ------------------------------------------------------- approvals

    def pending_card(self) -> ToolCardWidget | None:
        """The newest card waiting for an answer (a sub-agent's included)."""
        view = self._window.view
        if view is None:
            return None
        waiting = [card for card in view.cards.values() if card.state.phase == CardPhase.APPROVAL]
        return waiting[-1] if waiting else None

    def approval_shown(self, tool_call_id: str) -> None:
        """A card now waits for the user: first in Tab order after the input,
        and given the keyboard unless the user is typing."""
        self._sync_shortcuts()
        view = self._window.view
        card = view.cards.get(tool_call_id) if view is not None else None
        if card is None:
            return
        card.setAccessibleDescription(
            self._window.chat.texts.tr("card_keys_description", approve=key_text(APPROVE_KEY), reject=key_text(REJECT_KEY))
        )
        previous: QWidget = self._window.input
        for widget in card.answer_chain():
            QWidget.setTabOrder(previous, widget)
            previous = widget
        if not self.typing():
            card.setFocus(Qt.FocusReason.OtherFocusReason)

    def typing(self) -> bool:
        """The user is writing something the card must not interrupt."""
        focused = QApplication.focusWidget()
        if isinstance(focused, QLineEdit) and not focused.isReadOnly() and focused.text().strip():
            return True
        if (
            isinstance(focused, QPlainTextEdit | QTextEdit)
            and not focused.isReadOnly()
            and focused.toPlainText().strip()
        ):
            return True
        last = self._last_key
        return last is not None and self.clock() - last < TYPING_PAUSE_S

    def _on_card(self, tool_call_id: str, phase: CardPhase) -> None:
        self._sync_shortcuts()
        if phase == CardPhase.APPROVAL:
            return
        view = self._window.view
        card = view.cards.get(tool_call_id) if view is not None else None
        if card is not None and card.hasFocus():
            self._window.input.setFocus(Qt.FocusReason.OtherFocusReason)  # answered: back to writing

    def _sync_shortcuts(self) -> None:
        waiting = self.pending_card() is not None
        self.approve_shortcut.setEnabled(waiting)
        self.reject_shortcut.setEnabled(waiting)
