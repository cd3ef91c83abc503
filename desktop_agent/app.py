"""Composition root of the window: QApplication, the window, the qasync
loop, the services; and a clean shut-down when the window closes.

Start-up order is the point of this module: the window is on screen
*before* asyncio, qasync, the core, openai and mcp are imported, then
:mod:`desktop_agent.ui.runtime` builds the services (heavy imports in a
worker thread) while the user already sees the window. Closing it during a
turn interrupts the turn (a running command's process group is killed),
waits for it to end, then closes the services.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

# PySide6 before qasync (STACK.md "qasync"); qasync comes later, after the
# window is shown.
from PySide6.QtCore import QLocale
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from desktop_agent.ui.i18n import choose_language, set_language
from desktop_agent.ui.main_window import MainWindow

ICON = Path(getattr(sys, "_MEIPASS", Path(__file__).resolve().parents[1])) / "resources" / "icon.svg"


def run_gui(args: argparse.Namespace) -> int:
    """Open the window and run until it is closed; the exit status
    (0, or 2 with a one-line error on stderr for a bad configuration).

    Reads from ``args``: ``base_url``, ``model``, ``api_key``,
    ``mcp_config``, ``tts``, ``max_steps``, ``approval_timeout``,
    ``screenshot`` (save a PNG of the window), ``quit_after_ms`` (close the
    window after that long; with ``screenshot``, the shot is taken just
    before) and, for the start-up benchmark, ``on_window_shown`` (called once
    the window is painted). Missing attributes count as not given.
    """
    # Qt lists every optional media library it could not load (pipewire,
    # VA-API) at start-up; that is noise for a user, not a fault.
    os.environ.setdefault("QT_LOGGING_RULES", "qt.multimedia.symbolsresolver=false")
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setApplicationName("desktop-agent")
    app.setQuitOnLastWindowClosed(False)  # the coroutine decides when to stop
    set_language(choose_language(QLocale.system().name()))
    if ICON.is_file():  # a source checkout or the bundle; a wheel has no icon
        app.setWindowIcon(QIcon(str(ICON)))
    window = MainWindow()
    window.show()
    app.processEvents()  # show, expose and paint it now
    on_shown: Callable[[], None] | None = getattr(args, "on_window_shown", None)
    if on_shown is not None:
        on_shown()

    import asyncio

    import qasync

    from desktop_agent.ui.runtime import run_window

    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
        return runner.run(run_window(window, args))
