"""Terminal line input that does not block the event loop, and the input
boundary where text that is not UTF-8 is made valid."""

from __future__ import annotations

import asyncio
import re
import threading
from typing import IO

_SURROGATE = re.compile("[\ud800-\udfff]")
NOT_UTF8_NOTE = "note: the message had bytes that are not UTF-8; each was replaced with \ufffd"


def valid_text(text: str) -> tuple[str, bool]:
    """``text`` with every lone surrogate replaced by U+FFFD, and whether any was.

    Python hands undecodable argv and stdin bytes over as lone surrogates
    (surrogateescape); they cannot be encoded again, so one left in the
    message fails the request and then the history file. They
    are replaced here, where the text comes in, so nothing after sees them.
    """
    cleaned, count = _SURROGATE.subn("\ufffd", text)
    return cleaned, count > 0


class TerminalIO:
    """Line input that does not block the loop (stdin read on a thread).

    At most one read is in flight: a question abandoned mid-read (the turn
    ended, the approval timed out) leaves its read pending, and the next
    question takes that line instead of a second thread stealing it.
    """

    def __init__(self, stdin: IO[str], out: IO[str]) -> None:
        reconfigure = getattr(stdin, "reconfigure", None)
        if reconfigure is not None:
            # A strict decoder would raise on the first bad byte, and a read
            # that fails reads as end of input: keep the bytes, clean them below.
            try:
                reconfigure(errors="surrogateescape")
            except (OSError, ValueError):
                pass
        self._stdin = stdin
        self._out = out
        self._pending: asyncio.Future[str] | None = None
        self.eof = False

    def _read_line(self) -> asyncio.Future[str]:
        if self._pending is not None:
            return self._pending
        loop = asyncio.get_running_loop()
        future: asyncio.Future[str] = loop.create_future()
        self._pending = future

        def read() -> None:
            try:
                text = self._stdin.readline()
            except (OSError, ValueError):
                text = ""

            def deliver() -> None:
                if not future.done():
                    future.set_result(text)

            loop.call_soon_threadsafe(deliver)

        # A daemon thread, not the default executor: a read still blocked on
        # the terminal must not hold up the process exit.
        threading.Thread(target=read, name="stdin-reader", daemon=True).start()
        return future

    async def ask(self, prompt: str) -> str | None:
        if self.eof:
            return None
        self._out.write(prompt)
        self._out.flush()
        future = self._read_line()
        line = await asyncio.shield(future)
        self._pending = None
        if not line:
            self.eof = True
            return None
        line, replaced = valid_text(line.rstrip("\n"))
        if replaced:
            self._out.write(NOT_UTF8_NOTE + "\n")
            self._out.flush()
        return line
