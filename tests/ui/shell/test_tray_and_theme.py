"""Tray notifications only when the window is inactive; light/dark colours."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from desktop_agent.ui.shell.theme import DARK, LIGHT, is_dark_color, style_sheet
from desktop_agent.ui.shell.tray import Notifier


def test_an_inactive_window_gets_a_notification(qtbot: QtBot) -> None:
    window = QWidget()
    qtbot.add_widget(window)
    notifier = Notifier(window, tray_available=False)
    assert not window.isActiveWindow()
    assert notifier.attention("Desktop Agent", "run_command is waiting for your approval") is True
    assert notifier.sent == [("Desktop Agent", "run_command is waiting for your approval")]
    assert not notifier.available


def test_the_active_window_gets_none(qtbot: QtBot) -> None:
    window = QWidget()
    qtbot.add_widget(window)
    window.show()
    window.activateWindow()
    qtbot.wait_until(window.isActiveWindow, timeout=3000)
    notifier = Notifier(window, tray_available=False)
    assert notifier.attention("t", "x") is False
    assert notifier.sent == []


def test_dark_is_decided_by_lightness() -> None:
    assert [is_dark_color(c) for c in ((30, 31, 34), (244, 245, 247), (0, 0, 255), (255, 255, 0))] == [
        True, False, True, False
    ]


def test_each_theme_puts_its_own_colours_in_the_style_sheet() -> None:
    light, dark = style_sheet(LIGHT), style_sheet(DARK)
    assert LIGHT.window in light and DARK.window not in light
    assert DARK.window in dark and LIGHT.window not in dark
