"""Opening a long conversation draws only what fills the view: its last
turns, then earlier ones above as the reader scrolls up, in order, the
message in view staying where it was; a search hit in the oldest part is
drawn, shown and marked."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QAbstractSlider, QApplication, QLabel, QWidget
from pytestqt.qtbot import QtBot

from desktop_agent.storage.conversation_events import events_from_history, items_of
from desktop_agent.storage.conversations import ConversationStore
from desktop_agent.storage.history_json import history_items
from desktop_agent.texts import ENGLISH
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.chat_view import ChatView
from desktop_agent.ui.conversations.restore import FILL, restore, turn_starts
from tests.ui.conversations.test_restore import describe
from tests.ui.conversations.test_restore_window import TURNS, long_history, settled
from tests.ui.conversations.test_sidebar import _window as sidebar_window


def _drain(done: Callable[[], bool], timeout_s: float = 30) -> None:
    """Run the Qt event loop (a sync test) until ``done``, bounded."""
    deadline = time.monotonic() + timeout_s
    while not done():
        assert time.monotonic() < deadline, "not done in time"
        QApplication.processEvents()


def _settle(chat: ChatView, passes: int = 5) -> None:
    """Until every message has its height and the scroll stayed put for a few passes."""
    bar, last, still = chat.verticalScrollBar(), -1, 0

    def quiet() -> bool:
        nonlocal last, still
        still = still + 1 if settled(chat) and bar.value() == last else 0
        last = bar.value()
        return still >= passes

    _drain(quiet)


def _shown(qtbot: QtBot, size: tuple[int, int] = (860, 640)) -> ChatView:
    chat = ChatView(ENGLISH)
    qtbot.add_widget(chat)
    chat.resize(*size)
    chat.show()
    qtbot.wait_exposed(chat)
    return chat


def _view_y(chat: ChatView, widget: QWidget) -> int:
    return widget.mapTo(chat.viewport(), QPoint(0, 0)).y()


def _first_in_view(chat: ChatView) -> QWidget:
    return next(w for w in chat.items() if _view_y(chat, w) + w.height() > 0)


def test_opening_a_long_conversation_draws_only_the_last_turns_that_fill_the_view(qtbot: QtBot) -> None:
    events = items_of(events_from_history(history_items(long_history())))
    chat, full = _shown(qtbot), ChatView(ENGLISH)
    qtbot.add_widget(full)
    restore(full, events, from_turn=0)  # every turn at once: the order they must come in

    drawn = restore(chat, events)

    first_paint = chat.items()
    height = sum(chat.measure(w) for w in first_paint)
    assert chat.fill_height() <= height < chat.fill_height() * FILL  # the view and a margin, before it paints
    _settle(chat)  # then the rest, above
    items = chat.items()
    bubbles = [w for w in items if isinstance(w, MessageBubble)]
    assert 8 <= len(bubbles) <= 30 < 2 * TURNS  # one screen and a half of short exchanges, not 120 turns
    assert len(items) > len(first_paint) and items[-len(first_paint):] == first_paint
    assert drawn.first_turn > TURNS - 15 and sorted(drawn.turn_widgets) == list(range(drawn.first_turn, TURNS))
    assert [describe(w) for w in items] == [describe(w) for w in full.items()[-len(items):]]  # in order
    assert isinstance(items[-1], MessageBubble) and items[-1].text() == f"Museum {TURNS - 1} opens at nine."
    assert items[0] is drawn.turn_widgets[drawn.first_turn]  # nothing above: no "earlier" line or button
    bar = chat.verticalScrollBar()
    content = chat.widget()
    assert content is not None
    assert bar.value() == bar.maximum() > 0  # at the end, and the drawn turns fill more than the view
    assert content.height() >= chat.viewport().height() * (FILL - 0.25)
    for _ in range(10):
        QApplication.processEvents()
    assert chat.items() == items and bar.value() == bar.maximum()  # at the bottom: nothing more drawn


def test_the_turns_drawn_after_the_first_paint_keep_the_view_at_the_bottom(qtbot: QtBot) -> None:
    events = items_of(events_from_history(history_items(long_history())))
    chat = _shown(qtbot)
    restore(chat, events)
    first_paint = chat.items()
    bar = chat.verticalScrollBar()
    last = first_paint[-1]
    _drain(lambda: settled(chat))
    seen: list[int] = []

    def bottom_shown() -> bool:  # each pass until more is drawn and laid out: the last message in view
        seen.append(_view_y(chat, last) + last.height() - chat.viewport().height())
        return len(chat.items()) > len(first_paint) and settled(chat) and bar.value() == bar.maximum()

    _drain(bottom_shown)
    _settle(chat)
    assert all(-30 <= gap <= 0 for gap in seen[1:]), seen  # the end stayed at the view's bottom edge
    assert bar.value() == bar.maximum() and _view_y(chat, last) + last.height() <= chat.viewport().height()


def test_scrolling_to_the_top_draws_earlier_turns_in_order_without_moving_what_is_in_view(qtbot: QtBot) -> None:
    events = items_of(events_from_history(history_items(long_history())))
    chat, full = _shown(qtbot), ChatView(ENGLISH)
    qtbot.add_widget(full)
    restore(full, events, from_turn=0)  # every turn at once: what must come out in the end
    drawn = restore(chat, events)
    _settle(chat)
    bar = chat.verticalScrollBar()
    firsts = [drawn.first_turn]
    while drawn.first_turn > 0:
        bar.triggerAction(QAbstractSlider.SliderAction.SliderToMinimum)  # the reader drags the bar to the top
        reading = _first_in_view(chat)
        at = _view_y(chat, reading)
        first = drawn.first_turn
        _drain(lambda: drawn.first_turn < first)  # noqa: B023  # called before the loop goes on
        _settle(chat)
        assert abs(_view_y(chat, reading) - at) <= 2  # what was in view did not move
        assert bar.value() > 0  # the new turns are above the view, to scroll into
        firsts.append(drawn.first_turn)
        assert len(firsts) < TURNS
    assert firsts == sorted(firsts, reverse=True) and len(firsts) > 3  # a view's height at a time
    assert [describe(w) for w in chat.items()] == [describe(w) for w in full.items()]
    assert sorted(drawn.turn_widgets) == list(range(TURNS))
    bar.triggerAction(QAbstractSlider.SliderAction.SliderToMinimum)
    count = len(chat.items())
    for _ in range(10):
        QApplication.processEvents()
    assert len(chat.items()) == count  # nothing more to draw


def test_earlier_turns_are_drawn_above_a_reply_still_streaming_at_the_end(qtbot: QtBot) -> None:
    events = items_of(events_from_history(history_items(long_history())))
    chat = _shown(qtbot)
    drawn = restore(chat, events)
    chat.add_user("And now?")
    live = chat.add_assistant_text("Half a rep")
    first = drawn.first_turn
    bar = chat.verticalScrollBar()
    _settle(chat)
    bar.triggerAction(QAbstractSlider.SliderAction.SliderToMinimum)
    _drain(lambda: drawn.first_turn < first)
    assert chat.add_assistant_text("ly.") is live  # the streaming bubble goes on
    assert live is not None and live.text() == "Half a reply." and chat.items()[-1] is live
    texts = [w.text() for w in chat.items() if isinstance(w, MessageBubble) and w.role == "user"]
    assert texts[-1] == "And now?" and texts[0] == f"Question {drawn.first_turn}: tell me about museum {drawn.first_turn}"


# ------------------------------------------------------- through the window


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ConversationStore]:
    store = ConversationStore(tmp_path / "c.sqlite3")
    for name, history in (("long", long_history()), ("short", long_history(2))):
        store.save(name, history_items(history), events_from_history(history_items(history)))
    yield store
    store.close()


async def test_a_search_hit_in_the_oldest_turn_is_drawn_shown_and_marked(qtbot: QtBot, store: ConversationStore) -> None:
    window = sidebar_window(qtbot, store, first="short", size=(1000, 700))
    glue = window.conversations
    assert glue is not None
    history = long_history()
    hit = "Museum 0 opens at nine."
    seq = next(i for i, m in enumerate(history) if m.get("content") == hit)

    assert glue.open("long", seq, "museum 0 opens")

    chat = window.chat
    target = glue.marked
    assert isinstance(target, MessageBubble) and target.text() == hit
    assert target.property("hit") is True
    selected = [label.selectedText() for label in target.findChildren(QLabel) if label.hasSelectedText()]
    assert [s.lower() for s in selected] == ["museum 0 opens"]  # the words searched, selected
    assert glue.last_restore is not None and 0 in glue.last_restore.turn_widgets
    assert len(turn_starts(items_of(events_from_history(history_items(history))))) == TURNS
    assert len(chat.items()) < 60  # a window from the hit, not the whole conversation

    def in_view() -> bool:
        top = _view_y(chat, target)
        return settled(chat) and 0 <= top and top + target.height() <= chat.viewport().height()

    async with asyncio.timeout(10):
        while not in_view():
            await asyncio.sleep(0.02)
