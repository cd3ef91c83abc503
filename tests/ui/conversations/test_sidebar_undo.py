"""Undo in the conversations sidebar (QA): every deletion can be undone,
newest first, and the bar says which one comes back next and how many can
still be brought back; nothing disappears without the user seeing it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from desktop_agent.conversation_library import ConversationLibrary
from desktop_agent.core.conversation import Conversation
from desktop_agent.storage.conversations import ConversationStore
from desktop_agent.storage.history_json import history_items
from desktop_agent.texts import CHINESE, ENGLISH
from desktop_agent.ui.conversations.sidebar import ConversationSidebar


def _exchange(question: str, answer: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ConversationStore]:
    store = ConversationStore(tmp_path / "c.sqlite3")
    for conversation_id, question in (("a", "Alpha question"), ("b", "Beta question"), ("c", "天气怎么样？")):
        store.save(conversation_id, history_items(_exchange(question, "ok")))
    yield store
    store.close()


def _never_opened(conversation_id: str) -> Conversation:
    raise AssertionError(f"the sidebar opened {conversation_id} by itself")


@pytest.fixture
def sidebar(qtbot: QtBot, store: ConversationStore) -> ConversationSidebar:
    sidebar = ConversationSidebar(ConversationLibrary(store, _never_opened), ENGLISH)
    qtbot.add_widget(sidebar)
    sidebar.show()
    return sidebar


def ids(sidebar: ConversationSidebar) -> list[str]:
    return sorted(i for i, _t, _s in sidebar.items())


def bar(sidebar: ConversationSidebar) -> tuple[bool, str, str]:
    return sidebar.undo_bar.isVisible(), sidebar.undo_label.text(), sidebar.undo_button.text()


def test_undo_brings_back_each_deletion_newest_first(sidebar: ConversationSidebar) -> None:
    sidebar.delete("a")
    sidebar.delete("b")
    assert ids(sidebar) == ["c"] and sidebar.undoable() == ["b", "a"]
    assert bar(sidebar) == (True, "Deleted “Beta question”", "Undo (2)")

    QTest.mouseClick(sidebar.undo_button, Qt.MouseButton.LeftButton)
    assert ids(sidebar) == ["b", "c"] and sidebar.undoable() == ["a"]
    assert bar(sidebar) == (True, "Deleted “Alpha question”", "Undo")

    QTest.mouseClick(sidebar.undo_button, Qt.MouseButton.LeftButton)
    assert ids(sidebar) == ["a", "b", "c"] and sidebar.undoable() == []
    assert not sidebar.undo_bar.isVisible()


def test_the_undo_button_says_deletions_last_until_the_next_start(sidebar: ConversationSidebar) -> None:
    sidebar.delete("a")
    assert sidebar.undo_button.toolTip() == (
        "Brings back “Alpha question”. Deleted conversations are removed for good when Desktop Agent next starts.")


def test_deletions_not_undone_are_gone_after_the_next_start_and_undone_ones_stay(
    sidebar: ConversationSidebar, store: ConversationStore
) -> None:
    for conversation_id in ("a", "b", "c"):
        sidebar.delete(conversation_id)
    sidebar.undo_delete()
    sidebar.undo_delete()
    assert sidebar.undoable() == ["a"]
    store.close()

    reopened = ConversationStore(store.path)
    try:
        assert sorted(s.id for s in reopened.conversations()) == ["b", "c"] and not reopened.exists("a")
    finally:
        reopened.close()


def test_undo_with_nothing_deleted_changes_nothing(sidebar: ConversationSidebar) -> None:
    sidebar.undo_delete()
    assert ids(sidebar) == ["a", "b", "c"] and not sidebar.undo_bar.isVisible()


def test_the_bar_speaks_chinese_and_follows_a_language_switch(
    sidebar: ConversationSidebar,
) -> None:
    sidebar.retranslate(CHINESE)
    sidebar.delete("c")
    sidebar.delete("a")
    assert bar(sidebar) == (True, "已删除“Alpha question”", "撤销（2）")
    sidebar.retranslate(ENGLISH)
    assert bar(sidebar) == (True, "Deleted “Alpha question”", "Undo (2)")
    sidebar.undo_delete()
    assert bar(sidebar) == (True, "Deleted “天气怎么样？”", "Undo")
