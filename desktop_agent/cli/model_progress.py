"""The speech model's first-use download on the terminal (stderr).

On a terminal one line is rewritten in place (``\\r``) at most five times a
second; into a file or a pipe (a log, CI) a line is written at each 10 %
step instead, so the log stays short and still shows the download moving.
The first line says what is downloaded and where, the last that it is ready.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

from desktop_agent.voice.stt.models import DownloadProgress, format_mb

TTY_INTERVAL_S = 0.2
"""At most five rewrites a second (plus the last)."""


class ModelProgressPrinter:
    """A :class:`~desktop_agent.voice.stt.models.ModelStore.ensure` progress
    callback. ``folder``: where the model goes (``ModelStore.folder``)."""

    def __init__(self, out: IO[str], folder: Path, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._out = out
        self._folder = folder
        self._clock = clock
        self._tty = _isatty(out)
        self._started = False
        self._open_width = 0
        """Characters of the rewritten line now on screen (0: none)."""
        self._last_write: float | None = None
        self._last_step = 0

    def __call__(self, progress: DownloadProgress) -> None:
        if not self._started:
            self._started = True
            size = format_mb(progress.total, precise=True)
            self._line(f"note: downloading the speech model {progress.label} ({size} MB) to {self._folder} …")
        finished = progress.total <= 0 or progress.done >= progress.total
        if self._tty:
            now = self._clock()
            if finished or self._last_write is None or now - self._last_write >= TTY_INTERVAL_S:
                self._last_write = now
                self._rewrite(progress.describe())
        else:
            step = int(progress.percent // 10)
            if step > self._last_step:
                self._last_step = step
                self._line(progress.describe())
        if finished:
            self.end_line()
            self._line(f"note: the speech model is ready in {self._folder}")
            self._started, self._last_write, self._last_step = False, None, 0

    def end_line(self) -> None:
        """End a rewritten line; call it before saying a download failed."""
        if self._open_width:
            self._out.write("\n")
            self._out.flush()
            self._open_width = 0

    def _rewrite(self, text: str) -> None:
        # Spaces over what is left of a longer previous line (no escape codes).
        self._out.write("\r" + text.ljust(self._open_width))
        self._out.flush()
        self._open_width = max(len(text), 1)

    def _line(self, text: str) -> None:
        self.end_line()
        self._out.write(text + "\n")
        self._out.flush()


def _isatty(out: IO[str]) -> bool:
    try:
        return out.isatty()
    except (AttributeError, ValueError, OSError):
        return False
