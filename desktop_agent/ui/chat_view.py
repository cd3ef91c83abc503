"""The conversation: a scrolling column of bubbles, cards and forms.

It stays at the bottom while new content arrives unless the user scrolled
up to read. Assistant text goes to the current assistant bubble; anything
else (a card, a system line, the user's next message) ends that bubble, so
text after a tool card starts a new one below it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QScrollArea, QSizePolicy, QVBoxLayout, QWidget

from desktop_agent.ui.bubble import BubbleRole, MessageBubble, SystemMessage

CARD_MAX_WIDTH = 760
USER_SHARE = 0.75
"""A user bubble is at most this share of the view's width."""

Side = Literal["full", "left", "right"]


class _Slot(QWidget):
    """Holds one message widget at a fixed height for the current width.

    Why not put the messages straight into the column's layout: a column of
    word-wrapped labels in a resizable scroll area asks *every* label for
    its height-for-width on each change (measured: ~0.35 ms a message, so
    a reply streaming into 500 messages stalled the loop for 170 ms per
    segment). A slot answers from its cached height, and recomputes only
    when its own widget asks (a ``LayoutRequest``) or the width changes.
    It also places the widget: full width, at the left up to the widget's
    maximum width (cards), or at the right at its preferred width, at most
    ``USER_SHARE`` of the view (user bubbles).
    """

    def __init__(self, widget: QWidget, side: Side) -> None:
        super().__init__()
        widget.setParent(self)
        self.widget = widget
        self._side = side
        self._height = 0
        self._width = -1
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        return QSize(0, self._height)

    def minimumSizeHint(self) -> QSize:
        return QSize(0, self._height)

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            self._fit()
        return super().event(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        if self.width() != self._width:
            self._fit()
        super().resizeEvent(event)

    def _fit(self) -> None:
        available = self._width = self.width()
        widget = self.widget
        if self._side == "right":
            width = min(widget.sizeHint().width(), int(available * USER_SHARE))
        else:
            width = min(available, widget.maximumWidth())
        width = max(width, widget.minimumSizeHint().width() if self._side != "full" else 0, 1)
        height = widget.heightForWidth(width) if widget.hasHeightForWidth() else -1
        if height < 0:
            height = widget.sizeHint().height()
        x = available - width if self._side == "right" else 0
        widget.setGeometry(x, 0, width, height)
        if height != self._height:
            self._height = height
            self.updateGeometry()


class ChatView(QScrollArea):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chat")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        content = QWidget()
        content.setObjectName("chatContent")
        self._layout = QVBoxLayout(content)
        self._layout.setContentsMargins(14, 12, 14, 12)
        self._layout.setSpacing(10)
        self._layout.addStretch(1)
        self.setWidget(content)
        self._current: MessageBubble | None = None
        self._stick = True
        bar = self.verticalScrollBar()
        bar.valueChanged.connect(self._on_scrolled)
        bar.rangeChanged.connect(self._on_range)

    # ------------------------------------------------------------- adding

    def add_widget(self, widget: QWidget, side: Side = "full") -> QWidget:
        """Append any widget (full width, or at one side); ends the current
        assistant bubble."""
        self.end_bubble()
        index = self._layout.count() - 1  # before the trailing stretch
        self._layout.insertWidget(index, _Slot(widget, side))
        return widget

    def add_user(self, text: str) -> MessageBubble:
        bubble = MessageBubble("user", text)
        self._stick = True  # the user's own message always scrolls into view
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
            bubble = MessageBubble("assistant")
            self.add_widget(bubble)
            self._current = bubble
        self._current.append(text, new_paragraph=new_paragraph)
        return self._current

    def add_notice(self, role: BubbleRole, text: str) -> MessageBubble:
        return self._add_bubble(MessageBubble(role, text))

    def add_system(self, text: str) -> SystemMessage:
        line = SystemMessage(text)
        self.add_widget(line)
        return line

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
        """Remove every message (a new conversation)."""
        self.end_bubble()
        while self._layout.count() > 1:  # keep the trailing stretch
            item = self._layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self._stick = True

    # ------------------------------------------------------------- reading

    def items(self) -> list[QWidget]:
        """The widgets in order, for tests and screenshots."""
        out: list[QWidget] = []
        for i in range(self._layout.count()):
            item = self._layout.itemAt(i)
            widget = item.widget() if item is not None else None
            if isinstance(widget, _Slot):
                out.append(widget.widget)
            elif widget is not None:
                out.append(widget)
        return out

    def end_bubble(self) -> None:
        """The current assistant bubble is complete; the next assistant text
        starts a new one."""
        if self._current is not None:
            self._current.finish()
        self._current = None

    # ------------------------------------------------------------ scrolling

    def _on_scrolled(self, value: int) -> None:
        bar = self.verticalScrollBar()
        self._stick = value >= bar.maximum() - 8

    def _on_range(self, _minimum: int, maximum: int) -> None:
        if self._stick:
            self.verticalScrollBar().setValue(maximum)

    def scroll_to_bottom(self) -> None:
        self._stick = True
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())
