"""The window's keys that are written on its controls, in one place: the
buttons say them and ``ui/shell/window_keys.py`` binds them, so the two cannot
drift apart."""

from __future__ import annotations

from PySide6.QtGui import QKeySequence

STOP_KEY = "Esc"
"""Stops the turn (what Interrupt does), from anywhere in the window."""
SKIP_KEY = "Shift+Esc"
"""Skips the sentence being spoken: a softer Esc, which stops only that."""
SIDEBAR_KEY = "Ctrl+B"
"""Hides or shows the conversations sidebar."""
APPROVE_KEY = "Alt+A"
REJECT_KEY = "Alt+R"


def key_text(key: str) -> str:
    """A key as this platform writes it (``⌥A`` on macOS)."""
    return QKeySequence(key).toString(QKeySequence.SequenceFormat.NativeText)
