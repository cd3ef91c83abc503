"""Where the window was: its size, position and whether it was maximised,
kept in ``window.json`` in the data folder when it closes and given back
when it opens.

A place belongs to the screens it was saved on, and screens change (a
laptop off its monitor, a smaller resolution): :func:`fit_on_screens` keeps
the window whole on the screen it mostly was on, and centres it on the
primary screen when it was on none of them. The same fitting gives a first
start, with nothing saved, a window no larger than the screen (the default
1100×760 is wider than an 800×600 screen).

It is its own small file, not a setting: it changes at every close and is
no choice of the user's to show in Settings.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

from desktop_agent.storage.atomic import atomic_write_text
from desktop_agent.storage.user_files import UserFileError, read_user_bytes

log = logging.getLogger(__name__)

PLACE_FILE = "window.json"
PLACE_FILE_LIMIT = 4096
"""Bytes: the file holds five numbers."""
SMALLEST = QSize(480, 360)
"""A saved size below this is not kept (a window shrunk to nothing by accident)."""


@dataclass(frozen=True, slots=True)
class WindowPlace:
    x: int
    y: int
    width: int
    height: int
    maximized: bool = False

    @property
    def rect(self) -> QRect:
        """The window's inside (without the frame), as ``QWidget.geometry``."""
        return QRect(self.x, self.y, self.width, self.height)


def place_path(folder: Path) -> Path:
    return folder / PLACE_FILE


def read_place(path: Path) -> WindowPlace | None:
    """The place saved at ``path``; None when there is none or it is not one."""
    try:
        data = json.loads(read_user_bytes(path, limit=PLACE_FILE_LIMIT).decode("utf-8"))
    except (UserFileError, ValueError, RecursionError) as exc:
        log.debug("no saved window place in %s: %s", path, exc)
        return None
    if not isinstance(data, dict):
        return None
    numbers = [data.get(key) for key in ("x", "y", "width", "height")]
    if not all(isinstance(n, int) and not isinstance(n, bool) and abs(n) < 100_000 for n in numbers):
        return None
    x, y, width, height = (int(n) for n in numbers)  # type: ignore[arg-type]  # checked just above
    if width < SMALLEST.width() or height < SMALLEST.height():
        return None
    return WindowPlace(x, y, width, height, data.get("maximized") is True)


def write_place(path: Path, place: WindowPlace) -> None:
    """Save ``place``; a folder that cannot be written loses it, with a log line."""
    text = json.dumps({"x": place.x, "y": place.y, "width": place.width, "height": place.height,
                       "maximized": place.maximized})
    try:
        atomic_write_text(path, text)
    except OSError as exc:
        log.warning("could not save the window's place to %s: %s", path, exc)


def fit_on_screens(wanted: QRect, screens: Sequence[QRect], primary: QRect) -> QRect:
    """``wanted`` made to fit: on the screen (available area) it overlaps
    most, no larger than it and moved inside it; on none, centred on
    ``primary`` at a size that fits there."""
    best, overlap = None, 0
    for screen in screens:
        common = wanted.intersected(screen)
        area = common.width() * common.height() if not common.isEmpty() else 0
        if area > overlap:
            best, overlap = screen, area
    target = best if best is not None else primary
    size = wanted.size().boundedTo(target.size())
    if best is None:
        return centred(size, target)
    x = min(max(wanted.x(), target.left()), target.left() + target.width() - size.width())
    y = min(max(wanted.y(), target.top()), target.top() + target.height() - size.height())
    return QRect(x, y, size.width(), size.height())


def centred(size: QSize, area: QRect) -> QRect:
    """A rectangle of ``size`` in the middle of ``area``."""
    return QRect(area.x() + (area.width() - size.width()) // 2, area.y() + (area.height() - size.height()) // 2,
                 size.width(), size.height())


def _available() -> tuple[list[QRect], QRect] | None:
    primary = QGuiApplication.primaryScreen()
    if primary is None:
        return None
    return [screen.availableGeometry() for screen in QGuiApplication.screens()], primary.availableGeometry()


def restore_place(window: QWidget, path: Path) -> None:
    """Before the first show: the saved place fitted to today's screens,
    or (nothing saved) the window's own size fitted and centred."""
    screens = _available()
    if screens is None:
        return
    available, primary = screens
    place = read_place(path)
    if place is None:
        window.setGeometry(centred(window.size().boundedTo(primary.size()), primary))
        return
    window.setGeometry(fit_on_screens(place.rect, available, primary))
    if place.maximized:
        window.setWindowState(window.windowState() | Qt.WindowState.WindowMaximized)


def current_place(window: QWidget) -> WindowPlace:
    """The window's place now: its normal (not maximised) size and position, and whether it is maximised."""
    rect = window.normalGeometry() if window.isMaximized() else window.geometry()
    return WindowPlace(rect.x(), rect.y(), rect.width(), rect.height(), window.isMaximized())


def remember_place(window: QWidget, path: Path) -> None:
    """At close: save where the window is."""
    write_place(path, current_place(window))
