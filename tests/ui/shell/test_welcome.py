"""The welcome an empty conversation shows (also at the first run): what the
app is, the demo model's line and Connect a model, example prompts that
send themselves. Real window, offline demo model, real turns."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace

from pytestqt.qtbot import QtBot

from desktop_agent.core.conversation import Conversation
from desktop_agent.storage.history_json import history_items, history_json
from desktop_agent.testing.window_rig import SignalLog, offline_deps
from desktop_agent.texts import CHINESE, ENGLISH
from desktop_agent.ui.chat.turn_deps import ConversationKeeper
from desktop_agent.ui.settings.dialog import SettingsDialog
from desktop_agent.ui.shell.main_window import MainWindow
from desktop_agent.ui.shell.welcome import WelcomePanel
from desktop_agent.ui.shell.window_deps import WindowDeps


async def _until(condition: Callable[[], bool], timeout_s: float = 10) -> None:
    """Wait on the running (qasync) loop; qtbot.waitUntil would spin a nested one."""
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.02)


def _fresh(old: Conversation) -> Conversation:
    return Conversation(old.agent)


def _window(qtbot: QtBot, deps: WindowDeps | None = None) -> MainWindow:
    window = MainWindow(tray=False)
    qtbot.add_widget(window)
    window.attach(deps or replace(offline_deps(), keeper=ConversationKeeper(_fresh)))
    window.resize(860, 720)
    window.show()
    return window


def _panel(window: MainWindow) -> WelcomePanel:
    assert window.welcome is not None and window.chat.welcome is window.welcome
    return window.welcome


def _shown(window: MainWindow) -> bool:
    return _panel(window).isVisibleTo(window)


def test_an_empty_conversation_on_the_demo_model_says_what_the_app_is_and_how_to_connect(qtbot: QtBot) -> None:
    panel = _panel(_window(qtbot))
    assert (panel.title.text(), panel.demo.isVisibleTo(panel), panel.connect_button.isVisibleTo(panel)) == (
        ENGLISH.tr("welcome_title"), True, True)
    assert panel.demo.text() == ENGLISH.tr("welcome_demo")
    assert panel.prompt_texts() == ["Take the tour", "What time is it?", "Run `date`", "Ask me something"]


def test_with_a_real_model_the_welcome_has_no_demo_line(qtbot: QtBot) -> None:
    window = _window(qtbot, replace(offline_deps(), model_name="gpt-4o", is_demo=False))
    panel = _panel(window)
    assert (_shown(window), panel.demo.isVisibleTo(panel), panel.connect_button.isVisibleTo(panel)) == (
        True, False, False)


def test_connect_a_model_opens_settings(qtbot: QtBot) -> None:
    window = _window(qtbot)
    assert window.findChildren(SettingsDialog) == []
    _panel(window).connect_button.click()
    dialogs = window.findChildren(SettingsDialog)
    assert len(dialogs) == 1 and dialogs[0].isVisible()
    dialogs[0].reject()


async def test_an_example_prompt_sends_itself_and_the_welcome_goes(qtbot: QtBot) -> None:
    window = _window(qtbot)
    turns = SignalLog(window.turn_finished)
    try:
        assert _shown(window)
        _panel(window).prompts[1].click()  # What time is it?
        user = window.chat.last_user_bubble()
        assert user is not None and user.text() == "What time is it?"
        assert window.controller is not None and window.controller.busy
        assert not _shown(window)
        assert await turns.wait_for(timeout=10) == ("completed",)
        assert history_json(window.controller.conversation.history)[0] == {"role": "user", "content": "What time is it?"}
    finally:
        await window.shutdown()


async def test_the_welcome_comes_back_with_a_new_conversation(qtbot: QtBot) -> None:
    window = _window(qtbot)
    turns = SignalLog(window.turn_finished)
    try:
        assert window.send_text("hello")
        assert await turns.wait_for(timeout=10) == ("completed",)
        assert not _shown(window)
        assert window.new_conversation()
        await _until(lambda: window.chat.items() == [])
        assert _shown(window)
    finally:
        await window.shutdown()


def test_a_start_up_warning_leaves_the_welcome_in_place(qtbot: QtBot) -> None:
    window = _window(qtbot, replace(offline_deps(), warnings=("time server failed",)))
    assert _shown(window) and window.chat.items() == [] and window.notices.shown() == ["⚠ time server failed"]


def test_a_restored_conversation_shows_no_welcome(qtbot: QtBot) -> None:
    deps = offline_deps()
    deps.conversation.history = history_items([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello."}])
    window = _window(qtbot, deps)
    assert not _shown(window)


def test_the_welcome_speaks_the_new_language_after_a_switch(qtbot: QtBot) -> None:
    panel = WelcomePanel(is_demo=True, texts=ENGLISH)  # alone: its click sends nothing anywhere
    qtbot.add_widget(panel)
    panel.retranslate(CHINESE)
    assert (panel.title.text(), panel.prompt_texts()[0]) == ("你好！我是你的桌面助手。", "演示")
    with qtbot.wait_signal(panel.prompt_chosen, timeout=1000) as chosen:
        panel.prompts[0].click()
    assert chosen.args == ["演示"]
    with qtbot.wait_signal(panel.prompt_chosen, timeout=1000) as chosen:
        panel.prompts[2].click()
    assert (panel.prompts[2].text(), chosen.args) == ("运行 date", ["运行 `date`"])  # shown plain, sent as written
