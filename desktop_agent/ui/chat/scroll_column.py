"""The scrolling column the chat's messages sit in (:class:`ScrollColumn`,
which :class:`~desktop_agent.ui.chat.chat_view.ChatView` fills): where the
reader is, and keeping it there.

It stays at the bottom while new content arrives unless the reader scrolled
up; a message scrolled to (a search hit) is kept in view while the messages
just drawn settle their heights; messages put above the one in view
(:meth:`ScrollColumn.hold`) leave it where it was. Near the top it asks for
earlier messages (:meth:`ScrollColumn.set_earlier`); a restore measures what
it draws against the view (:meth:`ScrollColumn.measure`,
:meth:`ScrollColumn.fill_height`). The messages are at most
:data:`COLUMN_MAX_WIDTH` wide, centred in a wider view.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QPoint, Qt, QTimer
from PySide6.QtGui import QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QApplication, QFrame, QScrollArea, QStyle, QStyleOption, QVBoxLayout, QWidget
from shiboken6 import isValid

from desktop_agent.ui.chat.slot import Slot

COLUMN_MAX_WIDTH = 860
"""The widest the column of messages gets (about 50 em of text): a wide
window centres it, with empty space each side, rather than stretching a
reply's lines across 1,900 px; a narrower view uses its whole width."""
SIDE_MARGIN = 14
SETTLE_MS = 3000
HIT_MARGIN = 12
"""Space kept above a search hit taller than the view."""
NEAR_TOP = 0.25
"""Earlier messages are drawn (:meth:`ScrollColumn.set_earlier`) once the
reader is within this share of a view's height of the top."""
LAYOUT_WAITS = 5
"""Event-loop passes :meth:`ScrollColumn.set_earlier`'s drawing waits for a pending layout."""
UNSHOWN_SIZE = (800, 600)
"""The view's size assumed while it is not shown (what a restore fills)."""


class ColumnContent(QWidget):
    """The widget the messages sit in: opaque and static, so that scrolling
    copies what is drawn instead of repainting the view.

    Qt moves a scrolled widget by copying its pixels (painting only the
    strip that comes into view) only when the widget paints all of itself
    (``WA_OpaquePaintEvent``); otherwise every scroll repaints every message
    in view. Static contents: when the column grows (a reply streaming at
    its end), only the new part is painted, not the whole view again (its
    slots and bubbles are static too: ``slot.py``, ``bubble.py``)."""

    def __init__(self) -> None:
        super().__init__()
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.setAttribute(Qt.WidgetAttribute.WA_StaticContents)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.fillRect(event.rect(), self.palette().window())
        option = QStyleOption()
        option.initFrom(self)
        self.style().drawPrimitive(QStyle.PrimitiveElement.PE_Widget, option, painter, self)  # the theme's background
        painter.end()


class ScrollColumn(QScrollArea):
    """A column of message slots (``self._layout``, a trailing stretch last)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        content = ColumnContent()
        content.setObjectName("chatContent")
        self._layout = QVBoxLayout(content)
        self._layout.setContentsMargins(SIDE_MARGIN, 12, SIDE_MARGIN, 12)
        self._layout.setSpacing(10)
        self._layout.addStretch(1)
        # The column is at least as tall as its messages, at once: a message
        # that grew must not squeeze the others until the scroll area has
        # resized the column (moving all 500 of them, twice, per segment).
        self._layout.setSizeConstraint(QVBoxLayout.SizeConstraint.SetMinimumSize)
        self.setWidget(content)
        self._stick = True
        self._target: QWidget | None = None
        """A message scrolled to, kept in view while the layout settles."""
        self._centre = False
        """Centre the target (a search hit) rather than just bring it into view."""
        self._focus: tuple[QWidget, int] | None = None
        """Within a target taller than the view: the part to show (a label, a y in it)."""
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

    def hold(self, slot: QWidget) -> None:
        """Messages are about to go above ``slot``: while they settle, what
        is in view stays where it is (unless the reader is at the bottom,
        which stays the bottom, or a message scrolled to leads)."""
        if not self._stick and self._target is None and self._anchor is None:  # (one set meanwhile still holds)
            self._anchor = (slot, slot.y() - self.verticalScrollBar().value())
            self._settle.start()

    def _reset_scroll(self) -> None:
        """The column was emptied: at the bottom, nothing held or asked for."""
        self._stick, self._target, self._anchor, self._earlier = True, None, None, None

    def measure(self, widget: QWidget) -> int:
        """The height ``widget`` (a message in this view) takes at the
        view's width, now, with the spacing below it: a restore draws until
        what it drew fills the view (:meth:`fill_height`)."""
        slot = widget.parentWidget()
        if not isinstance(slot, Slot):
            return 0
        margins = self._layout.contentsMargins()
        width = self.viewport().width() if self.isVisible() else UNSHOWN_SIZE[0]
        bar = self.verticalScrollBar()
        if bar.isHidden():  # what is drawn to fill the view overflows it: the bar will take its width
            width -= bar.sizeHint().width()
        widget.ensurePolished()  # the theme's fonts and padding, as it will be drawn
        return slot.measure(max(width - margins.left() - margins.right(), 1)) + self._layout.spacing()

    def fill_height(self) -> int:
        """The height a restore fills: the view's (an assumed one while not shown)."""
        return self.viewport().height() if self.isVisible() else UNSHOWN_SIZE[1]

    def set_earlier(self, draw: Callable[[], None] | None) -> None:
        """``draw`` puts earlier messages above the first shown (``ChatView.above``); it
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
            self._follow(maximum)
        self._want_earlier()

    def _follow(self, maximum: int) -> None:
        """Scroll to the new bottom, by copying what is drawn.

        What changed since the last paint (the growing reply's new text) is
        painted first, where it is: Qt copies no pixels that wait to be
        painted, and would repaint the whole view instead (~6 ms a segment
        for a view of messages); this way a segment paints its own strip,
        and the scroll copies the rest and paints the strip it uncovers."""
        bar = self.verticalScrollBar()
        if 0 < maximum - bar.value() < self.viewport().height() and self.isVisible():  # (further: nothing to copy)
            QApplication.sendPostedEvents(self.window(), QEvent.Type.UpdateRequest)
        bar.setValue(maximum)

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
