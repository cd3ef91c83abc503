"""The core's :class:`~desktop_agent.core.timers.Timers` port on Qt's own
timers, for widgets that keep time without an asyncio loop (a widget test
with plain qtbot has none): a test passes a ``FakeClock`` instead and moves
time itself."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QTimer


class QtCall:
    """One scheduled call on a single-shot ``QTimer`` (kept alive by this
    handle; :meth:`cancel` stops it)."""

    def __init__(self, delay_s: float, callback: Callable[[], object]) -> None:
        self._timer = QTimer()
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(callback)
        self._timer.start(max(0, round(delay_s * 1000)))

    def cancel(self) -> None:
        self._timer.stop()


class QtTimers:
    """Monotonic time and Qt single-shot timers (the GUI thread's event loop)."""

    def time(self) -> float:
        return time.monotonic()

    def call_later(self, delay: float, callback: Callable[[], object]) -> QtCall:
        return QtCall(delay, callback)
