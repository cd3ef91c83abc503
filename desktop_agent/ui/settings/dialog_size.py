"""How big Settings opens: its wanted 900×600 where there is room, no
larger than the screen's free area or the window it opens over. At
800×600 the dialog was wider and taller than both, its buttons off the
screen; its pages scroll, so a smaller dialog loses nothing."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDialog, QWidget

WANTED_SIZE = QSize(900, 600)
"""Room for the Approval history table's columns, where the screen has it."""
SMALLEST_SIZE = QSize(560, 400)
"""The pages scroll, so this is all a page's list and buttons need."""
FRAME_ROOM = QSize(16, 48)
"""What the window manager's frame and title bar take around the dialog."""


def room_for_dialog(screen: QSize, parent: QSize | None) -> QSize:
    """The dialog's size: :data:`WANTED_SIZE`, no larger than the screen's
    free area (less the frame) nor than the window it opens over (an 800×600
    window on an 800×600 screen had a dialog wider and taller than both)."""
    room = WANTED_SIZE.boundedTo(screen - FRAME_ROOM)
    if parent is not None:
        room = room.boundedTo(parent.expandedTo(SMALLEST_SIZE))
    return room.expandedTo(SMALLEST_SIZE.boundedTo(screen - FRAME_ROOM))


def fit_to_room(dialog: QDialog, parent: QWidget | None) -> None:
    """Size ``dialog`` by :func:`room_for_dialog` for the screen its parent (or the primary one) is on."""
    screen = (parent.screen() if parent is not None else None) or QGuiApplication.primaryScreen()
    free = screen.availableGeometry().size() if screen is not None else WANTED_SIZE + FRAME_ROOM
    size = room_for_dialog(free, parent.window().size() if parent is not None else None)
    dialog.setMinimumSize(SMALLEST_SIZE.boundedTo(size))
    dialog.resize(size)
