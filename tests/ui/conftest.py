"""UI test set-up.

--- audio sink (voice helper) -------------------------------------------------
``pytest_asyncio_loop_factories`` makes every *async* test under tests/ui run
on a qasync loop sharing pytest-qt's QApplication (STACK.md "pytest"), so
coroutines that wait on Qt signals (QtAudioSink.play) work. Synchronous widget
tests are unaffected: they use plain qtbot and never see this loop.
-------------------------------------------------------------------------------
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping

import pytest
from PySide6.QtWidgets import QApplication


def _qasync_loop() -> asyncio.AbstractEventLoop:
    import qasync  # after PySide6 (STACK.md "qasync")

    app = QApplication.instance() or QApplication([])
    loop: asyncio.AbstractEventLoop = qasync.QEventLoop(app)
    return loop


def pytest_asyncio_loop_factories(
    config: pytest.Config, item: pytest.Item
) -> Mapping[str, Callable[[], asyncio.AbstractEventLoop]]:
    return {"qasync": _qasync_loop}
