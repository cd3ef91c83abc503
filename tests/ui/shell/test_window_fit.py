"""A small screen and a hidden sidebar: after Ctrl+B a button beside the
input brings the sidebar back (its tooltip says the key), and Settings
opens no larger than an 800×600 window (ui/settings/dialog_size.py), its
pages scrolling."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QScrollArea
from pytestqt.qtbot import QtBot

from desktop_agent.conversation_library import ConversationLibrary
from desktop_agent.core.agent import AgentClient
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.llm.demo import DemoModel
from desktop_agent.storage.conversation_events import events_from_history, items_of
from desktop_agent.storage.conversations import ConversationStore
from desktop_agent.storage.history_json import history_items
from desktop_agent.testing.window_rig import offline_deps
from desktop_agent.texts import CHINESE, ENGLISH, Texts
from desktop_agent.ui.chat.turn_deps import ConversationKeeper
from desktop_agent.ui.common.appearance import apply_appearance
from desktop_agent.ui.common.key_hints import SIDEBAR_KEY, key_text
from desktop_agent.ui.conversations.feature import ConversationsFeature
from desktop_agent.ui.settings.dialog_size import SMALLEST_SIZE, WANTED_SIZE, room_for_dialog
from desktop_agent.ui.shell.main_window import MainWindow

SHOTS = Path("/work/shots26/win")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ConversationStore]:
    store = ConversationStore(tmp_path / "c.sqlite3")
    history = [{"role": "user", "content": "明天北京的天气怎么样？"}, {"role": "assistant", "content": "北京明天晴。"}]
    store.save("zh", history_items(history), events_from_history(history_items(history)))
    yield store
    store.close()


@pytest.fixture
def look(qapp: QApplication) -> Iterator[None]:
    palette = QPalette(qapp.palette())
    yield
    apply_appearance("en", "system")
    qapp.setPalette(palette)


def window_over(qtbot: QtBot, store: ConversationStore, texts: Texts, size: tuple[int, int]) -> MainWindow:
    agent = AgentClient(DemoModel(), ToolRouter([]))

    def open_stored(conversation_id: str) -> Conversation:
        stored = store.load(conversation_id)
        assert stored is not None
        return Conversation(agent, conversation_id=stored.id, history=stored.messages, events=items_of(stored.events))

    library = ConversationLibrary(store, open_stored)
    deps = replace(
        offline_deps(), conversation=open_stored("zh"), keeper=ConversationKeeper(lambda _old: Conversation(agent)),
        conversations=ConversationsFeature(library, lambda _old, conversation_id: library.open(conversation_id)),
    )
    window = MainWindow(tray=False, texts=texts)
    qtbot.add_widget(window)
    window.attach(deps)
    window.resize(*size)
    window.show()
    qtbot.wait_exposed(window)
    return window


@pytest.mark.parametrize("texts", [ENGLISH, CHINESE], ids=["en", "zh"])
def test_a_button_brings_the_sidebar_back_after_ctrl_b(
    qtbot: QtBot, store: ConversationStore, tmp_path: Path, look: None, texts: Texts
) -> None:
    window = window_over(qtbot, store, texts, (900, 600))
    assert window.conversations is not None
    sidebar = window.conversations.sidebar
    button = window.sidebar_button
    assert sidebar.isVisible() and not button.isVisible()  # the sidebar is there: no way back needed

    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    QTest.keyClick(window.input, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
    assert not sidebar.isVisible() and button.isVisible()
    assert button.toolTip() == texts.tr("show_sidebar", shortcut=key_text(SIDEBAR_KEY))
    assert key_text(SIDEBAR_KEY) in button.toolTip()
    shot = tmp_path / f"sidebar_hidden_{texts.language}.png"
    assert window.grab().save(str(shot))
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot, SHOTS / shot.name)

    button.click()
    assert sidebar.isVisible() and not button.isVisible()


def test_the_button_s_tooltip_follows_a_language_switch(qtbot: QtBot, store: ConversationStore, look: None) -> None:
    window = window_over(qtbot, store, ENGLISH, (900, 600))
    window.retranslate(CHINESE)
    assert window.sidebar_button.toolTip() == CHINESE.tr("show_sidebar", shortcut=key_text(SIDEBAR_KEY))


@pytest.mark.parametrize("texts", [ENGLISH, CHINESE], ids=["en", "zh"])
def test_settings_opens_no_larger_than_an_800_by_600_window_and_its_pages_scroll(
    qtbot: QtBot, store: ConversationStore, tmp_path: Path, look: None, texts: Texts
) -> None:
    window = window_over(qtbot, store, texts, (800, 600))
    dialog = window.open_settings()
    assert dialog is not None
    qtbot.wait_exposed(dialog)
    assert dialog.width() <= 800 and dialog.height() <= 600
    assert dialog.buttons.isVisible() and dialog.rect().contains(dialog.buttons.geometry())
    scrolls = [dialog.stack.widget(i) for i in range(dialog.stack.count())]
    assert all(isinstance(s, QScrollArea) and s.widgetResizable() for s in scrolls)
    dialog.show_page(dialog.tools_page)  # the longest page: it scrolls rather than push the buttons away
    QApplication.processEvents()
    tools = dialog.stack.currentWidget()
    assert isinstance(tools, QScrollArea) and tools.verticalScrollBar().maximum() > 0
    shot = tmp_path / f"settings_800x600_{texts.language}.png"
    assert dialog.grab().save(str(shot))
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot, SHOTS / shot.name)
    dialog.close()


def test_the_dialog_s_size_fits_the_screen_and_the_window() -> None:
    assert room_for_dialog(QSize(1920, 1200), None) == WANTED_SIZE
    assert room_for_dialog(QSize(1920, 1200), QSize(1100, 760)) == WANTED_SIZE
    small = room_for_dialog(QSize(800, 600), None)  # an 800×600 screen, less the frame
    assert small.width() <= 800 and small.height() < 600
    assert room_for_dialog(QSize(1920, 1200), QSize(800, 600)) == QSize(800, 600)
    # A tiny window does not make a dialog too small to use.
    assert room_for_dialog(QSize(1920, 1200), QSize(300, 200)) == SMALLEST_SIZE
