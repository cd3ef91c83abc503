"""Parts the window's dialogs and forms share: the one-line error under a
form, and OK/Cancel wired to a check before accepting."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QWidget

ERROR_COLOUR = "#cf222e"


def error_line(parent: QWidget) -> QLabel:
    """A hidden, word-wrapped red line for what is wrong with the input."""
    label = QLabel(parent)
    label.setWordWrap(True)
    label.setStyleSheet(f"color: {ERROR_COLOUR};")
    label.hide()
    return label


def ok_cancel(dialog: QDialog, on_ok: Callable[[], None]) -> QDialogButtonBox:
    """OK runs ``on_ok`` (which accepts or shows an error); Cancel rejects."""
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, dialog)
    buttons.accepted.connect(on_ok)
    buttons.rejected.connect(dialog.reject)
    return buttons
