"""Screenshots of the window in every tool-card state, a form, a visual card,
the settings dialog, Chinese and dark — saved to tests/artifacts/ (offscreen)
and checked not to be blank. Plain qtbot: the view is fed bus messages
directly, the way the playback queue feeds it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QBuffer, QByteArray, QIODevice
from PySide6.QtGui import QColor, QImage, QPainter, QPalette
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_agent.core.bus import BusItem
from desktop_agent.core.chat_handler import REASON_INTERRUPTED, REASON_REJECTED, REASON_TIMEOUT
from desktop_agent.core.ports import ImageContent
from desktop_agent.storage.settings import Settings
from desktop_agent.ui import i18n
from desktop_agent.ui.harness import form_item, message, offline_deps, tool_item
from desktop_agent.ui.main_window import MainWindow
from desktop_agent.ui.settings_dialog import SettingsDialog
from desktop_agent.ui.turn_view import TurnView

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
ARGS = {"command": "ls -la ~/Documents", "timeout_s": 30}


def _png(width: int = 240, height: int = 120) -> bytes:
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor("#2f81f7"))
    painter = QPainter(image)
    painter.fillRect(20, 20, 90, 80, QColor("#f2cc60"))
    painter.fillRect(130, 30, 90, 60, QColor("#3fb950"))
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return bytes(data.data())


def distinct_colours(image: QImage, step: int = 3) -> int:
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    raw = bytes(image.constBits())
    return len({raw[i : i + 4] for i in range(0, len(raw) - 3, 4 * step)})


@pytest.fixture
def window(qtbot: QtBot) -> Iterator[MainWindow]:
    window = MainWindow(tray=False)
    qtbot.add_widget(window)
    window.attach(offline_deps())
    window.resize(860, 720)
    window.show()
    qtbot.wait_exposed(window)
    yield window


def _prelude(window: MainWindow, view: TurnView, user: str, reply: str) -> None:
    window.chat.add_user(user)
    view.show_text(message("text", segment_id=1, text=reply, raw_text=reply, voice=False))


def _start(view: TurnView, call: str = "call_1") -> None:
    view.tool_event(tool_item("start", call))


def _approval(view: TurnView, call: str = "call_1") -> None:
    _start(view, call)
    view.approval_needed(tool_item("approval_required", call, arguments=ARGS, task_id="t1").message)


def _executing(view: TurnView, call: str = "call_1") -> None:
    _approval(view, call)
    view.mark_answered(call, True)
    view.tool_event(tool_item("executing", call, arguments=ARGS))


def scene_preparing(view: TurnView) -> None:
    _start(view)


def scene_approval(view: TurnView) -> None:
    _approval(view)


def scene_executing(view: TurnView) -> None:
    _executing(view)


def scene_progress(view: TurnView) -> None:
    _executing(view)
    view.tool_event(
        BusItem(
            message(
                "tool_progress",
                tool_call_id="call_1",
                progress=42,
                total=100,
                message="copying files",
                eta_s=75,
            )
        )
    )


def scene_done(view: TurnView) -> None:
    _executing(view)
    result = "total 12\ndrwxr-xr-x  2 me me 4096 Nov 30 notes\n-rw-r--r--  1 me me  512 Nov 30 todo.md"
    view.tool_event(
        tool_item(
            "result",
            arguments=ARGS,
            result=result,
            is_error=False,
            images=(ImageContent("image/png", _png()),),
        )
    )
    view.cards["call_1"].set_expanded(True)
    reply = "Your **Documents** folder holds:\n\n- `notes/` — a folder\n- `todo.md` — 512 bytes\n\n```sh\nls -la ~/Documents\n```\n"
    view.show_text(message("text", segment_id=2, text=reply, raw_text=reply, voice=False))
    view.turn_ended(message("turn_end"))


def _ended(view: TurnView, why: str, reason: str, **extra: Any) -> None:
    """The handler's closing pair: ``tool_rejected`` then ``interrupted``."""
    view.tool_event(
        BusItem(message("tool_rejected", tool_call_id="call_1", tool_name="run_command",
                        arguments=ARGS, reason=reason, **extra))
    )
    view.interrupted(message("interrupted", reason=why))


def scene_rejected(view: TurnView) -> None:
    _approval(view)
    view.mark_answered("call_1", False)
    _ended(view, "rejected", REASON_REJECTED)


def scene_invalidated(view: TurnView) -> None:
    _executing(view)
    view.tracker.interrupt_clicked()
    _ended(view, "user", REASON_INTERRUPTED,
           partial_result={"stdout": "total 12\ndrwxr-xr-x notes", "stderr": ""})
    view.cards["call_1"].set_expanded(True)


def scene_approval_timeout(view: TurnView) -> None:
    _approval(view)
    _ended(view, "approval_timeout", REASON_TIMEOUT)


def scene_form(view: TurnView) -> None:
    args = {"title": "Trip planning", "questions": []}
    view.tool_event(tool_item("start", "call_9", "ask_user_question"))
    view.tool_event(tool_item("executing", "call_9", "ask_user_question", arguments=args))
    questions = [
        {"id": "city", "question": "Which city?", "type": "text", "options": [], "required": True},
        {"id": "when", "question": "When?", "type": "choice",
         "options": ["This weekend", "Next month"], "required": True},
        {"id": "extras", "question": "Extras", "type": "multi_choice",
         "options": ["Hotel", "Car", "Museum pass"], "required": False},
    ]
    view.tool_event(form_item("call_9", "form-1", questions, title="Trip planning"))


def scene_visual_card(view: TurnView, tmp: Path) -> None:
    image = tmp / "card.png"
    image.write_bytes(_png(420, 160))
    view.tool_event(tool_item("start", "call_5", "show_card"))
    view.tool_event(tool_item("executing", "call_5", "show_card", arguments={"title": "Weather"}))
    view.tool_event(
        BusItem(
            message(
                "card",
                tool_call_id="call_5",
                card={
                    "title": "Beijing weather",
                    "body": "Sunny, light wind. **Great** for a walk.",
                    "image_path": str(image),
                    "fields": [
                        {"label": "Temperature", "value": "25 °C"},
                        {"label": "Humidity", "value": "30%"},
                    ],
                },
            )
        )
    )
    view.tool_event(
        tool_item(
            "result",
            "call_5",
            "show_card",
            arguments={"title": "Weather"},
            result="Card shown.",
            is_error=False,
        )
    )


def scene_two_calls(view: TurnView) -> None:
    for call, command in (("call_1", "date"), ("call_2", "uptime")):
        view.tool_event(tool_item("start", call))
        view.tool_event(
            tool_item(
                "approval_required", call, arguments={"command": command}, task_id=call, auto_approved=True
            )
        )
        view.tool_event(tool_item("executing", call, arguments={"command": command}))
        view.tool_event(
            tool_item("result", call, arguments={"command": command}, result=f"{command}: ok", is_error=False)
        )


SCENES: dict[str, Callable[[TurnView], None]] = {
    "preparing": scene_preparing,
    "approval": scene_approval,
    "executing": scene_executing,
    "progress": scene_progress,
    "done": scene_done,
    "rejected": scene_rejected,
    "invalidated": scene_invalidated,
    "approval_timeout": scene_approval_timeout,
    "form": scene_form,
    "two_calls": scene_two_calls,
}


def _save(window: MainWindow | SettingsDialog, name: str) -> QImage:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for _ in range(5):  # new rows show, measure and lay out over a few passes
        QApplication.processEvents()
    image = window.grab().toImage()
    assert image.save(str(ARTIFACTS / f"{name}.png")), f"could not save {name}.png"
    return image


@pytest.mark.parametrize("scene", list(SCENES))
def test_window_screenshot_of_each_card_state_is_not_blank(window: MainWindow, scene: str) -> None:
    view = TurnView(window.chat)
    _prelude(window, view, "What is in my Documents folder?", "Let me look.\n")
    SCENES[scene](view)
    image = _save(window, f"window_{scene}")
    assert distinct_colours(image) >= 12


def test_window_screenshot_of_a_visual_card_is_not_blank(window: MainWindow, tmp_path: Path) -> None:
    view = TurnView(window.chat)
    _prelude(window, view, "How is the weather?", "Here it is.\n")
    scene_visual_card(view, tmp_path)
    assert distinct_colours(_save(window, "window_visual_card")) >= 12


def test_settings_dialog_screenshot_is_not_blank(qtbot: QtBot) -> None:
    settings = Settings(
        base_url="https://api.example.com/v1",
        model="gpt-4o-mini",
        always_allow=("run_command", "get_current_time"),
    )
    dialog = SettingsDialog(settings, has_api_key=True, key_note="stored in the system keyring")
    qtbot.add_widget(dialog)
    dialog.show()
    qtbot.wait_exposed(dialog)
    assert distinct_colours(_save(dialog, "settings_dialog")) >= 12


@pytest.fixture
def chinese() -> Iterator[None]:
    previous = i18n.language()
    i18n.set_language("zh")
    yield
    i18n.set_language(previous)


def _window_at_approval(qtbot: QtBot, user: str, reply: str) -> MainWindow:
    """A shown window whose first turn waits for run_command's approval."""
    window = MainWindow(tray=False)
    qtbot.add_widget(window)
    window.attach(offline_deps())
    window.resize(860, 720)
    window.show()
    qtbot.wait_exposed(window)
    view = TurnView(window.chat)
    _prelude(window, view, user, reply)
    _approval(view)
    return window


def test_chinese_window_screenshot_renders_cjk(qtbot: QtBot, chinese: None) -> None:
    window = _window_at_approval(qtbot, "帮我看看文档文件夹里有什么？", "好的，我来看一下。\n")
    assert window.send_button.text() == "发送"
    image = _save(window, "window_zh_approval")
    assert distinct_colours(image) >= 12


@pytest.fixture
def dark_palette(qapp: QApplication) -> Iterator[None]:
    previous = qapp.palette()
    palette = QPalette()
    for role, colour in (
        (QPalette.ColorRole.Window, "#1e1f22"),
        (QPalette.ColorRole.WindowText, "#e6e7e9"),
        (QPalette.ColorRole.Base, "#2a2c30"),
        (QPalette.ColorRole.Text, "#e6e7e9"),
        (QPalette.ColorRole.Button, "#2f3136"),
        (QPalette.ColorRole.ButtonText, "#e6e7e9"),
        (QPalette.ColorRole.AlternateBase, "#26282c"),
    ):
        palette.setColor(role, QColor(colour))
    qapp.setPalette(palette)  # windows pick their colours from it (theme.apply_theme)
    yield
    qapp.setPalette(previous)


def test_dark_window_screenshot_uses_dark_colours(qtbot: QtBot, dark_palette: None) -> None:
    window = _window_at_approval(qtbot, "What is in my Documents folder?", "Let me look.\n")
    image = _save(window, "window_dark_approval")
    corner = QColor(image.pixel(5, 5))
    assert corner.lightness() < 80, corner.name()
    assert distinct_colours(image) >= 12


def test_screenshots_keep_the_card_inside_the_window(window: MainWindow) -> None:
    view = TurnView(window.chat)
    _prelude(window, view, "hi", "hello\n")
    _approval(view)
    QApplication.processEvents()
    card = view.cards["call_1"]
    top_left = card.mapTo(window, card.rect().topLeft())
    assert window.rect().contains(top_left)
    assert card.approve_button.isVisibleTo(window)
    assert card.width() <= window.width()
