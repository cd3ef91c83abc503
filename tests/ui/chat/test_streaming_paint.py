"""A reply streaming at the bottom of a long conversation paints only what
changed: the view follows the bottom by copying what is drawn, and the
messages above the growing reply are not painted again."""

from __future__ import annotations

from collections import Counter

import pytest
from PySide6.QtCore import QEvent, QObject, QPoint, QRect
from PySide6.QtGui import QImage, QPaintEvent, QRegion
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from desktop_agent.texts import ENGLISH
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.chat_view import ChatView
from desktop_agent.ui.common.theme import apply_theme

BODY = (
    "Here is **what I found**:\n\n- the first point, with `code`\n- the second point\n\n"
    + "The quick brown fox jumps over the lazy dog. " * 3
)
REPLY = "".join(
    f"Sentence {i} of the reply, which runs on for a while so that it wraps. "
    + ("\n\n" if i % 4 == 3 else "") + ("- a point\n- another point\n\n" if i % 9 == 8 else "")
    for i in range(40)
)


def _segments(text: str) -> list[str]:
    """The reply cut after each sentence, as the stream parser cuts it."""
    parts = text.split(". ")
    return [part + ". " for part in parts[:-1]] + [parts[-1]]


class PaintSpy(QObject):
    """Paint events reaching the widgets inside ``root``: how many each
    got, and the area painted of each."""

    def __init__(self, root: QWidget) -> None:
        super().__init__()
        self._root = root
        self.painted: Counter[int] = Counter()
        self.area: Counter[int] = Counter()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (event.type() == QEvent.Type.Paint and isinstance(watched, QWidget)
                and isinstance(event, QPaintEvent) and self._root.isAncestorOf(watched)):
            self.painted[id(watched)] += 1
            for rect in event.region():  # type: ignore[attr-defined]  # (iterable at run time: its rectangles)
                self.area[id(watched)] += rect.width() * rect.height()
        return False

    def clear(self) -> None:
        self.painted.clear()
        self.area.clear()


def _settle() -> None:
    for _ in range(4):
        QApplication.processEvents()


def _long_chat(qtbot: QtBot) -> ChatView:
    chat = ChatView(ENGLISH)
    qtbot.add_widget(chat)
    apply_theme(chat)
    chat.resize(700, 500)
    chat.show()
    for i in range(20):
        chat.add_user(f"Question number {i}: what about the fox?")
        chat.add_assistant_text(BODY)
        chat.end_bubble()
    _settle()
    return chat


def _in_view(chat: ChatView, widget: QWidget) -> bool:
    viewport = chat.viewport()
    top = widget.mapTo(viewport, QPoint(0, 0)).y()
    return top < viewport.height() and top + widget.height() > 0


def test_a_streamed_segment_does_not_repaint_the_messages_above_the_reply(qtbot: QtBot) -> None:
    chat = _long_chat(qtbot)
    spy = PaintSpy(chat)
    QApplication.instance().installEventFilter(spy)  # type: ignore[union-attr]
    try:
        reply: MessageBubble | None = None
        view_area = chat.viewport().width() * chat.viewport().height()
        seen_above = 0
        for n, segment in enumerate(_segments(REPLY)):
            spy.clear()
            reply = chat.add_assistant_text(segment)
            _settle()
            if n < 2:
                continue  # the reply's first segments: its bubble is new
            assert reply is not None
            above = [w for w in chat.items()[:-1] if _in_view(chat, w)]
            seen_above += bool(above)
            assert [w for w in above if spy.painted[id(w)]] == []
            # What was painted in all (the column under everything): a strip, not the view.
            assert spy.area[id(chat.widget())] < view_area // 2
        assert seen_above >= 3  # the messages above were in view until the reply filled it
    finally:
        QApplication.instance().removeEventFilter(spy)  # type: ignore[union-attr]


def test_the_view_shows_the_last_line_after_each_segment(qtbot: QtBot) -> None:
    chat = _long_chat(qtbot)
    bar = chat.verticalScrollBar()
    viewport = chat.viewport()
    for segment in _segments(REPLY):
        reply = chat.add_assistant_text(segment)
        _settle()
        assert reply is not None
        assert bar.value() == bar.maximum() > 0
        bottom = reply.mapTo(viewport, QPoint(0, reply.height())).y()
        assert 0 < bottom <= viewport.height()
        last = reply.label if reply.label.isVisible() else reply.blocks[-1]
        assert last.mapTo(viewport, QPoint(0, last.height())).y() <= viewport.height()


def _on_screen(widget: QWidget) -> QImage:
    """What the window's backing store holds: the pixels as painted, bit by bit."""
    screen = widget.screen()
    return screen.grabWindow(widget.winId()).toImage().convertToFormat(QImage.Format.Format_RGB32)


@pytest.mark.parametrize("scrolled_up", [False, True])
def test_a_streamed_reply_looks_as_the_whole_view_drawn_afresh(qtbot: QtBot, scrolled_up: bool) -> None:
    chat = _long_chat(qtbot)
    if scrolled_up:  # the reader is further up: the reply grows out of sight, the view stays
        bar = chat.verticalScrollBar()
        bar.setValue(bar.maximum() - 150)
        _settle()
    for segment in _segments(REPLY):
        chat.add_assistant_text(segment)
        _settle()
    chat.end_bubble()
    _settle()
    fresh = chat.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    painted = _on_screen(chat)
    assert painted.size() == fresh.size()
    assert painted == fresh  # nothing left over from an earlier frame (a bubble's old bottom edge)


def test_a_grown_bubble_repaints_its_old_bottom_edge(qtbot: QtBot) -> None:
    holder = QWidget()
    qtbot.add_widget(holder)
    holder.resize(320, 200)
    bubble = MessageBubble("assistant", "One line.", holder, texts=ENGLISH)
    bubble.setGeometry(0, 0, 300, 60)
    holder.show()
    _settle()
    painted = QRegion()

    class Spy(QObject):
        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            nonlocal painted
            if watched is bubble and isinstance(event, QPaintEvent):
                painted = painted.united(event.region())
            return False

    spy = Spy()
    bubble.installEventFilter(spy)
    bubble.resize(300, 100)
    _settle()
    edge_and_new = QRect(0, 50, 300, 50)  # the old bottom's 10 px rounded corners, and the new part
    assert painted.intersected(edge_and_new) == QRegion(edge_and_new)
    assert painted.intersected(QRect(0, 0, 300, 8)).isEmpty()  # its top, above the text, stays as drawn


class _Paints(QObject):
    """The heights a widget was painted at."""

    def __init__(self) -> None:
        super().__init__()
        self.heights: list[int] = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and isinstance(watched, QWidget):
            self.heights.append(watched.height())
        return False


def test_the_growing_paragraph_is_painted_once_a_segment_at_its_new_height(qtbot: QtBot) -> None:
    """A segment that wraps the last paragraph onto a new line gives it its
    new height before anything paints, so it is painted once, as it ends
    up; not first in its old place and then again a pass later."""
    chat = _long_chat(qtbot)
    first = chat.add_assistant_text("The reply starts. ")
    assert first is not None
    _settle()
    spy = _Paints()
    first.label.installEventFilter(spy)
    paints: list[list[int]] = []
    for segment in ["The quick brown fox jumps over the lazy dog. "] * 24:
        assert chat.add_assistant_text(segment) is first
        before = len(spy.heights)
        _settle()
        paints.append(spy.heights[before:])
    assert len({h for segment in paints for h in segment}) >= 4  # it wrapped onto new lines meanwhile
    assert all(len(segment) == 1 for segment in paints), paints
    assert paints[-1] == [first.label.height()]
