"""A stdio server's stdout lines that are not MCP: said once, then counted.

Why: a server that prints a banner or debug lines on stdout (where only
JSON-RPC may go) made the mcp SDK log each line as an error with its
traceback (``mcp.client.stdio``: "Failed to parse JSONRPC message from
server"), a dozen lines of terminal each. The SDK also hands the parse
error to the session's message handler, where the connection counts it
here instead; :func:`quiet_sdk_parse_errors` silences the SDK's record of
the same event. The server goes on working: the line is skipped, and calls
still get their answers.

One warning per server at most every :data:`NOISE_EVERY_S` seconds: the
first line is said at once, and the lines that come within the minute
after are counted and said with the next warning.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from desktop_agent.core.notice import Notice

NOISE_EVERY_S = 60.0
SDK_STDIO_LOGGER = "mcp.client.stdio"
SDK_PARSE_FAILURE = "Failed to parse JSONRPC message from server"
"""The SDK's message for each line it could not parse (mcp/client/stdio.py ``_parse_line``)."""


class StdoutNoise:
    """Counts one server's lines that are not MCP and says so, rate-limited.

    Shared by every connection to the server (shared, per-conversation,
    a sub-agent's), so the limit is per server."""

    def __init__(
        self,
        server: str,
        say: Callable[[Notice], None],
        *,
        every_s: float = NOISE_EVERY_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.server = server
        self._say = say
        self._every_s = every_s
        self._clock = clock
        self._said_at: float | None = None
        self._unsaid = 0
        self.lines = 0
        """Every such line so far."""

    def saw(self) -> None:
        """One more line that is not MCP."""
        self.lines += 1
        self._unsaid += 1
        now = self._clock()
        if self._said_at is not None and now - self._said_at < self._every_s:
            return
        notice = self._first() if self._said_at is None else self._more(self._unsaid)
        self._said_at, self._unsaid = now, 0
        self._say(notice)

    def _first(self) -> Notice:
        return Notice(
            f'mcp server "{self.server}" wrote a line that is not MCP (JSON-RPC) to its standard output; '
            "such lines are ignored",
            "notice_mcp_stdout_noise",
            {"server": self.server},
        )

    def _more(self, count: int) -> Notice:
        return Notice(
            f'mcp server "{self.server}" wrote {count} more line that is not MCP (JSON-RPC) '
            "to its standard output; it was ignored"
            if count == 1
            else f'mcp server "{self.server}" wrote {count} more lines that are not MCP (JSON-RPC) '
            "to its standard output; they were ignored",
            "notice_mcp_stdout_noise_more",
            {"server": self.server, "count": count},
        )


class ServerNoise:
    """Each server's :class:`StdoutNoise`, made on first use (by name)."""

    def __init__(self, say: Callable[[Notice], None]) -> None:
        self._say = say
        self._by_server: dict[str, StdoutNoise] = {}

    def __call__(self, server: str) -> StdoutNoise:
        noise = self._by_server.get(server)
        if noise is None:
            noise = self._by_server[server] = StdoutNoise(server, self._say)
        return noise


class _SdkParseFailures(logging.Filter):
    """Drops the SDK's record (and traceback) of a line it could not parse."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.msg != SDK_PARSE_FAILURE


_FILTER = _SdkParseFailures()


def quiet_sdk_parse_errors() -> None:
    """Install the filter on the SDK's stdio logger (once; idempotent)."""
    logger = logging.getLogger(SDK_STDIO_LOGGER)
    if _FILTER not in logger.filters:
        logger.addFilter(_FILTER)
