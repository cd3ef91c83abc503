"""Opening a search hit: the message holding the match is shown
whole (centred, or from its top when taller than the view) once the drawn
messages have settled their heights, and marked for a moment; titles and
snippets show plain words, not Markdown. Screenshot:
tests/artifacts/search_hit_open_en.png."""

from __future__ import annotations

import asyncio
from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QLabel, QWidget
from pytestqt.qtbot import QtBot

from desktop_agent.storage.conversation_events import events_from_history
from desktop_agent.storage.conversations import ConversationStore
from desktop_agent.storage.history_json import history_items
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.chat_view import HIT_MARGIN
from desktop_agent.ui.common.theme import LIGHT
from desktop_agent.ui.conversations.glue import ConversationsGlue, _select
from desktop_agent.ui.conversations.search_rows import SNIPPET_CHARS, snippet_parts
from desktop_agent.ui.shell.main_window import MainWindow
from tests.ui.conversations.test_sidebar import ARTIFACTS, _settled, _sidebar, _turns, _window
from tests.ui.conversations.test_sidebar import store as store  # the fixture: trip, zh and code

HIT = f'<b style="background-color:{LIGHT.hit}">'
"""How a search hit's words are marked: bold on the light theme's hit colour."""

LONG = "\n\n".join(
    f"Paragraph {i}: the **show_card** tool draws a card with a title, a body and buttons."
    + (" A quasar is the brightest thing in the sky." if i == 9 else "")
    for i in range(14)
)
"""A reply that fits the view, its match deep inside."""
HUGE = "\n\n".join(f"Step {i}: run `make` in the folder and read what it prints." for i in range(70))
HUGE += "\n\nFinally the nebula appears."
"""A reply taller than the view, its match at its end."""


def _add(store: ConversationStore) -> None:
    notes = _turns([("Run `date` and tell me the time", "`date` printed Tue Dec 1 04:44 UTC 2026.")]
                   + [(f"Question {i}?", f"Answer {i}.") for i in range(6)]
                   + [("Explain the **show_card** tool", LONG)]
                   + [(f"Question {i}?", f"Answer {i}.") for i in range(6, 14)])
    store.save("notes", history_items(notes), events_from_history(history_items(notes)))
    huge = _turns([("How do I build it?", HUGE)] + [(f"More {i}?", f"Sure {i}.") for i in range(12)])
    store.save("huge", history_items(huge), events_from_history(history_items(huge)))


async def _open_hit(window: MainWindow, query: str, conversation_id: str) -> MessageBubble:
    """Search, click the hit in ``conversation_id`` and wait for the view to settle."""
    sidebar = _sidebar(window)
    sidebar.search.setText(query)
    sidebar.refresh()
    row = next(i for i, (c, _t, _s) in enumerate(sidebar.items()) if c == conversation_id)
    sidebar.list.itemClicked.emit(sidebar.list.item(row))
    chat = window.chat
    target = _glue(window).marked
    assert isinstance(target, MessageBubble) and query.lower() in target.text().lower()
    bar, last, still = chat.verticalScrollBar(), -1, 0
    async with asyncio.timeout(5):
        while still < 5:  # settled, and the scroll no longer moves
            await asyncio.sleep(0.03)
            still = still + 1 if _settled(window) and bar.value() == last else 0
            last = bar.value()
    return target


def _glue(window: MainWindow) -> ConversationsGlue:
    assert window.conversations is not None
    return window.conversations


def _place(window: MainWindow, target: MessageBubble) -> tuple[int, int, int]:
    """Top and bottom of ``target`` in the chat's viewport, and the viewport's height."""
    top = target.mapTo(window.chat.viewport(), QPoint(0, 0)).y()
    return top, top + target.height(), window.chat.viewport().height()


def _centred(window: MainWindow, top: int, bottom: int, view: int) -> bool:
    """Centred, unless an end of what is drawn stops the scroll short of it."""
    bar = window.chat.verticalScrollBar()
    return abs(top - (view - bottom)) <= 2 or (bar.value() == 0 and top < view - bottom) or (
        bar.value() == bar.maximum() and top > view - bottom)


def _hit(target: MessageBubble) -> Any:
    return target.property("hit")


async def test_a_hit_in_a_long_reply_is_centred_whole_and_marked_for_a_moment(
    qtbot: QtBot, store: ConversationStore
) -> None:
    _add(store)
    window = _window(qtbot, store)
    target = await _open_hit(window, "quasar", "notes")
    top, bottom, view = _place(window, target)
    assert target.height() > view // 3  # a long reply
    assert 0 <= top and bottom <= view  # all of it in view
    assert abs(top - (view - bottom)) <= 2  # centred: messages above and below it
    assert _glue(window).marked is target and _hit(target) is True
    assert [b.selectedText() for b in target.findChildren(QLabel) if b.hasSelectedText()] == ["quasar"]
    ARTIFACTS.mkdir(exist_ok=True)
    window.grab().save(str(ARTIFACTS / "search_hit_open_en.png"))
    async with asyncio.timeout(5):
        while _glue(window).marked is not None:
            await asyncio.sleep(0.05)
    assert _hit(target) is False
    assert _place(window, target) == (top, bottom, view)  # the mark going moves nothing


async def test_a_hit_taller_than_the_view_is_shown_from_its_top_when_the_match_is_there(
    qtbot: QtBot, store: ConversationStore
) -> None:
    _add(store)
    window = _window(qtbot, store)
    target = await _open_hit(window, "Step 0: run", "huge")
    top, bottom, view = _place(window, target)
    assert bottom - top > view
    assert top == HIT_MARGIN
    assert _hit(target) is True


async def test_a_match_at_the_end_of_a_reply_taller_than_the_view_is_scrolled_to(
    qtbot: QtBot, store: ConversationStore
) -> None:
    _add(store)
    window = _window(qtbot, store)
    target = await _open_hit(window, "nebula", "huge")
    top, bottom, view = _place(window, target)
    assert bottom - top > view
    assert top < 0 and bottom == view - HIT_MARGIN  # down to its last line, where the match is
    (label,) = [b for b in target.findChildren(QLabel) if b.hasSelectedText()]
    assert label.selectedText() == "nebula"
    assert 0 <= label.mapTo(window.chat.viewport(), QPoint(0, label.height())).y() <= view


async def test_a_hit_far_back_in_a_long_conversation_is_in_view(qtbot: QtBot, store: ConversationStore) -> None:
    window = _window(qtbot, store)
    target = await _open_hit(window, "museum number 3.", "trip")
    assert target.text() == "Visit museum number 3."
    top, bottom, view = _place(window, target)
    assert 0 <= top and bottom <= view
    assert _centred(window, top, bottom, view)
    assert _hit(target) is True


async def test_the_user_scrolling_away_is_not_pulled_back(qtbot: QtBot, store: ConversationStore) -> None:
    window = _window(qtbot, store)
    target = await _open_hit(window, "museum number 3.", "trip")
    bar = window.chat.verticalScrollBar()
    bar.triggerAction(bar.SliderAction.SliderToMaximum)
    window.chat.add_system("a later line")  # the range changes
    async with asyncio.timeout(5):
        while not _settled(window):  # the line laid out: the range has changed, the view had its say
            await asyncio.sleep(0.01)
    assert bar.value() == bar.maximum() and _place(window, target)[0] < 0


def test_titles_and_snippets_show_plain_words_with_the_match_in_bold(qtbot: QtBot, store: ConversationStore) -> None:
    _add(store)
    window = _window(qtbot, store)
    sidebar = _sidebar(window)
    assert ("notes", "Run date and tell me the time", -1) in sidebar.items()
    sidebar.search.setText("date")
    sidebar.refresh()
    rows = {s: sidebar.list.itemWidget(sidebar.list.item(i)) for i, (_c, _t, s) in enumerate(sidebar.items())}
    assert rows[0].title.text() == "Run date and tell me the time"  # type: ignore[attr-defined]
    assert rows[0].words.text() == f"Run {HIT}date</b> and tell me the time"  # type: ignore[attr-defined]
    assert rows[1].words.text() == f"{HIT}date</b> printed Tue Dec 1 04:44 UTC 2026."  # type: ignore[attr-defined]
    sidebar.search.setText("**show_card**")  # typed with its mark-up: found in the raw text
    sidebar.refresh()
    words = [sidebar.list.itemWidget(sidebar.list.item(i)).words.text()  # type: ignore[attr-defined]
             for i in range(sidebar.list.count())]
    assert words[0] == f"Explain the {HIT}show_card</b> tool"
    assert words[1].startswith(f"Paragraph 0: the {HIT}show_card</b> tool draws a card") and "**" not in words[1]


def test_a_hit_deep_in_a_long_reply_shows_as_in_the_whole() -> None:
    """Only a window around the match is made plain; what shows is the same."""
    lines = [f"- step **{i}**: run `cmd{i}` and see [the docs](https://example.com/{i})" for i in range(400)]
    text = "\n".join([*lines[:200], "## The needle is here", *lines[200:]])
    shown, spans = snippet_parts(text, "NEEDLE")
    assert shown.startswith("…") and shown.endswith("…") and len(shown) == SNIPPET_CHARS + 2
    assert shown.startswith("… and see the docs The needle is here step 200: run cmd200 and")
    assert [shown[a:b] for a, b in spans] == ["needle"]
    assert snippet_parts("İİ and a needle", "needle") == ("İİ and a needle", [(9, 15)])  # no drift


def test_the_match_is_selected_where_it_shows_after_a_growing_letter(qtbot: QtBot) -> None:
    """"İ".lower() is two characters: positions found in it drifted."""
    widget = QWidget()
    qtbot.addWidget(widget)
    label = QLabel("İstanbul İzmir: the needle here", widget)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    assert _select(widget, "NEEDLE") is not None
    assert label.selectedText() == "needle"
