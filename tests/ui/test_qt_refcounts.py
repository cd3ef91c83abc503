"""Guard against the PySide6 6.12.0 bug on Python 3.11: every void Qt call
dropped a reference to None and every signal emit one to True, so a
long-running window aborted with "Fatal Python error: none_dealloc". The
project pins 6.11.x; this fails loudly if a bump brings the bug back."""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Signal


class _Emitter(QObject):
    fired = Signal()


def test_qt_calls_and_signal_emits_keep_none_and_true_refcounts() -> None:
    emitter = _Emitter()
    emitter.fired.connect(lambda: None)
    none_before, true_before = sys.getrefcount(None), sys.getrefcount(True)
    for _ in range(2000):
        emitter.setObjectName("x")
        emitter.fired.emit()
    # Other threads may touch None/True a little; the bug lost 2000 of each.
    assert abs(sys.getrefcount(None) - none_before) < 200
    assert abs(sys.getrefcount(True) - true_before) < 200
