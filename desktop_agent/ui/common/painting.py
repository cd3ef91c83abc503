"""The window paints on its own thread (:func:`paint_on_one_thread`).

Qt's raster engine splits a fill taller than about 96 lines (the scroll
bar's groove, a view's background) into parts and hands them to a pool of
threads, then waits for all of them before it goes on. Every change of a
long chat's scroll range repaints the scroll bar, so a reply streaming
into 500 messages woke the pool at each segment. On two cores that cost
more than it saved, and on a busy machine the window thread sat waiting
for pool threads that the other processes kept off the CPU: measured in
``benchmarks/bench_ui.py``'s micro-steps, a 20 px scroll and back took
6.0 ms with the pool and 1.5 ms without; a message growing a pixel, 3.7 ms
and 1.2 ms. The window draws nothing large enough to gain from it (images
in cards are scaled once, to a card's width). Child processes inherit the
switch, as they do ``QT_LOGGING_RULES``: a Qt program started by a tool
paints on one thread too, which changes nothing it shows.
"""

from __future__ import annotations

import os

POOL_OFF = "QT_NO_GUI_THREADPOOL"
"""Qt's switch: set (to anything), the raster engine and image
conversions run on the calling thread."""


def paint_on_one_thread() -> None:
    """Turn Qt's GUI thread pool off for this process. Qt reads the switch
    once, when something first asks for the pool (the first large fill):
    call it before the window paints (``run_gui`` does before it makes the
    application; :class:`~desktop_agent.ui.shell.main_window.MainWindow`
    again, for windows built without ``run_gui``). A value the user set is
    kept."""
    os.environ.setdefault(POOL_OFF, "1")
