"""The pickers in the real window (800×600): the app's ``/`` commands do
what they say, the enabled skills and the MCP catalogue (a fake here; the
real server-everything in ``test_picker_everything.py``) are listed, Esc
closes the list without stopping anything, and screenshots of the lists in
both languages, light and dark (``/work/shots25/u/`` when that folder exists)."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from desktop_agent.core.conversation import Conversation
from desktop_agent.skills_engine import SkillInfo
from desktop_agent.storage.settings import Settings
from desktop_agent.testing.fake_mentions import (
    FakeArgument,
    FakeMentions,
    FakePrompt,
    FakeResource,
    FakeTemplate,
)
from desktop_agent.testing.window_rig import offline_deps
from desktop_agent.texts import CHINESE, ENGLISH, Texts
from desktop_agent.ui.chat.system_message import SystemMessage
from desktop_agent.ui.chat.turn_deps import ConversationKeeper
from desktop_agent.ui.common.theme import DARK, LIGHT, set_theme_choice
from desktop_agent.ui.settings.mcp_feature import McpFeature
from desktop_agent.ui.shell.main_window import MainWindow

pytestmark = pytest.mark.usefixtures("keep_loop_on_close")

SHOTS = Path("/work/shots25/u")


def _skill(name: str, description: str) -> SkillInfo:
    return SkillInfo(name, description, "bundled", Path("/skills") / name)


def _mentions() -> FakeMentions:
    return FakeMentions(
        [FakePrompt("everything", "completable-prompt", "First argument choice narrows values for second argument.", (
            FakeArgument("department", "Choose the department.", True),
            FakeArgument("name", "Choose a team member to lead the selected department.", True),
        ), title="Team Management"),
         FakePrompt("everything", "simple-prompt", "A prompt with no arguments", title="Simple prompt")],
        [FakeResource("everything", "demo://resource/static/document/architecture.md", "architecture.md"),
         FakeResource("everything", "demo://resource/static/document/features.md", "features.md")],
        [FakeTemplate("everything", "demo://resource/dynamic/text/{resourceId}", "Dynamic Text Resource")],
        completions={("completable-prompt", "department"): ["Engineering", "Sales", "Marketing", "Support"],
                     ("demo://resource/dynamic/text/{resourceId}", "resourceId"): ["3", "30", "31", "4"]},
    )


def _window(qtbot: QtBot, texts: Texts = ENGLISH, *, settings: Settings | None = None) -> MainWindow:
    window = MainWindow(tray=False, texts=texts)
    qtbot.add_widget(window)
    base = offline_deps(settings=settings)
    agent = base.conversation.agent
    window.attach(replace(
        base,
        keeper=ConversationKeeper(lambda _old: Conversation(agent)),
        mcp=McpFeature(lambda: [], mentions=_mentions()),
        skills=(_skill("summarise", "Summarise a long text"), _skill("translate", "Translate between Chinese and English")),
    ))
    window.resize(800, 600)
    window.show()
    qtbot.wait_exposed(window)
    window.input.setFocus()
    return window


def _settle(window: MainWindow) -> None:
    """Run the layout the window posted (the welcome panel's) before a
    synchronous test takes its picture."""
    QApplication.processEvents()
    window.input.setFocus()


def _central(window: MainWindow) -> QWidget:
    central = window.centralWidget()
    assert central is not None
    return central


def _labels(window: MainWindow) -> list[str]:
    assert window.commands is not None
    popup = window.commands.picker.popup
    return [c.label for c in popup.choices] if popup.isVisible() else []


async def _until(condition: Callable[[], bool], timeout_s: float = 10) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.01)


def _save(window: MainWindow, tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.png"
    assert window.grab().save(str(path))
    if SHOTS.parent.is_dir():
        SHOTS.mkdir(exist_ok=True)
        shutil.copy(path, SHOTS / path.name)
    return path


@pytest.fixture
def dark(qapp: QApplication) -> Iterator[None]:
    set_theme_choice("dark")
    yield
    set_theme_choice("system")


def test_slash_help_says_the_commands_in_one_line(qtbot: QtBot) -> None:
    window = _window(qtbot)
    QTest.keyClicks(window.input, "/help")
    assert _labels(window) == ["/help"]
    QTest.keyClick(window.input, Qt.Key.Key_Return)
    assert window.input.toPlainText() == ""
    lines = [w.text() for w in window.chat.items() if isinstance(w, SystemMessage)]
    assert lines == [ENGLISH.tr("cmd_help_text")]
    assert window.controller is not None and window.controller.conversation.history == []  # nothing sent


def test_slash_settings_opens_settings(qtbot: QtBot) -> None:
    window = _window(qtbot)
    QTest.keyClicks(window.input, "/settings")
    QTest.keyClick(window.input, Qt.Key.Key_Escape)  # the list closed: Enter sends the typed command
    QTest.keyClick(window.input, Qt.Key.Key_Return)
    dialog = window.settings_dialog
    assert dialog is not None and dialog.isVisible()
    assert window.input.toPlainText() == ""
    dialog.reject()


def test_slash_new_starts_a_new_conversation(qtbot: QtBot) -> None:
    window = _window(qtbot)
    controller = window.controller
    assert controller is not None
    first = controller.conversation
    window.chat.add_user("an earlier message")
    QTest.keyClicks(window.input, "/ne")
    QTest.keyClick(window.input, Qt.Key.Key_Tab)
    assert controller.conversation is not first
    qtbot.waitUntil(lambda: window.chat.items() == [], timeout=5000)


def test_the_slash_list_has_the_enabled_skills_and_the_prompts(qtbot: QtBot) -> None:
    window = _window(qtbot, settings=Settings(enabled_skills=("translate",)))
    QTest.keyClicks(window.input, "/")
    assert _labels(window) == [
        "/new", "/settings", "/help", "/translate",
        "/mcp__everything__completable-prompt", "/mcp__everything__simple-prompt",
    ]


def test_esc_with_the_list_open_closes_it_and_leaves_the_edit_alone(qtbot: QtBot) -> None:
    window = _window(qtbot)
    QTest.keyClicks(window.input, "@")
    assert _labels(window)
    QTest.keyClick(window.input, Qt.Key.Key_Escape)
    assert _labels(window) == [] and window.input.toPlainText() == "@"


@pytest.mark.parametrize("texts", [ENGLISH, CHINESE], ids=["en", "zh"])
def test_screenshot_the_slash_list(qtbot: QtBot, tmp_path: Path, texts: Texts) -> None:
    window = _window(qtbot, texts)
    _settle(window)
    QTest.keyClicks(window.input, "/")
    assert window.commands is not None
    popup = window.commands.picker.popup
    assert popup.geometry().bottom() < window.input.mapTo(_central(window), QPoint(0, 0)).y()
    assert popup.geometry().top() >= 0 and popup.geometry().right() <= _central(window).width()
    image = _save(window, tmp_path, f"slash_list_{texts.language}").as_posix()
    origins = [c.origin for c in popup.choices]
    assert origins[:5] == [texts.tr("picker_origin_app")] * 3 + [texts.tr("picker_origin_skill")] * 2
    assert Path(image).stat().st_size > 0


@pytest.mark.parametrize("texts", [ENGLISH, CHINESE], ids=["en", "zh"])
def test_screenshot_the_at_list_dark(qtbot: QtBot, tmp_path: Path, texts: Texts, dark: None) -> None:
    window = _window(qtbot, texts)
    _settle(window)
    QTest.keyClicks(window.input, "@")
    assert _labels(window) == ["architecture.md", "features.md", "Dynamic Text Resource"]
    image = window.grab().toImage()
    _save(window, tmp_path, f"at_list_dark_{texts.language}")
    assert window.commands is not None
    popup = window.commands.picker.popup
    corner = popup.geometry().topLeft() + QPoint(popup.width() // 2, 2)
    corner = _central(window).mapTo(window, corner)
    assert image.pixelColor(corner) == QColor(DARK.card)


@pytest.mark.parametrize("texts", [ENGLISH, CHINESE], ids=["en", "zh"])
async def test_screenshot_an_argument_completion(qtbot: QtBot, tmp_path: Path, texts: Texts) -> None:
    window = _window(qtbot, texts)
    QTest.keyClicks(window.input, "/mcp__everything__comp")
    QTest.keyClick(window.input, Qt.Key.Key_Return)
    QTest.keyClick(window.input, Qt.Key.Key_Return)
    await _until(lambda: _labels(window) == ["Engineering", "Sales", "Marketing", "Support"])
    image = window.grab().toImage()
    _save(window, tmp_path, f"argument_completion_{texts.language}")
    assert window.commands is not None
    popup = window.commands.picker.popup
    corner = _central(window).mapTo(window, popup.geometry().topLeft() + QPoint(popup.width() // 2, 2))
    assert image.pixelColor(corner) == QColor(LIGHT.card)
    assert window.input.toPlainText() == "/mcp__everything__completable-prompt department="


@pytest.mark.parametrize("texts", [ENGLISH, CHINESE], ids=["en", "zh"])
async def test_screenshot_a_template_variable_asked(qtbot: QtBot, tmp_path: Path, texts: Texts) -> None:
    window = _window(qtbot, texts)
    QTest.keyClicks(window.input, "@dyn")
    QTest.keyClick(window.input, Qt.Key.Key_Return)
    assert window.commands is not None
    popup = window.commands.picker.popup
    assert popup.asking
    QTest.keyClicks(popup.field, "3")
    await _until(lambda: _labels(window) == ["3", "30", "31"])
    _save(window, tmp_path, f"template_variable_{texts.language}")
    QTest.keyClick(popup.field, Qt.Key.Key_Down)
    QTest.keyClick(popup.field, Qt.Key.Key_Return)
    assert window.input.toPlainText() == "@everything:demo://resource/dynamic/text/30 "


def test_esc_closes_the_list_first_and_only_the_next_esc_cancels_an_edit(qtbot: QtBot) -> None:
    from desktop_agent.testing.scripted_server import text_reply
    from desktop_agent.testing.window_rig import run_on_qasync, scripted_window
    from desktop_agent.ui.chat.bubble import MessageBubble

    async def main() -> None:
        async with scripted_window([text_reply("Sure.<no_tool>"), text_reply("Five.")]) as rig:
            assert await rig.turn("what is 2+3?") == "completed"
            window = rig.window
            user = next(w for w in window.chat.items() if isinstance(w, MessageBubble) and w.role == "user")
            assert user.action_row is not None
            user.action_row.edit_button.click()
            QTest.keyClick(window.input, Qt.Key.Key_Home)
            QTest.keyClicks(window.input, "/")
            assert _labels(window)[:3] == ["/new", "/settings", "/help"]
            QTest.keyClick(window.input, Qt.Key.Key_Escape)
            assert _labels(window) == []
            assert window.chat_actions is not None and window.chat_actions.editing
            QTest.keyClick(window.input, Qt.Key.Key_Escape)
            assert not window.chat_actions.editing and window.input.toPlainText() == ""

    run_on_qasync(main, timeout=60)
