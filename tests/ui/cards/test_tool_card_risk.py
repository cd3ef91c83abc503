"""A tool's risk on its card: a destructive tool's card is red,
says "May change or delete data", and is always-allowed only after a second
confirmation; an open-world tool says it reaches outside this computer; a
trusted server's read-only call says why it ran without asking. With
screenshots (tests/artifacts/card_destructive_*.png)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from desktop_agent.core.risk import ToolAnnotations
from desktop_agent.testing.window_rig import offline_deps, text_item, tool_item
from desktop_agent.texts import CHINESE, ENGLISH, Texts
from desktop_agent.tools.run_command import RunCommandTool
from desktop_agent.ui.cards.phase import CardPhase
from desktop_agent.ui.cards.state import ToolCardState, auto_approved
from desktop_agent.ui.cards.tool_card import ToolCardWidget
from desktop_agent.ui.chat.turn_view import TurnView
from desktop_agent.ui.common.theme import LIGHT
from desktop_agent.ui.shell.main_window import MainWindow

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
RUN_COMMAND = RunCommandTool().spec.annotations
ARGS = {"command": "rm -rf ~/Downloads/old-builds"}
WEB = ToolAnnotations(read_only=True, open_world=True)


@pytest.fixture
def card(qtbot: QtBot) -> ToolCardWidget:
    widget = ToolCardWidget(ToolCardState("c1", "run_command", CardPhase.APPROVAL, ARGS, task_id="t1", annotations=RUN_COMMAND), ENGLISH)
    qtbot.add_widget(widget)
    widget.show()
    return widget


def answers(card: ToolCardWidget) -> list[tuple[str, bool, bool]]:
    got: list[tuple[str, bool, bool]] = []
    card.answered.connect(lambda *args: got.append(args))
    return got


def rows(card: ToolCardWidget) -> tuple[bool, bool]:
    return card.approval_row.isVisibleTo(card), card.confirm_row.isVisibleTo(card)


def test_run_command_declares_itself_destructive_and_open_world() -> None:
    assert RUN_COMMAND is not None and RUN_COMMAND.hints() == ("destructive", "open_world")


def test_a_destructive_card_is_marked_red_and_says_what_it_may_do(card: ToolCardWidget) -> None:
    assert card.property("risk") == "destructive"
    assert card.risk.isVisibleTo(card)
    assert card.risk.text() == "May change or delete data"  # rm uses no network
    assert rows(card) == (True, False)


def test_always_allowing_a_destructive_tool_needs_a_second_confirmation(card: ToolCardWidget) -> None:
    got = answers(card)
    card.always.setChecked(True)

    card.approve_button.click()

    assert got == []  # not yet
    assert rows(card) == (False, True)
    assert card.confirm_text.text() == (
        "Always allow “rm …” commands? They may change or delete data, and will run without asking.")
    card.confirm_always.click()
    assert got == [("c1", True, True)]


def test_just_this_once_approves_without_always_allowing(card: ToolCardWidget) -> None:
    got = answers(card)
    card.always.setChecked(True)
    card.approve_button.click()

    card.confirm_once.click()

    assert got == [("c1", True, False)]
    assert not card.always.isChecked()


def test_back_returns_to_the_buttons_and_answers_nothing(card: ToolCardWidget) -> None:
    got = answers(card)
    card.always.setChecked(True)
    card.approve_button.click()

    card.confirm_back.click()

    assert (got, rows(card)) == ([], (True, False))
    card.reject_button.click()  # rejecting never asks twice
    assert got == [("c1", False, False)]


def test_approving_a_destructive_tool_once_needs_no_confirmation(card: ToolCardWidget) -> None:
    got = answers(card)
    card.approve_button.click()
    assert got == [("c1", True, False)]


def test_other_tools_are_always_allowed_at_once(qtbot: QtBot) -> None:
    card = ToolCardWidget(ToolCardState("c1", "fetch", CardPhase.APPROVAL, {"url": "x"}, task_id="t1", annotations=WEB), ENGLISH)
    qtbot.add_widget(card)
    got = answers(card)
    card.always.setChecked(True)
    card.approve_button.click()
    assert got == [("c1", True, True)]
    assert (card.property("risk"), card.risk.text()) == ("", "Reaches outside this computer")


def test_a_card_whose_tool_says_nothing_shows_no_risk_line(qtbot: QtBot) -> None:
    card = ToolCardWidget(ToolCardState("c1", "echo", CardPhase.APPROVAL, {"text": "x"}, task_id="t1"), ENGLISH)
    qtbot.add_widget(card)
    assert (card.property("risk"), card.risk.isVisibleTo(card)) == ("", False)


def test_a_trusted_read_only_call_says_why_it_ran_without_asking(qtbot: QtBot) -> None:
    state = ToolCardState("c1", "read_file", CardPhase.APPROVAL, {"path": "a"}, task_id="t1", server="files",
                          annotations=ToolAnnotations(read_only=True))
    card = ToolCardWidget(auto_approved(state, "read_only_setting"), ENGLISH)
    qtbot.add_widget(card)
    assert (card.state.phase, card.badge.text(), card.approval_row.isVisibleTo(card)) == (
        "executing", "read-only, allowed by your setting", False)
    card.show_state(auto_approved(state))
    assert card.badge.text() == "always allowed"


# ------------------------------------------------------------- screenshots


def _window(qtbot: QtBot, user: str, reply: str, texts: Texts = ENGLISH) -> tuple[MainWindow, ToolCardWidget]:
    window = MainWindow(tray=False, texts=texts)
    qtbot.add_widget(window)
    window.attach(offline_deps())
    window.resize(860, 600)
    window.show()
    qtbot.wait_exposed(window)
    view = TurnView(window.chat, annotations_of=lambda name: RUN_COMMAND if name == "run_command" else None)
    window.chat.add_user(user)
    view.show_text(text_item(reply, 1))
    view.tool_event(tool_item("start", "call_1"))
    view.approval_needed(tool_item("approval_required", "call_1", arguments=ARGS, task_id="t1"))
    (card,) = window.findChildren(ToolCardWidget)
    return window, card


def _save(window: MainWindow, name: str) -> QImage:
    for _ in range(5):
        QApplication.processEvents()
    image = window.grab().toImage()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert image.save(str(ARTIFACTS / f"{name}.png"))
    return image


def edge_colour(image: QImage, widget: QWidget) -> str:
    """The commonest colour along the widget's left edge (its border)."""
    rect = QRect(widget.mapTo(widget.window(), QPoint(0, 0)), widget.size())
    x = rect.left()
    counts = Counter(image.pixelColor(x + dx, y).name() for dx in (0, 1) for y in range(rect.top() + 10, rect.bottom() - 10))
    return counts.most_common(1)[0][0]


def shown(card: ToolCardWidget) -> dict[str, object]:
    return {
        "title": card.title.text(),
        "risk": card.risk.text() if card.risk.isVisibleTo(card) else None,
        "buttons": [b.text() for b in (card.approve_button, card.reject_button) if b.isVisibleTo(card)],
        "always": card.always.text() if card.always.isVisibleTo(card) else None,
        "confirm": [b.text() for b in (card.confirm_always, card.confirm_once, card.confirm_back) if b.isVisibleTo(card)],
    }


def test_screenshot_of_a_destructive_card_in_english(qtbot: QtBot) -> None:
    window, card = _window(qtbot, "Clean up my old builds", "I'll delete the old build folder.")
    image = _save(window, "card_destructive_en")
    assert shown(card) == {
        "title": "run_command needs your approval",
        "risk": "May change or delete data",
        "buttons": ["Approve (Alt+A)", "Reject (Alt+R)"],
        "always": "Always allow “rm …”",
        "confirm": [],
    }
    assert edge_colour(image, card) == LIGHT.reject  # the red border

    card.always.setChecked(True)
    card.approve_button.click()
    _save(window, "card_destructive_confirm_en")
    assert shown(card)["confirm"] == ["Yes, always allow", "Just this once", "Back"]
    assert shown(card)["buttons"] == []


def test_screenshot_of_a_destructive_card_in_chinese(qtbot: QtBot) -> None:
    window, card = _window(qtbot, "帮我清理旧的构建文件", "好的，我来删除旧的构建文件夹。", CHINESE)
    image = _save(window, "card_destructive_zh")
    assert shown(card) == {
        "title": "run_command 需要授权",
        "risk": "可能修改或删除数据",
        "buttons": ["批准（Alt+A）", "拒绝（Alt+R）"],
        "always": "始终允许“rm …”",
        "confirm": [],
    }
    assert edge_colour(image, card) == LIGHT.reject

    card.always.setChecked(True)
    card.approve_button.click()
    _save(window, "card_destructive_confirm_zh")
    assert shown(card)["confirm"] == ["确定，始终允许", "仅本次", "返回"]
