"""Tray notifications only when the window is inactive."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

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

