"""Jumping to a search hit far back in a long conversation draws a
window around it, not everything after it: about ``RESTORE_EVENTS`` events
from the hit's turn, then "Show N later messages", which draws the rest a
window per event-loop pass, in order. A message sent after such a jump goes
after the conversation's real last message. Screenshot:
tests/artifacts/restore_window_en.png (the window's end)."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QPushButton
from pytestqt.qtbot import QtBot

from desktop_agent.core.json_types import JSONMapping
from desktop_agent.core.transcript import DisplayItem
from desktop_agent.storage import conversation_events
from desktop_agent.storage.conversation_events import StoredItems, events_from_history, items_of, read_item
from desktop_agent.storage.conversations import ConversationStore
from desktop_agent.storage.history_json import history_items
from desktop_agent.testing.json_dict import JSONDict
from desktop_agent.texts import ENGLISH
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.chat_view import ChatView
from desktop_agent.ui.chat.system_message import SystemMessage
from desktop_agent.ui.conversations.restore import (
    RESTORE_EVENTS,
    hit_window,
    messages_in,
    restore,
    turn_starts,
    window_end,
)
from desktop_agent.ui.shell.main_window import MainWindow
from tests.ui.conversations.test_restore import describe
from tests.ui.conversations.test_sidebar import _window as sidebar_window

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
TURNS = 120
WINDOW_WIDGETS = 40
"""At most this many widgets for a window of RESTORE_EVENTS events (these turns draw 2–4 each)."""


def long_history(count: int = TURNS) -> list[JSONDict]:
    """``count`` exchanges; every third one calls a tool."""
    out: list[JSONDict] = []
    for i in range(count):
        out.append({"role": "user", "content": f"Question {i}: tell me about museum {i}"})
        if i % 3 == 0:
            out.append({"role": "assistant", "content": "Let me check.", "tool_calls": [
                {"id": f"c{i}", "type": "function", "function": {"name": "weather", "arguments": "{}"}}]})
            out.append({"role": "tool", "tool_call_id": f"c{i}", "content": f"sunny {i}"})
        out.append({"role": "assistant", "content": f"Museum {i} opens at nine."})
    return out


def _drain(done: Callable[[], bool], timeout_s: float = 30) -> None:
    """Run the Qt event loop (a sync test) until ``done``, bounded."""
    deadline = time.monotonic() + timeout_s
    while not done():
        assert time.monotonic() < deadline, "not done in time"
        QApplication.processEvents()


def test_a_far_hit_draws_a_bounded_window_and_the_later_button_draws_the_rest_in_order(qtbot: QtBot) -> None:
    events = items_of(events_from_history(history_items(long_history())))
    starts = turn_starts(events)
    chat, full = ChatView(ENGLISH), ChatView(ENGLISH)
    for view in (chat, full):
        qtbot.add_widget(view)
        view.resize(860, 640)
        view.show()
    ends: list[ChatView] = []
    end = window_end(events, 3)
    assert 3 < end < TURNS and starts[end] - starts[3] <= RESTORE_EVENTS

    drawn = restore(chat, events, from_turn=3, to_turn=end, at_end=lambda: ends.append(chat))

    items = chat.items()
    assert len(items) <= WINDOW_WIDGETS and drawn.turn_widgets[3] in items
    assert sorted(drawn.turn_widgets) == list(range(3, end))
    assert drawn.later is not None and items[-1] is drawn.later and ends == []
    hidden = messages_in(events[starts[end]:])
    assert drawn.later.text() == f"Show {hidden} later messages" and hidden > 150
    assert drawn.tail_hidden(chat) and drawn.end_turn == end

    restore(full, events, from_turn=3)  # everything from the hit on, at once: what must come out in the end
    drawn.later.click()
    assert len(chat.items()) <= 2 * WINDOW_WIDGETS  # one window more at once; the rest on later passes
    assert drawn.later is not None and not drawn.later.isEnabled()
    assert drawn.later.text().startswith("Drawing ") and drawn.later is chat.items()[-1]
    assert drawn.end_turn is not None
    left = messages_in(events[starts[drawn.end_turn]:])  # counted down as drawn, not counted again
    assert f" {left} " in drawn.later.text()
    _drain(lambda: drawn.later is None)

    assert [describe(w) for w in chat.items()] == [describe(w) for w in full.items()]
    assert ends == [chat] and not drawn.tail_hidden(chat) and drawn.end_turn is None
    assert sorted(drawn.turn_widgets) == list(range(3, TURNS))


def test_a_stored_log_is_read_back_only_as_far_as_it_is_drawn(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    saved = events_from_history(history_items(long_history()))
    read: list[str] = []

    def counted(event: JSONMapping) -> DisplayItem:
        read.append(str(event.get("type")))
        return read_item(event)

    monkeypatch.setattr(conversation_events, "read_item", counted)
    lazy, eager = ChatView(ENGLISH), ChatView(ENGLISH)
    for view in (lazy, eager):
        qtbot.add_widget(view)
    drawn = restore(lazy, StoredItems(saved))
    assert 0 < len(read) <= RESTORE_EVENTS + 20 < len(saved)  # the last turns only: the rest is counted by type
    restore(eager, items_of(saved))
    assert [describe(w) for w in lazy.items()] == [describe(w) for w in eager.items()]
    assert TURNS - 20 < drawn.first_turn < TURNS - 1


def test_a_window_whose_chat_was_cleared_stops_drawing(qtbot: QtBot) -> None:
    events = items_of(events_from_history(history_items(long_history())))
    chat = ChatView(ENGLISH)
    qtbot.add_widget(chat)
    drawn = restore(chat, events, from_turn=3, to_turn=window_end(events, 3))
    assert drawn.later is not None
    drawn.later.click()
    chat.clear()  # another conversation opened meanwhile
    chat.add_system("other")
    for _ in range(20):
        QApplication.processEvents()
    assert [describe(w) for w in chat.items()] == [{"system": "other"}]


# ------------------------------------------------------- through the window


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ConversationStore]:
    store = ConversationStore(tmp_path / "c.sqlite3")
    for name, history in (("long", long_history()), ("short", long_history(2))):
        store.save(name, history_items(history), events_from_history(history_items(history)))
    yield store
    store.close()


def _window(qtbot: QtBot, store: ConversationStore) -> MainWindow:
    return sidebar_window(qtbot, store, first="short", size=(1000, 700))


async def _until(condition: Callable[[], bool], timeout_s: float = 20) -> None:
    """Wait on the running (qasync) loop; qtbot.waitUntil would spin a nested one."""
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.02)


def settled(chat: ChatView) -> bool:
    """Every drawn message has measured its height (slots settle over a few layout passes)."""
    slots = [w.parentWidget() or w for w in chat.items()]
    return all(s.height() > 0 for s in slots) and all(
        a.geometry().bottom() < b.geometry().top() for a, b in itertools.pairwise(slots))


def _seq_of(history: list[JSONDict], text: str) -> int:
    return next(i for i, m in enumerate(history) if m.get("content") == text)


def _texts(window: MainWindow) -> list[str]:
    return [w.text() for w in window.chat.items() if isinstance(w, MessageBubble | SystemMessage)]


async def test_jumping_far_back_draws_the_hit_and_sending_goes_after_the_real_last_message(
    qtbot: QtBot, store: ConversationStore
) -> None:
    window = _window(qtbot, store)
    glue = window.conversations
    assert glue is not None and window.controller is not None
    history = long_history()
    hit = "Museum 3 opens at nine."

    assert glue.open("long", _seq_of(history, hit), "museum 3 opens")

    items = window.chat.items()
    assert len(items) <= WINDOW_WIDGETS
    target = next(w for w in items if isinstance(w, MessageBubble) and w.text() == hit)
    assert glue.last_restore is not None and glue.last_restore.tail_hidden(window.chat)
    later = glue.last_restore.later
    assert later is not None and later is window.chat.findChild(QPushButton, "showLater") and not later.isHidden()
    bubbles = [w for w in items if isinstance(w, MessageBubble) and w.action_row is not None]
    assert all(b.action_row is not None and b.action_row.regenerate_button.isHidden()
               and b.action_row.edit_button.isHidden() for b in bubbles)  # not the conversation's last exchange
    chat = window.chat
    bar = chat.verticalScrollBar()

    def in_view() -> bool:
        top = target.mapTo(chat.viewport(), target.rect().topLeft()).y()
        return settled(chat) and bar.maximum() > 0 and 0 <= top < chat.viewport().height()

    await _until(in_view)
    assert bar.value() < bar.maximum()  # at the hit (its turn opens the window), not at the bottom

    def later_in_view() -> bool:
        chat.scroll_to_bottom()  # the window's end: its "Show N later messages"
        top = later.mapTo(chat.viewport(), later.rect().topLeft()).y()
        return settled(chat) and bar.value() == bar.maximum() and 0 <= top < chat.viewport().height()

    await _until(later_in_view)
    ARTIFACTS.mkdir(exist_ok=True)
    assert window.grab().save(str(ARTIFACTS / "restore_window_en.png"))

    assert window.send_text("And now something new")

    texts = _texts(window)
    last = texts.index(f"Museum {TURNS - 1} opens at nine.")
    assert texts[last + 1:] == ["Earlier conversation restored", "And now something new"]
    assert hit not in texts  # the end was redrawn as an opened conversation is
    await _until(lambda: window.controller is not None and not window.controller.busy)
    saved = store.load("long")
    assert saved is not None
    users = [str(e.get("text")) for e in saved.events if e.get("type") == "user"]
    assert users[-2:] == [f"Question {TURNS - 1}: tell me about museum {TURNS - 1}", "And now something new"]
    assert glue.last_restore is not None and not glue.last_restore.tail_hidden(window.chat)


async def test_a_near_hit_draws_as_opening_does(qtbot: QtBot, store: ConversationStore) -> None:
    window = _window(qtbot, store)
    glue = window.conversations
    assert glue is not None
    history = long_history()
    assert glue.open("long", _seq_of(history, f"Museum {TURNS - 2} opens at nine."), "museum")
    assert glue.last_restore is not None and glue.last_restore.later is None
    assert _texts(window)[-1] == "Earlier conversation restored"


def test_the_hit_window_ends_before_the_end_only_for_a_hit_further_back_than_a_window() -> None:
    """One rule for the sidebar's open and its benchmark (bench_conversations.py)."""
    events = items_of(events_from_history(history_items(long_history())))
    starts = turn_starts(events)
    near = TURNS - 3
    assert hit_window(events, None) == (None, None)
    assert hit_window(events, near) == (near, None)  # its window reaches the end: drawn to it
    assert hit_window(events, 5) == (5, window_end(events, 5))
    assert window_end(events, 5, starts=starts) == window_end(events, 5) < near
