"""Where the window's widgets sit: a row for the sidebar (added once the
window is attached) and the conversation column, which holds the chat, what
shows below it (a speech model's download), the notice line and the input row: the input
widest, its buttons beside it along its bottom edge."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QMainWindow, QToolButton, QVBoxLayout, QWidget


def symbol_button(symbol: str, tip: str, parent: QWidget) -> QToolButton:
    """A flat tool button showing one symbol 18 px high (⚙ Settings, ＋ New)."""
    button = QToolButton(parent)
    button.setText(symbol)
    button.setToolTip(tip)
    button.setAutoRaise(True)
    font = button.font()
    font.setPixelSize(18)
    button.setFont(font)
    return button


def lay_out(
    window: QMainWindow, chat: QWidget, below_chat: QWidget, input_box: QWidget, buttons: Sequence[QWidget],
    leading: Sequence[QWidget] = (), *, above_input: QWidget | None = None,
) -> QHBoxLayout:
    """Lay the widgets out as the module says (``leading``: before the
    input, on the sidebar's side); returns the row the sidebar joins."""
    bottom = QHBoxLayout()
    bottom.setContentsMargins(12, 6, 12, 10)
    for button in leading:
        bottom.addWidget(button, 0, Qt.AlignmentFlag.AlignBottom)
    bottom.addWidget(input_box, 1)
    for button in buttons:
        bottom.addWidget(button, 0, Qt.AlignmentFlag.AlignBottom)
    central = QWidget(window)
    body = QHBoxLayout(central)
    body.setContentsMargins(0, 0, 0, 0)
    body.setSpacing(0)
    column = QVBoxLayout()
    body.addLayout(column, 1)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(0)
    column.addWidget(chat, 1)
    column.addWidget(below_chat)
    if above_input is not None:  # the notice line, as wide as the input
        row = QHBoxLayout()
        row.setContentsMargins(12, 4, 12, 0)
        row.addWidget(above_input)
        column.addLayout(row)
    column.addLayout(bottom)
    window.setCentralWidget(central)
    return body
