"""The conversation: a scrolling column of bubbles, cards and forms.

It stays at the bottom while new content arrives unless the user scrolled
up to read (the scrolling: ``scroll_column.py``). Assistant text goes to the current assistant bubble; anything
else (a card, a system line, the user's next message) ends that bubble, so
text after a tool card starts a new one below it.

An empty conversation shows a welcome panel (:meth:`set_welcome`): it sits
above everything while nothing but notices is in the view, and goes with the
first message, card or form; clearing the view brings it back.

Signals:
    action_requested(kind: MessageAction, bubble: MessageBubble)
                                a message's Regenerate or Edit was clicked
    resource_requested(server: str, uri: str)
                                a tool card's MCP resource link was clicked
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QWidget

from desktop_agent.texts import Texts
from desktop_agent.ui.chat.action_row import MessageAction
from desktop_agent.ui.chat.bubble import BubbleRole, MessageBubble
from desktop_agent.ui.chat.scroll_column import COLUMN_MAX_WIDTH, HIT_MARGIN, ScrollColumn
from desktop_agent.ui.chat.slot import USER_SHARE, Side
from desktop_agent.ui.chat.slot import Slot as _Slot
from desktop_agent.ui.chat.system_message import SystemMessage

CARD_MAX_WIDTH = 760

__all__ = ["CARD_MAX_WIDTH", "COLUMN_MAX_WIDTH", "HIT_MARGIN", "USER_SHARE", "ChatView", "Side"]


class ChatView(ScrollColumn):
    action_requested = Signal(MessageAction, object)
    resource_requested = Signal(str, str)

    def __init__(self, texts: Texts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.texts = texts
        """The language the column speaks: its messages' and cards' own words."""
        self.setObjectName("chat")
        self._current: MessageBubble | None = None
        self._welcome: _Slot | None = None
        self._insert_at: int | None = None
        """Where :meth:`above` puts what is added (None: at the end)."""

    # ------------------------------------------------------------- adding

    def add_widget(self, widget: QWidget, side: Side = "full") -> QWidget:
        """Append any widget (full width, or at one side); ends the current
        assistant bubble."""
        self.end_bubble()
        index = self._layout.count() - 1  # before the trailing stretch
        if self._insert_at is not None:
            index, self._insert_at = self._insert_at, self._insert_at + 1
        self._layout.insertWidget(index, _Slot(widget, side))
        self._show_welcome()
        return widget

    def set_welcome(self, panel: QWidget) -> None:
        """The panel an empty conversation shows (replacing any before)."""
        if self._welcome is not None:
            self._layout.removeWidget(self._welcome)
            self._welcome.deleteLater()
        self._welcome = _Slot(panel, "center")
        self._layout.insertWidget(0, self._welcome)
        self._show_welcome()

    @property
    def welcome(self) -> QWidget | None:
        """The welcome panel, if one was set (shown or not)."""
        return self._welcome.widget if self._welcome is not None else None

    def _show_welcome(self) -> None:
        if self._welcome is not None:
            self._welcome.setVisible(not any(_is_message(w) for w in self._widgets()))

    def add_user(self, text: str) -> MessageBubble:
        bubble = MessageBubble("user", text, texts=self.texts)
        bubble.action_requested.connect(lambda kind: self.action_requested.emit(kind, bubble))
        if self._insert_at is None:  # the user's own message always scrolls into view
            self._stick, self._target = True, None
        self.add_widget(bubble, "right")
        return bubble

    def add_assistant_text(self, text: str, *, new_paragraph: bool = False) -> MessageBubble | None:
        """Append display text (a segment's ``text``: no control tags, its
        whitespace kept) to the current assistant bubble, or a new one.

        ``new_paragraph``: the first text of a new agent round; the bubble
        puts a blank line before it so the rounds never run together.
        Blank text (a round's last segment may be only whitespace, or empty
        where the round ended with ``<need_tool>``) opens no bubble: None.
        """
        if self._current is None:
            if not text.strip():
                return None
            bubble = MessageBubble("assistant", texts=self.texts)
            bubble.action_requested.connect(lambda kind: self.action_requested.emit(kind, bubble))
            self.add_widget(bubble)
            self._current = bubble
        self._current.append(text, new_paragraph=new_paragraph)
        return self._current

    def add_notice(self, role: BubbleRole, text: str | Callable[[Texts], str]) -> MessageBubble:
        """A warning or error (Markdown); given as a function, its text in
        the current language, said again on a language switch."""
        if callable(text):
            return self._add_bubble(MessageBubble(role, texts=self.texts, wording=text))
        return self._add_bubble(MessageBubble(role, text, texts=self.texts))

    def add_system(self, text: str, *, key: str | None = None, **fields: object) -> SystemMessage:
        """A system line; ``key`` (with ``fields``): the UI text it is, so it
        follows a language switch (plain app texts are recognised anyway)."""
        line = SystemMessage(text, key=key, fields=fields)
        self.add_widget(line)
        return line

    def retranslate(self, texts: Texts) -> None:
        """The app's own words on every message, card and form again in
        ``texts``' language (Settings → Appearance): each widget that has
        some says so with a ``retranslate(texts)``; what the user and the
        model wrote stays as written. What is added later speaks it too."""
        self.texts = texts
        for widget in self.items():
            retranslate = getattr(widget, "retranslate", None)
            if callable(retranslate):
                retranslate(texts)

    def add_card(self, card: QWidget) -> QWidget:
        card.setMaximumWidth(CARD_MAX_WIDTH)
        return self.add_widget(card, "left")

    def _add_bubble(self, bubble: MessageBubble) -> MessageBubble:
        self.add_widget(bubble)
        return bubble

    def move_to_end(self, widgets: Sequence[QWidget]) -> None:
        """Move these messages, in this order, below all the others (what
        the user sent while the earlier conversation was still loading)."""
        self.end_bubble()
        for widget in widgets:
            slot = widget.parentWidget()
            if isinstance(slot, _Slot) and self._layout.indexOf(slot) >= 0:
                self._layout.removeWidget(slot)
                self._layout.insertWidget(self._layout.count() - 1, slot)

    def clear(self) -> None:
        """Remove every message (a new conversation); the welcome comes back."""
        self.end_bubble()
        keep = 1 if self._welcome is None else 2  # the trailing stretch, the welcome
        while self._layout.count() > keep:
            item = self._layout.takeAt(keep - 1)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self._reset_scroll()
        self._show_welcome()

    def remove_from(self, widget: QWidget) -> None:
        """Remove this message and every one below it (the last exchange,
        taken back for Regenerate or Edit)."""
        self.end_bubble()
        slot = widget.parentWidget()
        start = self._layout.indexOf(slot) if isinstance(slot, _Slot) else -1
        if start < 0:
            return
        while self._layout.count() - 1 > start:  # the trailing stretch stays
            item = self._layout.takeAt(start)
            gone = item.widget() if item is not None else None
            if gone is not None:
                gone.hide()
                gone.deleteLater()
        self._show_welcome()

    def last_user_bubble(self) -> MessageBubble | None:
        """The user's last message (while drawing :meth:`above`: the last one above the point drawn at)."""
        return next((w for w in self._widgets(self._insert_at, backwards=True)
                     if isinstance(w, MessageBubble) and w.role == "user"), None)

    # ------------------------------------------------------ drawing above

    @contextmanager
    def above(self, widget: QWidget) -> Iterator[None]:
        """What is added inside goes just above ``widget`` (a message on
        screen), in the order added: earlier messages, drawn as the reader
        scrolls up. The reader's place stays put: what was in view stays
        where it was in the view while the new messages settle their
        heights. A reply streaming at the end meanwhile keeps its bubble."""
        slot = widget.parentWidget()
        index = self._layout.indexOf(slot) if isinstance(slot, _Slot) else -1
        if index < 0:
            raise ValueError("above(): the widget is not a message in this view")
        assert isinstance(slot, _Slot)
        current, self._current = self._current, None
        self.hold(slot)
        self._insert_at = index
        try:
            yield
        finally:
            self.end_bubble()
            self._insert_at, self._current = None, current
            QTimer.singleShot(0, self, self._after_layout)

    def offer_actions(self, can_redo: bool, *, editing: bool = False) -> None:
        """Offer Regenerate on the last reply and Edit on the user's last
        message (``can_redo``: no turn runs), nothing on the others. The
        last exchange keeps its actions in sight; a turn that ended without
        a reply offers Regenerate on the user's message.

        Only the bubbles whose actions change are touched (mostly the last
        exchange before and after): this runs as each turn starts and ends,
        and setting the actions of all 500 bubbles of a long conversation
        held the window up for ~30 ms."""
        items = self.items()
        user = self.last_user_bubble()
        after = items[items.index(user) + 1 :] if user is not None else []
        reply = next((w for w in reversed(after) if isinstance(w, MessageBubble) and w.role == "assistant"), None)
        for bubble in items:
            if not isinstance(bubble, MessageBubble) or bubble.action_row is None:
                continue
            if bubble is user:
                offer = (can_redo and reply is None, can_redo, editing)
            else:
                offer = (can_redo and bubble is reply, False, False)
            if bubble.offered != offer:
                bubble.offer_actions(regenerate=offer[0], edit=offer[1], editing=offer[2])
            pinned = can_redo and (bubble is reply or bubble is user)
            if bubble.pinned != pinned:
                bubble.pin_actions(pinned)

    # ------------------------------------------------------------- reading

    def items(self, stop: int | None = None) -> list[QWidget]:
        """The widgets in order, for tests and screenshots (up to the layout's item ``stop``)."""
        return list(self._widgets(stop))

    def _widgets(self, stop: int | None = None, *, backwards: bool = False) -> Iterator[QWidget]:
        """The widgets in order (``backwards``: from the last), read as
        they are asked for: what needs only the first message or the
        user's last one reads a few of a long conversation's 500, not all
        (a turn's start asked for all of them several times, ~10 ms)."""
        count = self._layout.count() if stop is None else stop
        for i in range(count - 1, -1, -1) if backwards else range(count):
            item = self._layout.itemAt(i)
            widget = item.widget() if item is not None else None
            if widget is None or widget is self._welcome:
                continue
            yield widget.widget if isinstance(widget, _Slot) else widget

    def end_bubble(self) -> None:
        """The current assistant bubble is complete; the next assistant text
        starts a new one."""
        if self._current is not None:
            self._current.finish()
        self._current = None

def _is_message(widget: QWidget) -> bool:
    """What ends the welcome: a message, a card or a form (not a notice or
    a system line: start-up warnings sit below the welcome)."""
    if isinstance(widget, MessageBubble):
        return widget.role in ("user", "assistant")
    return not isinstance(widget, SystemMessage)
