"""Settings → Appearance applies the language and the theme once:
the live switch applies them, and the Save after it finds them applied
(Qt's catalogue is not read again, the window not walked again); a Save
that changes them still applies them. One retranslate reaches the whole
window, the sidebar included; and a system switch between light and dark,
which may reach the window three ways, restyles it once."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_agent.conversation_library import ConversationLibrary
from desktop_agent.core.agent import AgentClient
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.llm.demo import DemoModel
from desktop_agent.storage.conversation_events import items_of
from desktop_agent.storage.conversations import ConversationStore
from desktop_agent.testing.window_rig import offline_deps
from desktop_agent.texts import CHINESE, ENGLISH, Texts, text_in
from desktop_agent.ui.chat.turn_deps import ConversationKeeper
from desktop_agent.ui.common import qt_translations, theme
from desktop_agent.ui.common.appearance import apply_appearance
from desktop_agent.ui.common.qt_translations import apply_qt_language
from desktop_agent.ui.common.theme import DARK, LIGHT, set_theme_choice
from desktop_agent.ui.conversations.feature import ConversationsFeature
from desktop_agent.ui.settings import glue as settings_glue
from desktop_agent.ui.settings.dialog import SettingsEdit
from desktop_agent.ui.shell.main_window import MainWindow


@pytest.fixture
def english(qapp: QApplication) -> Iterator[None]:
    """The test starts in English, following the system's colours, and leaves the app so."""
    palette = QPalette(qapp.palette())
    apply_appearance("en", "system")
    yield
    apply_appearance("en", "system")
    qapp.setPalette(palette)


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path, english: None) -> Iterator[MainWindow]:
    """An attached window with the conversations sidebar (an empty library)."""
    store = ConversationStore(tmp_path / "c.sqlite3")
    agent = AgentClient(DemoModel(), ToolRouter([]))

    def open_stored(conversation_id: str) -> Conversation:
        stored = store.load(conversation_id)
        assert stored is not None
        events = items_of(stored.events)
        return Conversation(agent, conversation_id=stored.id, history=stored.messages, events=events)

    library = ConversationLibrary(store, open_stored)
    deps = replace(offline_deps(), conversations=ConversationsFeature(library),
                   keeper=ConversationKeeper(lambda _old: Conversation(agent)))
    win = MainWindow(tray=False)
    qtbot.add_widget(win)
    win.attach(deps)
    assert win.conversations is not None
    yield win
    store.close()


def sidebar_placeholder(window: MainWindow) -> str:
    assert window.conversations is not None
    return window.conversations.sidebar.search.placeholderText()


def test_qt_s_catalogue_is_loaded_once_for_a_language_asked_again(english: None) -> None:
    assert apply_qt_language("zh")
    installed = qt_translations._installed
    assert installed is not None
    assert apply_qt_language("zh")  # a Save after the live switch
    assert qt_translations._installed is installed
    assert apply_qt_language("en") and qt_translations._installed is None
    assert apply_qt_language("en")


def test_a_save_after_the_live_switch_applies_nothing_again(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    applied: list[tuple[str, str]] = []
    retranslated: list[int] = []
    real_apply, real_retranslate = apply_appearance, window.retranslate

    def apply(language: str, theme_choice: str) -> Texts:
        applied.append((language, theme_choice))
        return real_apply(language, theme_choice)

    def retranslate(texts: Texts) -> None:
        retranslated.append(1)
        real_retranslate(texts)

    monkeypatch.setattr(settings_glue, "apply_appearance", apply)
    monkeypatch.setattr(window, "retranslate", retranslate)
    window.retranslate(apply_appearance("zh", "dark"))  # what the Appearance page does live (appearance_changed)
    assert retranslated == [1]
    window.apply_settings_edit(SettingsEdit(replace(window.settings, language="zh", theme="dark")))  # Save
    assert (applied, retranslated) == ([], [1])
    assert window.windowTitle() == text_in("zh", "app_title")
    assert sidebar_placeholder(window) == text_in("zh", "conv_search_placeholder")

    window.apply_settings_edit(SettingsEdit(replace(window.settings, language="en", theme="system")))
    assert (applied, retranslated) == ([("en", "system")], [1, 1])  # a change is still applied, once
    assert (window.texts.language, theme.theme_choice()) == ("en", "system")
    assert window.windowTitle() == text_in("en", "app_title")
    assert sidebar_placeholder(window) == text_in("en", "conv_search_placeholder")


def test_one_retranslate_reaches_the_sidebar(window: MainWindow) -> None:
    window.retranslate(CHINESE)
    assert sidebar_placeholder(window) == text_in("zh", "conv_search_placeholder")
    window.retranslate(ENGLISH)
    assert sidebar_placeholder(window) == text_in("en", "conv_search_placeholder")


def test_a_system_switch_restyles_the_window_once_and_a_chosen_theme_still_applies(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    dark = [False]
    monkeypatch.setattr(theme, "system_is_dark", lambda _app: dark[0])
    theme.apply_theme(window)
    sheets: list[str] = []
    real_set = window.setStyleSheet

    def set_sheet(sheet: str) -> None:
        sheets.append(sheet)
        real_set(sheet)

    monkeypatch.setattr(window, "setStyleSheet", set_sheet)
    dark[0] = True  # the system went dark, and says so three ways
    QApplication.sendEvent(window, QEvent(QEvent.Type.ApplicationPaletteChange))
    QApplication.sendEvent(window, QEvent(QEvent.Type.ThemeChange))
    QGuiApplication.styleHints().colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert len(sheets) == 1 and DARK.window in window.styleSheet()

    set_theme_choice("light")  # chosen against the system's: the palette change restyles it
    for _ in range(100):
        QApplication.processEvents()
        if LIGHT.window in window.styleSheet():
            break
    assert len(sheets) == 2 and LIGHT.window in window.styleSheet()
    set_theme_choice("system")
    for _ in range(100):
        QApplication.processEvents()
        if DARK.window in window.styleSheet():
            break
    assert len(sheets) == 3 and DARK.window in window.styleSheet()
