"""The conversation: a scrolling column of bubbles, cards and forms.

It stays at the bottom while new content arrives unless the user scrolled
up to read. Assistant text goes to the current assistant bubble; anything
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

from PySide6.QtCore import QEvent, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QScrollArea, QVBoxLayout, QWidget
from shiboken6 import isValid

from desktop_agent.texts import Texts
from desktop_agent.ui.chat.action_row import MessageAction
from desktop_agent.ui.chat.bubble import BubbleRole, MessageBubble, SystemMessage
from desktop_agent.ui.chat.slot import USER_SHARE, Side
from desktop_agent.ui.chat.slot import Slot as _Slot
from desktop_agent.ui.chat.text_pace import TextPace

CARD_MAX_WIDTH = 760
COLUMN_MAX_WIDTH = 860
"""The widest the column of messages gets (about 50 em of text): a wide
window centres it, with empty space each side, rather than stretching a
reply's lines across 1,900 px; a narrower view uses its whole width."""
SIDE_MARGIN = 14
SETTLE_MS = 3000
HIT_MARGIN = 12
"""Space kept above a search hit taller than the view."""
NEAR_TOP = 0.25
"""Earlier messages are drawn (:meth:`ChatView.set_earlier`) once the
reader is within this share of a view's height of the top."""
LAYOUT_WAITS = 5
"""Event-loop passes :meth:`ChatView.set_earlier`'s drawing waits for a pending layout."""
UNSHOWN_SIZE = (800, 600)
"""The view's size assumed while it is not shown (what a restore fills)."""

__all__ = ["CARD_MAX_WIDTH", "COLUMN_MAX_WIDTH", "HIT_MARGIN", "USER_SHARE", "ChatView", "Side"]


class ChatView(QScrollArea):
    action_requested = Signal(MessageAction, object)
    resource_requested = Signal(str, str)

    def __init__(self, texts: Texts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.texts = texts
        """The language the column speaks: its messages' and cards' own words."""
        self.setObjectName("chat")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        content = QWidget()
        content.setObjectName("chatContent")
        self._layout = QVBoxLayout(content)
        self._layout.setContentsMargins(SIDE_MARGIN, 12, SIDE_MARGIN, 12)
        self._layout.setSpacing(10)
        self._layout.addStretch(1)
        self.setWidget(content)
        self._current: MessageBubble | None = None
        self._pace = TextPace(self)
        self._welcome: _Slot | None = None
        self._stick = True
        self._target: QWidget | None = None
        """A message scrolled to, kept in view while the layout settles."""
        self._centre = False
        """Centre the target (a search hit) rather than just bring it into view."""
        self._focus: tuple[QWidget, int] | None = None
        """Within a target taller than the view: the part to show (a label, a y in it)."""
        self._insert_at: int | None = None
        """Where :meth:`above` puts what is added (None: at the end)."""
        self._anchor: tuple[QWidget, int] | None = None
        """What the reader was looking at (a slot, its distance from the view's
        top) when messages were put above it: kept there while they settle."""
        self._earlier: Callable[[], None] | None = None
        self._earlier_posted = False
        self._settle = QTimer(self)  # the view's: a single shot aimed at a message may outlive it
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._settle.timeout.connect(self._settled)
        bar = self.verticalScrollBar()
        bar.valueChanged.connect(self._on_scrolled)
        bar.rangeChanged.connect(self._on_range)
        bar.actionTriggered.connect(self._user_scrolled)

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
            self._welcome.setVisible(not any(_is_message(w) for w in self.items()))

    def add_user(self, text: str) -> MessageBubble:
        bubble = MessageBubble("user", text, texts=self.texts)
        bubble.action_requested.connect(lambda kind: self.action_requested.emit(kind, bubble))
        if self._insert_at is None:  # the user's own message always scrolls into view
            self._stick, self._target = True, None
        self.add_widget(bubble, "right")
        return bubble

    def add_assistant_text(
        self, text: str, *, new_paragraph: bool = False, paced: bool = False
    ) -> MessageBubble | None:
        """Append display text (a segment's ``text``: no control tags, its
        whitespace kept) to the current assistant bubble, or a new one.

        ``new_paragraph``: the first text of a new agent round; the bubble
        puts a blank line before it so the rounds never run together.
        Blank text (a round's last segment may be only whitespace, or empty
        where the round ended with ``<need_tool>``) opens no bubble: None.
        ``paced``: a live stream's text, drawn at most once a frame
        (:mod:`~desktop_agent.ui.chat.text_pace`); the bubble has it all once it ends.
        """
        if self._current is None:
            if not text.strip():
                return None
            bubble = MessageBubble("assistant", texts=self.texts)
            bubble.action_requested.connect(lambda kind: self.action_requested.emit(kind, bubble))
            self.add_widget(bubble)
            self._current = bubble
        if paced:
            self._pace.append(self._current, text, new_paragraph)
        else:
            self._pace.flush()
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
        self._stick, self._target, self._anchor, self._earlier = True, None, None, None
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
        items = self.items() if self._insert_at is None else self.items(self._insert_at)
        return next((w for w in reversed(items) if isinstance(w, MessageBubble) and w.role == "user"), None)

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
        if not self._stick and self._target is None and self._anchor is None:  # (one set meanwhile still holds)
            self._anchor = (slot, slot.y() - self.verticalScrollBar().value())
            self._settle.start()
        self._insert_at = index
        try:
            yield
        finally:
            self.end_bubble()
            self._insert_at, self._current = None, current
            QTimer.singleShot(0, self, self._after_layout)

    def measure(self, widget: QWidget) -> int:
        """The height ``widget`` (a message in this view) takes at the
        view's width, now, with the spacing below it: a restore draws until
        what it drew fills the view (:meth:`fill_height`)."""
        slot = widget.parentWidget()
        if not isinstance(slot, _Slot):
            return 0
        margins = self._layout.contentsMargins()
        width = self.viewport().width() if self.isVisible() else UNSHOWN_SIZE[0]
        widget.ensurePolished()  # the theme's fonts and padding, as it will be drawn
        return slot.measure(max(width - margins.left() - margins.right(), 1)) + self._layout.spacing()

    def fill_height(self) -> int:
        """The height a restore fills: the view's (an assumed one while not shown)."""
        return self.viewport().height() if self.isVisible() else UNSHOWN_SIZE[1]

    def set_earlier(self, draw: Callable[[], None] | None) -> None:
        """``draw`` puts earlier messages :meth:`above` the first shown; it
        is called (one call per event-loop pass) while the reader is near
        the top (:data:`NEAR_TOP`), or the messages do not fill the view,
        until it is replaced by None (nothing earlier) or the view is cleared."""
        self._earlier = draw
        self._want_earlier()

    def _want_earlier(self) -> None:
        if self._earlier is None or self._earlier_posted:
            return
        if self.verticalScrollBar().value() <= self.fill_height() * NEAR_TOP:
            self._earlier_posted = True
            QTimer.singleShot(0, self, lambda: self._draw_earlier(LAYOUT_WAITS))

    def _draw_earlier(self, waits: int) -> None:
        content = self.widget()
        if content is not None and content.height() < content.sizeHint().height() and waits > 0:
            # What was just drawn is not laid out yet: the scroll position is
            # stale (a pass or two; the range change that follows asks again).
            QTimer.singleShot(0, self, lambda: self._draw_earlier(waits - 1))
            return
        self._earlier_posted = False
        if self._earlier is not None and self.verticalScrollBar().value() <= self.fill_height() * NEAR_TOP:
            self._earlier()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._want_earlier()  # a taller view may show the top

    def viewportEvent(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self._centre_column()
        return super().viewportEvent(event)

    def _centre_column(self) -> None:
        """At most :data:`COLUMN_MAX_WIDTH` of messages, centred in the view
        (the view's width changes with the window and the scroll bar)."""
        side = max(SIDE_MARGIN, (self.viewport().width() - COLUMN_MAX_WIDTH) // 2)
        margins = self._layout.contentsMargins()
        if (margins.left(), margins.right()) != (side, side):
            self._layout.setContentsMargins(side, margins.top(), side, margins.bottom())

    def offer_actions(self, can_redo: bool, *, editing: bool = False) -> None:
        """Offer Regenerate on the last reply and Edit on the user's last
        message (``can_redo``: no turn runs), nothing on the others. The
        last exchange keeps its actions in sight; a turn that ended without
        a reply offers Regenerate on the user's message."""
        items = self.items()
        bubbles = [w for w in items if isinstance(w, MessageBubble) and w.action_row is not None]
        user = self.last_user_bubble()
        after = items[items.index(user) + 1 :] if user is not None else []
        reply = next((w for w in reversed(after) if isinstance(w, MessageBubble) and w.role == "assistant"), None)
        for bubble in bubbles:
            if bubble is user:
                bubble.offer_actions(regenerate=can_redo and reply is None, edit=can_redo, editing=editing)
            else:
                bubble.offer_actions(regenerate=can_redo and bubble is reply, edit=False)
            bubble.pin_actions(can_redo and (bubble is reply or bubble is user))

    # ------------------------------------------------------------- reading

    def items(self, stop: int | None = None) -> list[QWidget]:
        """The widgets in order, for tests and screenshots (up to the layout's item ``stop``)."""
        out: list[QWidget] = []
        for i in range(self._layout.count() if stop is None else stop):
            item = self._layout.itemAt(i)
            widget = item.widget() if item is not None else None
            if widget is self._welcome:
                continue
            if isinstance(widget, _Slot):
                out.append(widget.widget)
            elif widget is not None:
                out.append(widget)
        return out

    def end_bubble(self) -> None:
        """The current assistant bubble is complete; the next assistant text
        starts a new one."""
        self._pace.flush()
        if self._current is not None:
            self._current.finish()
        self._current = None

    # ------------------------------------------------------------ scrolling

    def _on_scrolled(self, value: int) -> None:
        bar = self.verticalScrollBar()
        self._stick = value >= bar.maximum() - 8
        self._want_earlier()

    def _on_range(self, _minimum: int, maximum: int) -> None:
        if self._target is not None:
            self._reveal()
        elif self._anchor is not None:
            self._hold_anchor()
        elif self._stick:
            self.verticalScrollBar().setValue(maximum)
        self._want_earlier()

    def _hold_anchor(self) -> None:
        anchor = self._anchor
        if anchor is None or not isValid(anchor[0]):
            self._anchor = None
            return
        slot, offset = anchor
        self.verticalScrollBar().setValue(slot.y() - offset)

    def _user_scrolled(self, _action: int) -> None:
        self._target = self._anchor = None  # the wheel, keys or the bar: the reader leads now

    def scroll_to_widget(
        self, widget: QWidget, *, centre: bool = False, focus: tuple[QWidget, int] | None = None
    ) -> None:
        """Bring a message into view and keep it there while the messages
        just drawn settle their heights (slots measure themselves over the
        next layout passes). ``centre``: a search hit, shown whole
        in the middle, or, when it is taller than the view, from its top or
        (``focus``: a child and a y in it, where the match is) around that."""
        self._stick, self._anchor = False, None
        self._target, self._centre, self._focus = widget, centre, focus
        self._settle.start()
        self._reveal()
        QTimer.singleShot(0, self, self._after_layout)

    def _after_layout(self) -> None:
        # Posted behind the layout requests of the messages just drawn: by
        # now their heights are measured, even where the range did not move.
        if self._target is not None:
            self._reveal()
        elif self._anchor is not None:
            self._hold_anchor()

    def _reveal(self) -> None:
        widget = self._target
        if widget is None or not isValid(widget):
            self._target = None  # the message was removed meanwhile (its C++ side is gone)
            return
        if not self._centre:
            self.ensureWidgetVisible(widget, 0, 40)
            return
        content = self.widget()
        if content is None:
            return
        top = widget.mapTo(content, QPoint(0, 0)).y()
        height, view = widget.height(), self.viewport().height()
        fits = height <= view - 2 * HIT_MARGIN
        value = top + (height - view) // 2 if fits else top - HIT_MARGIN
        focus = self._focus
        if not fits and focus is not None and isValid(focus[0]):
            at = focus[0].mapTo(content, QPoint(0, focus[1])).y()
            value = max(value, min(at - view // 2, top + height + HIT_MARGIN - view))  # the match centred
        self.verticalScrollBar().setValue(value)

    def _settled(self) -> None:
        self._target = self._anchor = None

    def scroll_to_bottom(self) -> None:
        self._stick, self._target, self._anchor = True, None, None
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())


def _is_message(widget: QWidget) -> bool:
    """What ends the welcome: a message, a card or a form (not a notice or
    a system line: start-up warnings sit below the welcome)."""
    if isinstance(widget, MessageBubble):
        return widget.role in ("user", "assistant")
    return not isinstance(widget, SystemMessage)
