"""UI test set-up.

--- audio sink (voice helper) -------------------------------------------------
``pytest_asyncio_loop_factories`` makes every *async* test under tests/ui run
on a qasync loop sharing pytest-qt's QApplication (pytest-asyncio 1.x has
no ``event_loop`` fixture; this hook is its way), so
coroutines that wait on Qt signals (QtAudioSink.play) work. Synchronous widget
tests are unaffected: they use plain qtbot and never see this loop.
-------------------------------------------------------------------------------
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

if TYPE_CHECKING:
    from desktop_agent.ui.shell.main_window import MainWindow


def _qasync_loop() -> asyncio.AbstractEventLoop:
    import qasync  # after PySide6: qasync picks the Qt binding already imported

    app = QApplication.instance() or QApplication([])
    loop: asyncio.AbstractEventLoop = qasync.QEventLoop(app)
    return loop


def pytest_asyncio_loop_factories(
    config: pytest.Config, item: pytest.Item
) -> Mapping[str, Callable[[], asyncio.AbstractEventLoop]]:
    return {"qasync": _qasync_loop}


@pytest.fixture
def shown_window(qtbot: QtBot) -> Iterator[MainWindow]:
    """A window on the offline demo model, attached and shown at 860×720
    (screenshots feed its chat view directly)."""
    from desktop_agent.testing.window_rig import offline_deps
    from desktop_agent.ui.shell.main_window import MainWindow

    window = MainWindow(tray=False)
    qtbot.add_widget(window)
    window.attach(offline_deps())
    window.resize(860, 720)
    window.show()
    qtbot.wait_exposed(window)
    yield window


@pytest.fixture
def keep_loop_on_close(qapp: QApplication) -> Iterator[None]:
    """Closing a window must not quit the qasync loop under the test (a
    window test closes its window while its loop still runs)."""
    before = qapp.quitOnLastWindowClosed()
    qapp.setQuitOnLastWindowClosed(False)
    yield
    qapp.setQuitOnLastWindowClosed(before)
