"""Two hits in one turn (the question and its reply both match): opening
the second marks and selects the reply, not the first match again.
Screenshots: /work/shots26/small/search_second_hit_{en,zh}.png."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from desktop_agent.storage.conversations import ConversationStore
from desktop_agent.storage.history_json import history_items
from desktop_agent.texts import CHINESE, ENGLISH, Texts
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.conversations.glue import match_index
from tests.ui.conversations.test_sidebar import _settled, _sidebar, _window
from tests.ui.conversations.test_sidebar import store as store  # the fixture: trip, zh and code

SHOTS = Path("/work/shots26/small")


def _selected(bubble: MessageBubble) -> str:
    return next((label.selectedText() for label in bubble.findChildren(QLabel) if label.hasSelectedText()), "")


@pytest.mark.parametrize(("texts", "conversation_id", "query", "first", "second"), [
    (ENGLISH, "trip", "paris", "Plan a weekend in Paris", "Paris will be sunny: pack light."),
    (CHINESE, "zh", "北京", "明天北京的天气怎么样？", "北京明天晴，最高二十五度。"),
])
def test_each_hit_of_a_turn_marks_its_own_message(
    qtbot: QtBot, store: ConversationStore, tmp_path: Path, texts: Texts, conversation_id: str, query: str,
    first: str, second: str,
) -> None:
    window = _window(qtbot, store)
    window.retranslate(texts)
    sidebar = _sidebar(window)
    sidebar.search.setText(query)
    sidebar.refresh()
    rows = [i for i, (c, _t, _s) in enumerate(sidebar.items()) if c == conversation_id]
    assert len(rows) == 2
    marked: list[str] = []
    for row in rows:
        sidebar.list.itemClicked.emit(sidebar.list.item(row))
        assert window.conversations is not None
        target = window.conversations.marked
        assert isinstance(target, MessageBubble)
        marked.append(target.text())
        assert _selected(target).lower() == query.lower()
    assert marked == [first, second]
    qtbot.waitUntil(lambda: _settled(window), timeout=5000)
    name = f"search_second_hit_{'zh' if texts is CHINESE else 'en'}.png"
    assert window.grab().save(str(tmp_path / name))
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(tmp_path / name, SHOTS / name)


def test_the_match_index_counts_the_matching_messages_before_the_hit_in_its_turn() -> None:
    history = [{"role": "user", "content": "Paris?"}, {"role": "assistant", "content": "Checking."},
               {"role": "assistant", "content": "PARIS is sunny."}, {"role": "user", "content": "And Paris tomorrow?"},
               {"role": "assistant", "content": "Paris: rain."}]
    assert [match_index(history_items(history), seq, "paris") for seq in range(5)] == [0, 1, 1, 0, 1]
    assert match_index(history_items(history), 4, "") == 0 and match_index(history_items(history), 9, "paris") == 0
