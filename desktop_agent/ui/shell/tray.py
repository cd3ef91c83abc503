"""Tray notification when an approval or a form waits and the window is
not active, so a waiting turn is not missed. Without a system tray
(offscreen, some desktops) it does nothing; :attr:`Notifier.sent` records what it said, for tests."""

from __future__ import annotations

import logging

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QStyle, QSystemTrayIcon, QWidget

log = logging.getLogger(__name__)


class Notifier:
    def __init__(self, window: QWidget, *, tray_available: bool | None = None) -> None:
        self._window = window
        available = QSystemTrayIcon.isSystemTrayAvailable() if tray_available is None else tray_available
        self._tray: QSystemTrayIcon | None = None
        if available:
            icon = window.windowIcon()
            if icon.isNull():
                style = QApplication.style()
                icon = style.standardIcon(QStyle.StandardPixmap.SP_MessageBoxInformation) if style else QIcon()
            self._tray = QSystemTrayIcon(icon, window)
            self._tray.setToolTip(window.windowTitle())
            self._tray.show()
        self.sent: list[tuple[str, str]] = []

    @property
    def available(self) -> bool:
        return self._tray is not None

    def attention(self, title: str, text: str) -> bool:
        """Notify unless the window is the active one; True when it notified
        (or would have, had a tray been there)."""
        if self._window.isActiveWindow():
            return False
        self.sent.append((title, text))
        if self._tray is not None:
            self._tray.showMessage(title, text, QSystemTrayIcon.MessageIcon.Information, 10_000)
        else:
            log.debug("no system tray: %s", text)
        return True

    def close(self) -> None:
        if self._tray is not None:
            self._tray.hide()
            self._tray = None
