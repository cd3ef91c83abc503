"""Helpers of the window's life on the qasync loop, used by the composition
root (:func:`desktop_agent.app.serve`) once the window is shown: warm the
heavy imports in a worker thread, settle memory at idle moments, close on
Ctrl+C, take the screenshot and quit when asked.

Split from ``app.py`` so that module stays light: nothing here (asyncio,
the core) is imported before the first window is on screen.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import logging
import signal
from collections.abc import Callable, Iterable
from pathlib import Path

from PySide6.QtCore import QTimer, SignalInstance
from PySide6.QtWidgets import QWidget

log = logging.getLogger(__name__)

SCREENSHOT_DELAY_MS = 800


async def warm_imports(*modules: str, optional: bool = False) -> None:
    """Import heavy modules in a worker thread, so the window keeps painting
    meanwhile (importing openai and mcp takes ~2 s here); the import lock
    makes a later import on the loop just a lookup. ``optional``: a module
    that is not there (another SDK version) is skipped."""
    for name in modules:
        try:
            await asyncio.to_thread(importlib.import_module, name)
        except ImportError:
            if not optional:
                raise
            log.debug("no module %s to warm up", name)


def settle_memory() -> None:
    """Collect now, then freeze what survives (``gc.freeze``), so the
    cyclic GC's full collections no longer walk the whole conversation's
    widgets while a reply streams (a full collection took 35–75 ms in
    benchmarks/bench_ui.py). Run at idle moments: after start-up and after
    each turn."""
    gc.collect()
    gc.freeze()


def settle_memory_soon() -> None:
    """:func:`settle_memory` once the event loop is idle again (after a
    turn's last paint, not inside it)."""
    QTimer.singleShot(0, settle_memory)


OPENAI_IMPORTS = (
    "desktop_agent.llm.openai_provider",
    "openai.resources.chat.chat",
    "openai.resources.chat.completions",
    "openai.lib._chat_completion_resources",
    "openai.lib.streaming.chat",
    "openai.pagination",
    "anyio._backends._asyncio",
    "anyio._core._sockets",
    "anyio.streams.stapled",
)
"""The provider of a real endpoint and what the openai SDK imports on the
first request (~250 ms of a frozen window at the user's first message,
measured by benchmarks/bench_ui.py), down to the asyncio backend its HTTP
client loads when it first connects (~30 ms more). Never for the demo
model: the SDK is ~50 MiB of an idle window."""

FIRST_USE_IMPORTS = ("markdown_it",)
"""The Markdown parser the first reply needs (~60 ms to import): warmed at
the first sign of use (a key typed, a message sent; :func:`warm_on_first_use`),
not at idle, where it is ~4 MiB of a window nobody has used yet.
Typing a message gives it the time; a restored conversation has loaded it."""

LAZY_IMPORTS = (*OPENAI_IMPORTS, *FIRST_USE_IMPORTS)
"""Everything warmed in the background before the first reply (the benchmarks warm it all)."""

_warming: set[asyncio.Task[None]] = set()


def lazy_imports(is_demo: bool) -> tuple[str, ...]:
    """What to warm once the window is attached: the SDK for a real endpoint, nothing for the demo model."""
    return () if is_demo else OPENAI_IMPORTS


def warm_on_first_use(uses: Iterable[SignalInstance], *modules: str) -> None:
    """Warm ``modules`` in a worker thread the first time any of ``uses`` fires."""
    connected = list(uses)
    started = False

    def start(*_args: object) -> None:
        nonlocal started
        if started:
            return
        started = True
        for signal_instance in connected:
            with contextlib.suppress(RuntimeError, TypeError):  # already gone with its window
                signal_instance.disconnect(start)
        task = asyncio.ensure_future(warm_imports(*modules, optional=True))
        _warming.add(task)
        task.add_done_callback(_warming.discard)

    for signal_instance in connected:
        signal_instance.connect(start)


def schedule_exit(window: QWidget, screenshot: str | None, quit_after_ms: int | None) -> None:
    """``--screenshot`` (a PNG of the window) and ``--quit-after-ms`` (close
    it then; with a screenshot, the shot is taken just before)."""

    def shoot() -> None:
        if screenshot:
            path = Path(screenshot)
            path.parent.mkdir(parents=True, exist_ok=True)
            if not window.grab().save(str(path)):
                log.error("could not save the screenshot to %s", path)

    if quit_after_ms is not None:

        def finish() -> None:
            shoot()
            window.close()

        QTimer.singleShot(max(0, quit_after_ms), finish)
    elif screenshot:
        QTimer.singleShot(SCREENSHOT_DELAY_MS, shoot)


STOP_SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


def close_on_stop_signals(window: QWidget) -> Callable[[], None]:
    """Ctrl+C in the terminal, SIGTERM (``systemctl stop``, a session
    ending) and SIGHUP (the terminal closed) close the window like the close
    button: the turn in progress is interrupted (its command's group
    stopped) and saved, then the app exits 0. A second signal
    while that happens does nothing more. Returns what puts the previous
    handlers back."""
    loop = asyncio.get_running_loop()
    installed: dict[signal.Signals, object] = {}
    for sig in STOP_SIGNALS:
        previous = signal.getsignal(sig)
        try:
            loop.add_signal_handler(sig, window.close)
        except (NotImplementedError, RuntimeError, ValueError):
            continue
        installed[sig] = previous

    def remove() -> None:
        for sig, previous in installed.items():
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(sig)
            with contextlib.suppress(OSError, TypeError, ValueError):
                signal.signal(sig, previous)  # type: ignore[arg-type]  # getsignal's result
        installed.clear()

    return remove


def ignore_stop_signals() -> None:
    """The app is exiting and its conversation is saved: a late Ctrl+C or
    SIGTERM must not turn the exit into a traceback or a killed process."""
    for sig in STOP_SIGNALS:
        with contextlib.suppress(OSError, ValueError):
            signal.signal(sig, signal.SIG_IGN)
