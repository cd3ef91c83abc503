"""Two windows in one process, each in its own language: the language is the window's
(its :class:`~desktop_agent.texts.Texts`), not the process's, and a switch in one leaves
the other as it was."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop_agent.testing.window_rig import offline_deps, tool_item
from desktop_agent.texts import CHINESE, ENGLISH, Texts
from desktop_agent.ui.cards.tool_card import ToolCardWidget
from desktop_agent.ui.chat.turn_view import TurnView
from desktop_agent.ui.common.key_hints import APPROVE_KEY, REJECT_KEY, key_text
from desktop_agent.ui.shell.main_window import MainWindow

Shown = dict[str, str]


def _window(qtbot: QtBot, texts: Texts) -> MainWindow:
    window = MainWindow(tray=False, texts=texts)
    qtbot.add_widget(window)
    window.attach(offline_deps())
    view = TurnView(window.chat)  # what a turn draws its cards with
    view.tool_event(tool_item("start", "call_1"))
    view.approval_needed(tool_item("approval_required", "call_1", arguments={"command": "ls"}, task_id="t1"))
    return window


def shown(window: MainWindow) -> Shown:
    (card,) = window.findChildren(ToolCardWidget)
    return {
        "title": window.windowTitle(),
        "send": window.send_button.text(),
        # the whole hint: the placeholder, or its tooltip where the box is too narrow for it
        "placeholder": window.input.toolTip() or window.input.placeholderText(),
        "approve": card.approve_button.text(),
        "reject": card.reject_button.text(),
    }


def expected(texts: Texts) -> Shown:
    return {
        "title": texts.tr("app_title"),
        "send": texts.tr("send"),
        "placeholder": texts.tr("input_placeholder"),
        "approve": texts.tr("card_approve_key", shortcut=key_text(APPROVE_KEY)),
        "reject": texts.tr("card_reject_key", shortcut=key_text(REJECT_KEY)),
    }


def test_two_windows_each_speak_their_own_language(qtbot: QtBot) -> None:
    english, chinese = _window(qtbot, ENGLISH), _window(qtbot, CHINESE)

    assert (shown(english), shown(chinese)) == (expected(ENGLISH), expected(CHINESE))
    assert shown(chinese)["send"] != shown(english)["send"]  # the two really differ


def test_switching_one_window_leaves_the_other_as_it_was(qtbot: QtBot) -> None:
    first, second = _window(qtbot, ENGLISH), _window(qtbot, ENGLISH)

    first.retranslate(CHINESE)

    assert (shown(first), shown(second)) == (expected(CHINESE), expected(ENGLISH))
    assert (first.texts, second.texts) == (CHINESE, ENGLISH)
