"""Screenshots of the window in every tool-card state, a form, a visual card,
the settings dialog, Chinese and dark — saved to tests/artifacts/ (offscreen)
and checked for what they must show: each card's visible parts and texts,
and the theme's colours where bubbles, cards and buttons are. Plain qtbot: the view is fed bus messages
directly, the way the playback queue feeds it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPoint, QRect
from PySide6.QtGui import QColor, QImage, QPainter, QPalette
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QWidget
from pytestqt.qtbot import QtBot

from desktop_agent.core.chat_handler import REASON_INTERRUPTED, REASON_REJECTED, REASON_TIMEOUT
from desktop_agent.core.messages import (
    Card,
    CardField,
    CardMessage,
    ImageContent,
    InterruptedMessage,
    InterruptReason,
    ToolOutputMessage,
    ToolProgressMessage,
    TurnEndMessage,
)
from desktop_agent.storage.settings import Settings
from desktop_agent.testing.window_rig import form_item, offline_deps, rejected_item, text_item, tool_item
from desktop_agent.texts import CHINESE, ENGLISH, Texts
from desktop_agent.ui.cards.form_widget import FormWidget
from desktop_agent.ui.cards.tool_card import ToolCardWidget
from desktop_agent.ui.cards.visual_card import VisualCardWidget
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.turn_view import TurnView
from desktop_agent.ui.common.theme import DARK, LIGHT
from desktop_agent.ui.settings.dialog import SettingsDialog
from desktop_agent.ui.shell.main_window import MainWindow

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
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
    image.save(buffer, "PNG")  # type: ignore[call-overload]  # the stub says bytes; the binding takes str
    return bytes(data.data())


def shown(card: ToolCardWidget) -> dict[str, object]:
    """What a tool card shows: its phase and title, the text of each visible
    part, the progress bar's value, the buttons that can be pressed."""
    out: dict[str, object] = {"phase": card.property("phase"), "title": card.title.text()}
    for name in ("badge", "arguments", "progress_caption", "reason", "result_label", "result"):
        label: QLabel = getattr(card, name)
        if label.isVisibleTo(card):
            out[name] = label.text()
    if card.live_row.isVisibleTo(card):
        out["live_output"] = card.live_output.toPlainText()
    if card.spinner.isVisibleTo(card):
        out["spinner"] = True
    if card.progress_bar.isVisibleTo(card):
        out["progress_bar"] = card.progress_bar.value()
    if card.approval_row.isVisibleTo(card):
        out["buttons"] = [b.text() for b in (card.approve_button, card.reject_button) if b.isEnabled()]
    if card.images.isVisibleTo(card):
        out["images"] = len(card.images.findChildren(QLabel))
    return out


def dominant(image: QImage, widget: QWidget) -> str:
    """The commonest colour where ``widget`` lies in the window's ``image``:
    its background, whatever text or icons sit on it."""
    rect = QRect(widget.mapTo(widget.window(), QPoint(0, 0)), widget.size()).intersected(image.rect())
    counts = Counter(
        image.pixelColor(x, y).name()
        for x in range(rect.left(), rect.right() + 1, 2)
        for y in range(rect.top(), rect.bottom() + 1, 2)
    )
    return counts.most_common(1)[0][0]


def painted(window: MainWindow, image: QImage) -> dict[str, object]:
    """The colours the window's parts are painted in, named as in :class:`theme.Colors`."""
    cards = window.findChildren(ToolCardWidget)
    return {
        "window": dominant(image, window.chat.viewport()),
        "bubbles": [(b.role, dominant(image, b)) for b in window.findChildren(MessageBubble)],
        "cards": [dominant(image, card) for card in cards],
        "approve": [dominant(image, c.approve_button) for c in cards if c.approve_button.isVisibleTo(c)],
    }


@pytest.fixture
def window(shown_window: MainWindow) -> MainWindow:
    return shown_window


def _prelude(window: MainWindow, view: TurnView, user: str, reply: str) -> None:
    window.chat.add_user(user)
    view.show_text(text_item(reply, 1))


def _start(view: TurnView, call: str = "call_1") -> None:
    view.tool_event(tool_item("start", call))


def _approval(view: TurnView, call: str = "call_1") -> None:
    _start(view, call)
    view.approval_needed(tool_item("approval_required", call, arguments=ARGS, task_id="t1"))


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
    view.tool_event(ToolProgressMessage("call_1", progress=42, total=100, message="copying files", eta_s=75))


def scene_live_output(view: TurnView) -> None:
    _executing(view)
    card = view.cards["call_1"]
    started = card.clock()
    card.clock = lambda: started + 12.4  # twelve seconds in, no total reported
    for n in range(1, 7):
        view.tool_event(ToolOutputMessage("call_1", "stdout", f"step {n} of 10: fetching\n"))
        if n == 5:
            view.tool_event(ToolOutputMessage("call_1", "stderr", "warning: slow mirror\n"))
    card.tick()


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
    view.show_text(text_item(reply, 2))
    view.turn_ended(TurnEndMessage())


def _ended(view: TurnView, why: InterruptReason, reason: str, **extra: Any) -> None:
    """The handler's closing pair: ``tool_rejected`` then ``interrupted``."""
    view.tool_event(rejected_item(reason, arguments=ARGS, **extra))
    view.interrupted(InterruptedMessage(why))


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
    card = Card(
        "Beijing weather",
        "Sunny, light wind. **Great** for a walk.",
        str(image),
        (CardField("Temperature", "25 °C"), CardField("Humidity", "30%")),
    )
    view.tool_event(CardMessage("call_5", card))
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
        view.auto_approved(tool_item("approval_required", call, arguments={"command": command}, task_id=call))
        view.tool_event(tool_item("executing", call, arguments={"command": command}))
        view.tool_event(
            tool_item("result", call, arguments={"command": command}, result=f"{command}: ok", is_error=False)
        )


SCENES: dict[str, Callable[[TurnView], None]] = {
    "preparing": scene_preparing,
    "approval": scene_approval,
    "executing": scene_executing,
    "progress": scene_progress,
    "live_output": scene_live_output,
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


ARGS_TEXT = "command: ls -la ~/Documents\ntimeout_s: 30"
SUMMARY = "command: ls -la ~/Documents · timeout_s: 30"
CARDS: dict[str, list[dict[str, object]]] = {
    "preparing": [{"phase": "preparing", "title": "run_command — preparing…", "spinner": True}],
    "approval": [
        {
            "phase": "approval",
            "title": "run_command needs your approval",
            "arguments": ARGS_TEXT,
            "buttons": ["Approve (Alt+A)", "Reject (Alt+R)"],
        }
    ],
    "executing": [
        {"phase": "executing", "title": "run_command — running…", "arguments": ARGS_TEXT, "spinner": True}
    ],
    "progress": [
        {
            "phase": "executing",
            "title": "run_command — running…",
            "arguments": ARGS_TEXT,
            "progress_caption": "42% · about 2 min left · copying files",
            "spinner": True,
            "progress_bar": 42,
        }
    ],
    "live_output": [
        {
            "phase": "executing",
            "title": "run_command — running…",
            "arguments": ARGS_TEXT,
            "progress_caption": "running · 12 s",
            "spinner": True,
            "live_output": "step 4 of 10: fetching\nstep 5 of 10: fetching\nwarning: slow mirror\nstep 6 of 10: fetching",
        }
    ],
    "done": [
        {
            "phase": "done",
            "title": "run_command",
            "arguments": ARGS_TEXT,
            "result_label": "Result",
            "result": "total 12\ndrwxr-xr-x  2 me me 4096 Nov 30 notes\n-rw-r--r--  1 me me  512 Nov 30 todo.md",
            "images": 1,
        }
    ],
    "rejected": [
        {
            "phase": "rejected",
            "title": "run_command — rejected",
            "badge": SUMMARY,
            "reason": "Rejected by you",
        }
    ],
    "invalidated": [
        {
            "phase": "invalidated",
            "title": "run_command — stopped",
            "arguments": ARGS_TEXT,
            "reason": "Stopped by you",
            "result_label": "Partial result",
            "result": "[stdout]\ntotal 12\ndrwxr-xr-x notes",
        }
    ],
    "approval_timeout": [
        {
            "phase": "rejected",
            "title": "run_command — not run",
            "badge": SUMMARY,
            "reason": "No answer in 300 s — not run",
        }
    ],
    "form": [{"phase": "executing", "title": "ask_user_question — running…", "spinner": True}],
    "two_calls": [
        {"phase": "done", "title": "run_command", "badge": "command: date"},
        {"phase": "done", "title": "run_command", "badge": "command: uptime"},
    ],
}
CARD_COLOUR = {
    **dict.fromkeys(("rejected", "invalidated", "approval_timeout"), LIGHT.card_header),
    "live_output": LIGHT.code,  # the output area fills most of a running command's card
}


@pytest.mark.parametrize("scene", list(SCENES))
def test_window_screenshot_shows_each_card_state(window: MainWindow, scene: str) -> None:
    view = TurnView(window.chat, approval_timeout_s=300)
    _prelude(window, view, "What is in my Documents folder?", "Let me look.\n")
    SCENES[scene](view)
    if scene == "done":  # the reply's code block (language, Copy) is taller: keep the window's ground the commonest colour
        window.resize(860, 800)
    image = _save(window, f"window_{scene}")

    assert [shown(card) for card in window.findChildren(ToolCardWidget)] == CARDS[scene]
    bubbles = [("user", LIGHT.user_bubble), ("assistant", LIGHT.assistant_bubble)]
    assert painted(window, image) == {
        "window": LIGHT.window,
        "bubbles": bubbles + [("assistant", LIGHT.assistant_bubble)] * (scene == "done"),
        "cards": [CARD_COLOUR.get(scene, LIGHT.card)] * len(CARDS[scene]),
        "approve": [LIGHT.approve] * (scene == "approval"),
    }


def test_the_done_card_shows_the_tool_image(window: MainWindow) -> None:
    view = TurnView(window.chat)
    _prelude(window, view, "What is in my Documents folder?", "Let me look.\n")
    scene_done(view)
    image = _save(window, "window_done")

    (picture,) = view.cards["call_1"].images.findChildren(QLabel)
    assert (picture.pixmap().size().toTuple(), dominant(image, picture)) == ((240, 120), "#2f81f7")


def test_the_form_shows_its_questions_and_buttons(window: MainWindow) -> None:
    view = TurnView(window.chat)
    _prelude(window, view, "Plan a trip", "A few questions first.\n")
    scene_form(view)
    _save(window, "window_form")

    (form,) = window.findChildren(FormWidget)
    texts = [label.text() for label in form.findChildren(QLabel) if label.isVisibleTo(form) and label.text()]
    buttons = [b for b in form.findChildren(QAbstractButton) if b.isVisibleTo(form) and b.isEnabled()]
    buttons.sort(key=lambda b: (b.mapTo(form, QPoint(0, 0)).y(), b.mapTo(form, QPoint(0, 0)).x()))
    choices = [b.text() for b in buttons]  # in reading order
    assert (texts, choices) == (
        ["Trip planning", "Which city?", "When?", "Extras (optional)"],
        ["This weekend", "Next month", "Hotel", "Car", "Museum pass", "Cancel", "Submit"],
    )


def test_window_screenshot_of_a_visual_card_shows_its_title_fields_and_picture(
    window: MainWindow, tmp_path: Path
) -> None:
    view = TurnView(window.chat)
    _prelude(window, view, "How is the weather?", "Here it is.\n")
    scene_visual_card(view, tmp_path)
    image = _save(window, "window_visual_card")

    (card,) = window.findChildren(VisualCardWidget)
    texts = [label.text() for label in card.findChildren(QLabel) if label.isVisibleTo(card) and label.text()]
    assert texts == [
        "Beijing weather",
        "Sunny, light wind. **Great** for a walk.",
        "Temperature",
        "25 °C",
        "Humidity",
        "30%",
    ]
    assert card.image is not None
    assert dominant(image, card.image) == "#2f81f7"


def test_settings_dialog_screenshot_shows_the_settings(qtbot: QtBot) -> None:
    settings = Settings(
        base_url="https://api.example.com/v1",
        model="gpt-4o-mini",
        always_allow=("builtin/run_command", "time/get_current_time"),
    )
    dialog = SettingsDialog(settings, has_api_key=True, key_note="stored in the system keyring", texts=ENGLISH)
    qtbot.add_widget(dialog)
    dialog.show()
    qtbot.wait_exposed(dialog)
    image = _save(dialog, "settings_dialog")

    allowed = [dialog.allowed.item(row).text() for row in range(dialog.allowed.count())]
    assert (dialog.base_url.text(), dialog.model.text(), dialog.key_note.text(), allowed) == (
        "https://api.example.com/v1",
        "gpt-4o-mini",
        "stored in the system keyring",
        ["run_command (built-in)", "get_current_time — from time"],
    )
    # Nothing in the allowed list is selected yet, so there is nothing to revoke.
    assert (dialog.key_note.isVisible(), dialog.revoke.isEnabled(), dominant(image, dialog)) == (
        True,
        False,
        LIGHT.window,
    )


def _window_at_approval(qtbot: QtBot, user: str, reply: str, texts: Texts = ENGLISH) -> MainWindow:
    """A shown window whose first turn waits for run_command's approval."""
    window = MainWindow(tray=False, texts=texts)
    qtbot.add_widget(window)
    window.attach(offline_deps())
    window.resize(860, 720)
    window.show()
    qtbot.wait_exposed(window)
    view = TurnView(window.chat)
    _prelude(window, view, user, reply)
    _approval(view)
    return window


def test_chinese_window_screenshot_renders_cjk(qtbot: QtBot) -> None:
    window = _window_at_approval(qtbot, "帮我看看文档文件夹里有什么？", "好的，我来看一下。\n", CHINESE)
    image = _save(window, "window_zh_approval")

    (card,) = window.findChildren(ToolCardWidget)
    assert (window.send_button.text(), shown(card)) == (
        "发送",
        {
            "phase": "approval",
            "title": "run_command 需要授权",
            "arguments": ARGS_TEXT,
            "buttons": ["批准（Alt+A）", "拒绝（Alt+R）"],
        },
    )
    assert painted(window, image)["bubbles"] == [
        ("user", LIGHT.user_bubble),
        ("assistant", LIGHT.assistant_bubble),
    ]


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

    assert painted(window, image) == {
        "window": DARK.window,
        "bubbles": [("user", DARK.user_bubble), ("assistant", DARK.assistant_bubble)],
        "cards": [DARK.card],
        "approve": [DARK.approve],
    }
    # The speaker is drawn in the text colour: light on the dark window.
    assert lightest(image, window.audio.mute_button) > 180


def lightest(image: QImage, widget: QWidget) -> int:
    """The highest lightness (0–255) painted where ``widget`` lies."""
    rect = QRect(widget.mapTo(widget.window(), QPoint(0, 0)), widget.size()).intersected(image.rect())
    return max(
        image.pixelColor(x, y).lightness()
        for x in range(rect.left(), rect.right() + 1)
        for y in range(rect.top(), rect.bottom() + 1)
    )


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


def _nested(message: Any) -> Any:
    return replace(message, parent_tool_call_id="call_1")


def scene_sub_agent(view: TurnView) -> None:
    """A sub_agent call running: its agent said a sentence, ran one command,
    and now asks to run a second one (nested cards, contracts §9)."""
    sub_args = {"task": "Find the largest file in ~/Documents", "allowed_tools": ["run_command"]}
    view.tool_event(tool_item("start", "call_1", "sub_agent"))
    view.approval_needed(tool_item("approval_required", "call_1", "sub_agent", sub_args, task_id="t1"))
    view.mark_answered("call_1", True)
    view.tool_event(tool_item("executing", "call_1", "sub_agent", sub_args))
    view.tool_event(ToolProgressMessage("call_1", 1, None, "I'll list the folder by size.", None))
    first = {"command": "ls -S ~/Documents | head -1"}
    view.tool_event(_nested(tool_item("start", "call_2")))
    view.approval_needed(_nested(tool_item("approval_required", "call_2", arguments=first, task_id="call_1.t1")))
    view.mark_answered("call_1/call_2", True)
    view.tool_event(_nested(tool_item("executing", "call_2", arguments=first)))
    view.tool_event(_nested(tool_item("result", "call_2", arguments=first, result="report.pdf")))
    view.tool_event(ToolProgressMessage("call_1", 2, None, "The largest is report.pdf; checking its size.", None))
    second = {"command": "du -h ~/Documents/report.pdf"}
    view.tool_event(_nested(tool_item("start", "call_3")))
    view.approval_needed(_nested(tool_item("approval_required", "call_3", arguments=second, task_id="call_1.t2")))


def test_window_screenshot_of_a_sub_agent_with_a_nested_approval(window: MainWindow) -> None:
    view = TurnView(window.chat, approval_timeout_s=300)
    _prelude(window, view, "Which file in Documents is the largest?", "I'll hand this to a sub-agent.\n")
    scene_sub_agent(view)
    _save(window, "window_sub_agent")

    parent = view.cards["call_1"]
    assert shown(parent) == {
        "phase": "executing",
        "title": "sub_agent — running…",
        "arguments": "task: Find the largest file in ~/Documents\nallowed_tools: [\"run_command\"]",
        "progress_caption": "The largest is report.pdf; checking its size.",
        "spinner": True,
    }
    assert parent.nested.isVisibleTo(parent)
    assert parent.nested_cards() == [view.cards["call_1/call_2"], view.cards["call_1/call_3"]]
    assert [shown(card) for card in parent.nested_cards()] == [
        {"phase": "done", "title": "run_command", "badge": "command: ls -S ~/Documents | head -1"},
        {
            "phase": "approval",
            "title": "Sub-agent wants to run run_command",
            "arguments": "command: du -h ~/Documents/report.pdf",
            "buttons": ["Approve (Alt+A)", "Reject (Alt+R)"],
        },
    ]
    assert [c for c in window.findChildren(ToolCardWidget) if c.parentWidget() is not parent.nested] == [parent]
