"""SIGINT, SIGTERM and SIGHUP in the headless mode (contracts §10).

All three mean "stop": during a turn, the window's interrupt button (the
running command's group is stopped, ``tool_rejected`` with its partial
result, ``interrupted``, ``turn_end``); at the prompt, the session ends
(:attr:`StopSignals.stopped`); while starting, the main task is cancelled. Logging out, closing the terminal and
``systemctl stop`` send SIGHUP or SIGTERM, so they must not kill the process
before its outputs are written.

Only the first signal acts. A second one (an impatient Ctrl+C, a service
manager sending SIGTERM after SIGHUP) lands in the clean-up that writes the
history, and stopping that would lose the very outputs the first signal
asked for. After the run the signals are ignored: the process is exiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable
from typing import Any

STOP_SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


class StopSignals:
    """The stop signals of one run.

    ``interrupt`` is the running turn's interrupt (None between turns);
    ``cancel_main``: whether a signal outside a turn cancels the main task
    (while starting) or only sets :attr:`stopped` (the session watches it,
    so its clean-up never runs inside a cancellation).
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, main_task: asyncio.Task[Any] | None) -> None:
        self._loop = loop
        self._main_task = main_task
        self.interrupt: Callable[[], object] | None = None
        self.requested: signal.Signals | None = None
        self.stopped = asyncio.Event()
        self.cancel_main = True
        self._installed: list[signal.Signals] = []
        for sig in STOP_SIGNALS:
            try:
                loop.add_signal_handler(sig, self._on_signal, sig)
            except (NotImplementedError, RuntimeError, ValueError):  # Windows, or not the main thread
                continue
            self._installed.append(sig)

    @property
    def stopping(self) -> bool:
        return self.requested is not None

    def _on_signal(self, sig: signal.Signals) -> None:
        if self.requested is not None:
            return  # the first one is being handled; never cut its clean-up short
        self.requested = sig
        self.stopped.set()
        if self.interrupt is not None:
            self.interrupt()
        elif self.cancel_main and self._main_task is not None:
            self._main_task.cancel()

    def rearm(self) -> None:
        """After an interrupted turn of the interactive loop, SIGINT is the
        interrupt button again (the session goes on); SIGTERM/SIGHUP are not
        re-armed, the session ends."""
        if self.requested == getattr(signal, "SIGINT", None):
            self.requested = None
            self.stopped.clear()

    def uncancel(self) -> bool:
        """After catching the CancelledError a signal caused: clear the
        request (else 3.11's ``asyncio.timeout`` misreads later timeouts in
        the clean-up as cancellations); False when it was not ours."""
        task = self._main_task
        if task is None or self.requested is None or task is not asyncio.current_task():
            return False
        task.uncancel()
        return True

    def close(self) -> None:
        """Remove the handlers; late signals are then ignored (the process
        is on its way out and its outputs are written)."""
        for sig in self._installed:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                self._loop.remove_signal_handler(sig)
            with contextlib.suppress(OSError, ValueError):
                signal.signal(sig, signal.SIG_IGN)
        self._installed.clear()
