"""The tail of a stdio server's stderr, for error messages.

Why a file and not a pipe: nobody would drain a pipe, and a chatty server
would block once it filled. A temporary file costs nothing; when the server
fails, its last lines ("ModuleNotFoundError: …") make the warning useful.
We read it with ``os.pread`` because the child shares the file offset.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

_TAIL_BYTES = 4096
_MAX_CHARS = 300


class StderrTail:
    def __init__(self) -> None:
        self._file: TextIO | None = None
        self._last = ""

    def reset(self) -> None:
        self._last = ""

    @contextmanager
    def open(self) -> Iterator[TextIO]:
        """A file for the server's stderr; its tail is kept after it closes."""
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as file:
            self._file = file
            try:
                yield file
            finally:
                self._last = self._read()
                self._file = None

    def _read(self) -> str:
        if self._file is None:
            return self._last
        fd = self._file.fileno()
        size = os.fstat(fd).st_size
        start = max(0, size - _TAIL_BYTES)
        data = os.pread(fd, size - start, start).decode("utf-8", errors="replace")
        lines = [line.strip() for line in data.splitlines() if line.strip()]
        return " | ".join(lines[-2:])[-_MAX_CHARS:]

    def text(self) -> str:
        """The last non-empty lines (at most two), or ''."""
        return self._read()

    def suffix(self) -> str:
        """`` (stderr: …)`` for an error message, or '' when the server said nothing."""
        text = self.text()
        return f" (stderr: {text})" if text else ""
