"""The window's side of saved conversations: drawing a restored
conversation from its display log, the sidebar (Ctrl+B) and switching
between conversations, refused while a turn runs. An opened search hit is
centred and marked for a moment, the words searched selected in it.

Kept out of ``main_window.py``, which only places the sidebar and calls in
here; what a restore draws is :mod:`desktop_agent.ui.conversations.restore`.
It needs of the window only what :class:`ConversationsWindow` names (the
main window is one), not the window itself.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import Qt, QTimer, SignalInstance
from PySide6.QtGui import QKeySequence, QShortcut, QTextCursor, QTextDocument
from PySide6.QtWidgets import QLabel, QWidget
from shiboken6 import isValid

from desktop_agent.core.history_items import HistoryItem, user_item, users_words
from desktop_agent.core.plain_text import plain
from desktop_agent.core.transcript import DisplayItem
from desktop_agent.storage.conversation_events import StoredItems, events_from_history
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.turn_events import NoticeLevel
from desktop_agent.ui.chat.turn_state import ButtonPhase
from desktop_agent.ui.common.key_hints import SIDEBAR_KEY
from desktop_agent.ui.conversations.restore import (
    Restored,
    hit_window,
    restore,
    turn_starts,
)
from desktop_agent.ui.conversations.search_rows import fold

if TYPE_CHECKING:
    from PySide6.QtWidgets import QBoxLayout, QStatusBar, QToolButton

    from desktop_agent.core.conversation import Conversation
    from desktop_agent.texts import Texts
    from desktop_agent.ui.chat.chat_view import ChatView
    from desktop_agent.ui.chat.message_actions import ChatActions
    from desktop_agent.ui.chat.turn_logic import TurnLogic
    from desktop_agent.ui.chat.turn_view import TurnView
    from desktop_agent.ui.conversations.feature import ConversationsFeature
    from desktop_agent.ui.conversations.sidebar import ConversationSidebar

log = logging.getLogger(__name__)

HIT_MS = 2000
"""How long an opened search hit's message stays marked (theme: ``hit``)."""


def display_events(conversation: Conversation) -> Sequence[DisplayItem]:
    """What to draw for a conversation: its display log, or one rebuilt
    from its history when it has none."""
    # A copy: the log the window draws from does not change under a "Show later" button.
    return conversation.events.copy() if conversation.events else StoredItems(events_from_history(conversation.history))


def turn_of(history: Sequence[HistoryItem], seq: int) -> int:
    """The turn (0-based) that history message ``seq`` belongs to."""
    users = sum(1 for m in history[: seq + 1] if users_words(m) is not None)
    return max(users - 1, 0)


def match_index(history: Sequence[HistoryItem], seq: int, query: str) -> int:
    """Which match of ``query`` in its turn history message ``seq`` is (0:
    the turn's first message that holds it): a turn whose question and
    reply both match has two hits, and the second must mark the reply."""
    from desktop_agent.storage.conversation_schema import search_text

    needle = fold(query.strip())
    if not needle or not 0 <= seq < len(history):
        return 0
    start = next((i for i in range(seq, -1, -1) if users_words(history[i]) is not None), 0)
    return sum(1 for m in history[start:seq] if needle in fold(search_text(m)))


class ConversationsWindow(Protocol):
    """What drawing and switching conversations needs of the window."""

    @property
    def chat(self) -> ChatView: ...

    @property
    def controller(self) -> TurnLogic[TurnView] | None:
        """The turn logic (it holds the conversation); None before the window is attached."""

    @property
    def chat_actions(self) -> ChatActions | None: ...

    @property
    def conversations(self) -> ConversationsGlue | None:
        """This glue, once the window made it."""

    @property
    def body(self) -> QBoxLayout:
        """Where the sidebar goes: the row that holds the conversation column."""

    @property
    def new_chat_button(self) -> QToolButton: ...

    @property
    def sidebar_button(self) -> QToolButton:
        """Shows the sidebar again; visible only while it is hidden."""

    @property
    def status(self) -> QStatusBar: ...

    @property
    def turn_finished(self) -> SignalInstance: ...

    def after_switch(self) -> None: ...

    def new_conversation(self) -> bool: ...

    def show_notice(self, level: NoticeLevel, text: str | Callable[[Texts], str]) -> None: ...

    def window(self) -> QWidget:
        """The top-level widget (the Ctrl+B shortcut's and the mark timer's parent)."""


def draw(
    window: ConversationsWindow, conversation: Conversation, *, from_turn: int | None = None, to_turn: int | None = None,
    restored_line: bool = True,
) -> Restored:
    """Draw a saved conversation into the (cleared) chat, with the line
    that says it was restored under its last message (``restored_line``);
    earlier turns are drawn as the reader scrolls up."""
    restored: Restored | None = None

    def at_end() -> None:
        if restored_line:
            window.chat.add_system(window.chat.texts.tr("restored"))
        if restored is not None and window.chat_actions is not None:
            window.chat_actions.refresh()  # drawn later: its last exchange is the conversation's now

    restored = restore(window.chat, display_events(conversation), from_turn=from_turn, to_turn=to_turn,
                       at_end=at_end)
    return restored


def redraw_from(window: ConversationsWindow, turn: int) -> None:
    """Another version of turn ``turn`` was switched in: the conversation is
    drawn again from that turn (earlier turns as the reader scrolls up), and
    that turn brought into view."""
    controller = window.controller
    if controller is None:
        return
    conversation = controller.conversation
    window.chat.clear()
    restored = draw(window, conversation, from_turn=turn, restored_line=False)  # earlier ones as the reader scrolls up
    if window.conversations is not None:
        window.conversations.last_restore = restored
    window.after_switch()
    target = restored.turn_widgets.get(turn)
    if target is not None:
        window.chat.scroll_to_widget(target)


class ConversationsGlue:
    """Attached by the window when the composition root gave it a library."""

    def __init__(self, window: ConversationsWindow, feature: ConversationsFeature) -> None:
        from desktop_agent.ui.conversations.sidebar import ConversationSidebar

        self._window = window
        self._feature = feature
        self.sidebar: ConversationSidebar = ConversationSidebar(feature.library, window.chat.texts, window.window())
        window.body.insertWidget(0, self.sidebar)
        self.sidebar.open_requested.connect(self.open)
        self.sidebar.new_requested.connect(window.new_conversation)
        self.sidebar.deleted.connect(self._on_deleted)
        self.sidebar.imported.connect(lambda conversation_id: self.open(conversation_id))
        QShortcut(QKeySequence(SIDEBAR_KEY), window.window(), self.toggle)
        window.sidebar_button.clicked.connect(self.toggle)
        window.turn_finished.connect(self._on_turn_finished)
        self.last_restore: Restored | None = None
        self._marked: QWidget | None = None
        # The window's timer, not a single shot aimed at the message: the
        # message may be deleted first (see MessageBubble's hover timer).
        self._unmark = QTimer(window.window())
        self._unmark.setSingleShot(True)
        self._unmark.setInterval(HIT_MS)
        self._unmark.timeout.connect(self._clear_mark)
        self.refresh()
        window.new_chat_button.hide()  # the sidebar's ＋ starts one; the bar's only while the sidebar is hidden

    def toggle(self) -> None:
        """Ctrl+B: hide or show the sidebar; while it is hidden, the ＋
        beside the input starts a new conversation instead of its own."""
        show = self.sidebar.isHidden()
        self.sidebar.setVisible(show)
        self._window.new_chat_button.setVisible(not show)
        self._window.sidebar_button.setVisible(not show)  # the way back, where the sidebar was

    def retranslate(self, texts: Texts) -> None:
        """The sidebar's texts again in ``texts``' language (a language switch)."""
        self.sidebar.retranslate(texts)

    def sent(self, text: str) -> None:
        """A turn started with ``text``: a conversation the store does not
        hold yet is listed at once, titled as the store will title it (it is
        saved when the turn ends)."""
        from desktop_agent.storage.conversations import title_of

        controller = self._window.controller
        if controller is not None:
            title = plain(title_of([user_item(text)]))
            self.sidebar.show_pending(controller.conversation.conversation_id, title)

    def _on_turn_finished(self, _status: object) -> None:
        self.sidebar.drop_pending()  # saved by now, or not saved at all (a message not sent)
        self.refresh()

    def refresh(self) -> None:
        controller = self._window.controller
        self.sidebar.set_current(controller.conversation.conversation_id if controller is not None else None)
        restored = self.last_restore
        if restored is not None and restored.tail_hidden(self._window.chat):
            self._window.chat.offer_actions(False)  # its last exchange on screen is not the conversation's

    def show_end(self) -> None:
        """Before a turn is sent: a search hit's window that hides the
        conversation's end is redrawn as an opened conversation is, so the
        new message follows the real last one."""
        window, restored = self._window, self.last_restore
        controller = window.controller
        if restored is None or controller is None or controller.busy or not restored.tail_hidden(window.chat):
            return
        window.chat.clear()
        self.last_restore = draw(window, controller.conversation)
        window.after_switch()

    def open(self, conversation_id: str, seq: int = -1, query: str = "") -> bool:
        """Show a saved conversation (scrolled to message ``seq`` when it is
        a search hit); False, and the reason said, while a turn runs."""
        window, controller = self._window, self._window.controller
        if controller is None:
            return False
        if controller.busy or controller.phase != ButtonPhase.SEND:
            window.status.showMessage(window.chat.texts.tr("conv_busy"), 8000)
            window.show_notice(NoticeLevel.SYSTEM, _busy)
            return False
        if conversation_id != controller.conversation.conversation_id:
            make = self._feature.open
            if not controller.switch_conversation(lambda old: make(old, conversation_id)):
                return False
        conversation = controller.conversation
        events = display_events(conversation)
        turn = turn_of(conversation.history, seq) if seq >= 0 else None
        from_turn, to_turn = hit_window(events, turn)
        window.chat.clear()
        self.last_restore = restored = draw(window, conversation, from_turn=from_turn, to_turn=to_turn)
        window.after_switch()
        self.refresh()
        if turn is not None:
            nth = match_index(conversation.history, seq, query)
            target = self._target(restored, turn, query, len(turn_starts(events)), nth)
            if target is not None:
                self._show_hit(target, query)
        return True

    def _target(self, restored: Restored, turn: int, query: str, count: int, nth: int = 0) -> QWidget | None:
        """The ``nth`` bubble of turn ``turn`` that holds ``query`` (the
        last one that does when fewer do), else its user bubble."""
        start = restored.turn_widgets.get(turn)
        if start is None:
            return None
        items = self._window.chat.items()
        end = restored.turn_widgets.get(turn + 1) if turn + 1 < count else None
        begin = items.index(start) if start in items else 0
        stop = items.index(end) if end is not None and end in items else len(items)
        needle = fold(query.strip())
        found = [w for w in items[begin:stop] if isinstance(w, MessageBubble) and needle and needle in fold(w.text())]
        return found[min(nth, len(found) - 1)] if found else start

    def _show_hit(self, widget: QWidget, query: str) -> None:
        """Centred once the layout settles, marked for :data:`HIT_MS`, and
        the words searched selected in it (found in a long reply at a glance)."""
        self._clear_mark()
        self._marked = widget
        _set_hit(widget, True)
        self._unmark.start()
        focus = _select(widget, query.strip()) if query.strip() else None
        self._window.chat.scroll_to_widget(widget, centre=True, focus=focus)

    @property
    def marked(self) -> QWidget | None:
        """The opened search hit's message while it is marked."""
        return self._marked if self._marked is not None and isValid(self._marked) else None

    def _clear_mark(self) -> None:
        self._unmark.stop()
        if self._marked is not None and isValid(self._marked):
            _set_hit(self._marked, False)
        self._marked = None

    def _on_deleted(self, conversation_id: str) -> None:
        """Deleting the conversation on screen starts a new one; while its
        turn runs it is not deleted (the turn would be lost), and that is said."""
        controller = self._window.controller
        if controller is not None and controller.conversation.conversation_id == conversation_id:
            if not self._window.new_conversation():
                self.sidebar.undo_delete()
                self._window.status.showMessage(self._window.chat.texts.tr("conv_busy"), 8000)
        self.refresh()


def _set_hit(widget: QWidget, on: bool) -> None:
    widget.setProperty("hit", on)
    widget.style().unpolish(widget)
    widget.style().polish(widget)
    widget.update()


def _select(widget: QWidget, query: str) -> tuple[QWidget, int] | None:
    """Select the first match of ``query`` (or of its plain words, typed
    with Markdown) in the selectable labels of ``widget``, as they show it;
    the label and about where in it the match is (for a reply taller than
    the view), or None when nothing matched."""
    needles = list(dict.fromkeys(fold(n) for n in (query, plain(query)) if n))
    for label in widget.findChildren(QLabel):
        if not label.textInteractionFlags() & Qt.TextInteractionFlag.TextSelectableByMouse:
            continue
        document = QTextDocument()
        fmt = label.textFormat()
        if fmt == Qt.TextFormat.MarkdownText:
            document.setMarkdown(label.text())
        elif fmt == Qt.TextFormat.RichText:
            document.setHtml(label.text())
        else:
            document.setPlainText(label.text())
        shown = fold(document.toPlainText())  # not .lower(): "İ" grows, and the selection would drift
        for needle in needles:
            at = shown.find(needle)
            if at >= 0:
                label.setSelection(at, len(needle))
                return label, _line_y(document, label, at)
    return None


def _line_y(document: QTextDocument, label: QLabel, at: int) -> int:
    """About where character ``at`` is drawn in ``label``: its line's top,
    laid out at the label's width and font."""
    document.setDefaultFont(label.font())
    document.setTextWidth(max(label.contentsRect().width(), 1))
    cursor = QTextCursor(document)
    cursor.setPosition(at)
    block = cursor.block()
    line = block.layout().lineForTextPosition(at - block.position())
    top = document.documentLayout().blockBoundingRect(block).top()
    return int(top + (line.y() if line.isValid() else 0))


def _busy(texts: Texts) -> str:
    """Why another conversation cannot open now, in the window's language."""
    return texts.tr("conv_busy")
