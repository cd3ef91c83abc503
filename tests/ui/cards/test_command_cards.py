"""A command's card says what *that* command may do: ``date`` asks plainly
(no warning), ``rm -rf`` is red, an unknown command is amber ("may change
things"); only a command that uses the network reaches outside. The card
offers the command's rule ("Always allow “git status …”"), a read-only MCP
tool's card offers trusting its server's read-only tools, and a rejected
card asks what to do instead. Screenshots in both languages, under the
test's folder and ``/work/shots26/approve/``."""

from __future__ import annotations

import shutil
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
from desktop_agent.ui.cards.state import ToolCardState
from desktop_agent.ui.cards.tool_card import ToolCardWidget
from desktop_agent.ui.chat.turn_view import TurnView
from desktop_agent.ui.common.theme import LIGHT
from desktop_agent.ui.shell.main_window import MainWindow

SHOTS = Path("/work/shots26/approve")
RUN_COMMAND = RunCommandTool().spec.annotations
READ_ONLY = ToolAnnotations(read_only=True, destructive=False, idempotent=True, open_world=False)


def command_card(qtbot: QtBot, command: str, texts: Texts = ENGLISH) -> ToolCardWidget:
    card = ToolCardWidget(ToolCardState(
        "c1", "run_command", CardPhase.APPROVAL, {"command": command}, task_id="t1", annotations=RUN_COMMAND,
    ), texts)
    qtbot.add_widget(card)
    card.show()
    return card


def seen(card: ToolCardWidget) -> dict[str, object]:
    """What the waiting card shows of its risk and its choices."""
    return {
        "frame": card.property("risk"),
        "risk": card.risk.text() if card.risk.isVisibleTo(card) else None,
        "always": card.always.text() if card.always.isVisibleTo(card) else None,
        "server": card.always_server.text() if card.always_server.isVisibleTo(card) else None,
    }


@pytest.mark.parametrize(
    ("command", "frame", "risk", "always"),
    [
        ("date", "", None, "Always allow “date …”"),
        ("git status", "", None, "Always allow “git status …”"),
        ("ls -la | wc -l", "", None, None),  # two programs: no one rule to offer
        ("rm -rf ~/old-builds", "destructive", "May change or delete data", "Always allow “rm …”"),
        ("git status; rm -rf ~", "destructive", "May change or delete data", None),
        ("npm install", "cautious", "May change things", "Always allow “npm install …”"),
        ("curl -s https://example.com", "cautious", "May change things · Reaches outside this computer",
         "Always allow “curl …”"),
        ("sudo ls", "destructive", "May change or delete data", None),  # a wrapper: no rule
    ],
)
def test_a_command_card_says_what_its_command_may_do(
    qtbot: QtBot, command: str, frame: str, risk: str | None, always: str | None
) -> None:
    card = command_card(qtbot, command)
    assert seen(card) == {"frame": frame, "risk": risk, "always": always, "server": None}


def test_a_read_only_mcp_tool_offers_trusting_its_servers_read_only_tools(qtbot: QtBot) -> None:
    card = ToolCardWidget(ToolCardState(
        "c1", "get_current_time", CardPhase.APPROVAL, {"timezone": "UTC"}, task_id="t1", server="time",
        annotations=READ_ONLY,
    ), ENGLISH)
    qtbot.add_widget(card)
    trusted: list[str] = []
    answered: list[tuple[str, bool, bool]] = []
    card.server_trusted.connect(trusted.append)
    card.answered.connect(lambda *args: answered.append(args))
    assert seen(card) == {
        "frame": "", "risk": None, "always": "Always allow this tool",
        "server": "Always allow read-only tools from time",
    }
    card.always_server.setChecked(True)
    card.approve_button.click()
    assert (trusted, answered) == (["time"], [("c1", True, False)])


def test_a_tool_that_is_not_read_only_offers_no_server_trust(qtbot: QtBot) -> None:
    card = ToolCardWidget(ToolCardState(
        "c1", "write_file", CardPhase.APPROVAL, {"path": "a"}, task_id="t1", server="files",
        annotations=ToolAnnotations(read_only=False),
    ), ENGLISH)
    qtbot.add_widget(card)
    assert seen(card)["server"] is None


def test_rejecting_the_server_tools_card_trusts_nothing(qtbot: QtBot) -> None:
    card = ToolCardWidget(ToolCardState(
        "c1", "get_current_time", CardPhase.APPROVAL, {}, task_id="t1", server="time", annotations=READ_ONLY,
    ), ENGLISH)
    qtbot.add_widget(card)
    trusted: list[str] = []
    card.server_trusted.connect(trusted.append)
    card.always_server.setChecked(True)
    card.reject_button.click()
    assert trusted == []


def test_always_allowing_a_destructive_commands_rule_asks_again_in_its_own_words(qtbot: QtBot) -> None:
    card = command_card(qtbot, "rm -rf build")
    answered: list[tuple[str, bool, bool]] = []
    card.answered.connect(lambda *args: answered.append(args))
    card.always.setChecked(True)
    card.approve_button.click()
    assert answered == [] and card.confirm_row.isVisibleTo(card)
    assert card.confirm_text.text() == (
        "Always allow “rm …” commands? They may change or delete data, and will run without asking.")
    card.confirm_always.click()
    assert answered == [("c1", True, True)]


def test_the_redirect_field_sends_its_text_once_and_says_so(qtbot: QtBot) -> None:
    card = command_card(qtbot, "rm -rf build")
    sent: list[tuple[str, str]] = []
    card.redirect_sent.connect(lambda *args: sent.append(args))
    assert not card.redirect.isVisibleTo(card)
    card.reject_button.click()
    card.show_state(ToolCardState("c1", "run_command", CardPhase.REJECTED, {"command": "rm -rf build"},
                                  outcome="rejected", annotations=RUN_COMMAND))
    card.offer_redirect()
    assert card.redirect.input.isVisibleTo(card) and not card.redirect.send_button.isEnabled()
    card.redirect.input.setText("   ")
    assert not card.redirect.send_button.isEnabled()  # white space is nothing to send
    card.redirect.input.setText("list it instead")
    card.redirect.show_sent(False)  # the window could not take it yet
    assert card.redirect.note.text() == "The model is still answering; send this once it stops."
    assert card.redirect.input.text() == "list it instead"  # nothing lost
    card.redirect.send_button.click()
    assert sent == [("c1", "list it instead")]
    card.redirect.show_sent(True)
    assert not card.redirect.input.isVisibleTo(card)
    assert card.redirect.note.text() == "Sent to the model: list it instead"
    card.retranslate(CHINESE)
    assert card.redirect.note.text() == "已发给模型：list it instead"


# ------------------------------------------------------------- screenshots


def _window(qtbot: QtBot, command: str, texts: Texts, *, server: str | None = None,
            tool: str = "run_command") -> tuple[MainWindow, ToolCardWidget]:
    window = MainWindow(tray=False, texts=texts)
    qtbot.add_widget(window)
    window.attach(offline_deps())
    window.resize(860, 560)
    window.show()
    qtbot.wait_exposed(window)
    annotations = RUN_COMMAND if tool == "run_command" else READ_ONLY
    view = TurnView(window.chat, annotations_of=lambda _name: annotations, server_of=lambda _name: server)
    zh = texts is CHINESE
    if tool == "run_command":
        window.chat.add_user(f"请运行 {command}" if zh else f"Please run {command}")
    else:
        window.chat.add_user("现在几点？" if zh else "What time is it?")
    view.show_text(text_item("我来看看。" if zh else "Let me check.", 1))
    arguments = {"command": command} if tool == "run_command" else {"timezone": "Asia/Shanghai"}
    view.tool_event(tool_item("start", "call_1", tool))
    view.approval_needed(tool_item("approval_required", "call_1", tool, arguments=arguments, task_id="t1"))
    (card,) = window.findChildren(ToolCardWidget)
    return window, card


def _save(window: MainWindow, folder: Path, name: str) -> QImage:
    for _ in range(5):
        QApplication.processEvents()
    image = window.grab().toImage()
    path = folder / f"{name}.png"
    assert image.save(str(path))
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, SHOTS / path.name)
    return image


def edge_colour(image: QImage, widget: QWidget) -> str:
    """The commonest colour along the widget's left edge (its border)."""
    rect = QRect(widget.mapTo(widget.window(), QPoint(0, 0)), widget.size())
    colours = [image.pixelColor(rect.left(), y).name() for y in range(rect.top() + 10, rect.bottom() - 10)]
    return max(set(colours), key=colours.count)


@pytest.mark.parametrize(("texts", "lang"), [(ENGLISH, "en"), (CHINESE, "zh")])
def test_screenshots_of_command_cards(qtbot: QtBot, tmp_path: Path, texts: Texts, lang: str) -> None:
    window, card = _window(qtbot, "date", texts)
    image = _save(window, tmp_path, f"card_date_{lang}")
    assert seen(card) == {"frame": "", "risk": None, "always": texts.tr("card_always_prefix", prefix="date"),
                          "server": None}
    assert edge_colour(image, card) not in (LIGHT.reject, LIGHT.caution)
    window.close()

    window, card = _window(qtbot, "rm -rf ~/old-builds", texts)
    image = _save(window, tmp_path, f"card_rm_{lang}")
    assert seen(card)["risk"] == texts.tr("card_risk_destructive")
    assert edge_colour(image, card) == LIGHT.reject
    window.close()

    window, card = _window(qtbot, "npm install", texts)
    image = _save(window, tmp_path, f"card_unknown_{lang}")
    assert seen(card)["risk"] == texts.tr("card_risk_changes")
    assert edge_colour(image, card) == LIGHT.caution
    window.close()

    window, card = _window(qtbot, "git status --short", texts)
    card.always.setChecked(True)
    _save(window, tmp_path, f"card_prefix_offer_{lang}")
    assert card.always.text() == texts.tr("card_always_prefix", prefix="git status")
    window.close()

    window, card = _window(qtbot, "", texts, server="time", tool="get_current_time")
    _save(window, tmp_path, f"card_server_offer_{lang}")
    assert seen(card)["server"] == texts.tr("card_always_read_only", server="time")
    window.close()

    window, card = _window(qtbot, "rm -rf ~/old-builds", texts)
    card.reject_button.click()  # nobody listens to the answer here: show the rejected state by hand
    card.show_state(ToolCardState("call_1", "run_command", CardPhase.REJECTED, {"command": "rm -rf ~/old-builds"},
                                  outcome="rejected", annotations=RUN_COMMAND))
    card.offer_redirect()
    card.redirect.input.setText("只列出旧的构建文件夹，不要删除" if lang == "zh" else "Only list the old builds")
    _save(window, tmp_path, f"card_redirect_{lang}")
    assert card.redirect.label.text() == texts.tr("card_redirect_label")
    assert card.redirect.send_button.isEnabled()
    window.close()


def test_a_command_card_says_nothing_of_its_risk_until_its_command_is_known(qtbot: QtBot) -> None:
    card = ToolCardWidget(ToolCardState("c1", "run_command", annotations=RUN_COMMAND), ENGLISH)  # preparing
    qtbot.add_widget(card)
    assert (card.property("risk"), card.risk.isVisibleTo(card)) == ("", False)
    card.show_state(ToolCardState("c1", "run_command", CardPhase.APPROVAL, {"command": "rm -rf x"}, task_id="t1",
                                  annotations=RUN_COMMAND))
    assert card.property("risk") == "destructive"
