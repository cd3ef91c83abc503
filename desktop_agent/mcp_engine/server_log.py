"""What servers say in MCP log messages (``notifications/message``), kept
per server for the Tools page's log view.

Why a ring: a server may log every few seconds for as long as the app runs;
the last :data:`MAX_LINES` per server are what someone looking into a
problem reads, and memory stays bounded. Each connection asks its server
for ``info`` and above (``logging/setLevel``) when the server offers
logging, so debug chatter is not even sent.

The engine keeps the log as ``McpEngine.server_logs`` and listens through
``ClientHooks.on_log`` (see :meth:`ServerLogs.hook`); whoever else wants the
messages sets :attr:`ServerLogs.forward`.
"""

from __future__ import annotations

import json
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import mcp_types as types

from desktop_agent.mcp_engine.client_hooks import LogHook

log = logging.getLogger(__name__)

MAX_LINES = 500
CLIENT_LEVEL: types.LoggingLevel = "info"
"""The level each connection asks its server for."""


@dataclass(frozen=True, slots=True)
class LogLine:
    level: str
    """``debug`` … ``emergency`` (RFC 5424, as MCP names them)."""
    logger: str | None
    text: str
    at: float
    """Wall-clock time it arrived (``time.time()``)."""


def _text(data: object) -> str:
    return data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)


class ServerLogs:
    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._lines: dict[str, deque[LogLine]] = {}
        self.forward: LogHook | None = None
        """Also told every message (after it is kept)."""

    def add(self, server: str, params: types.LoggingMessageNotificationParams) -> None:
        lines = self._lines.setdefault(server, deque(maxlen=MAX_LINES))
        lines.append(LogLine(params.level, params.logger, _text(params.data), self._clock()))
        if self.forward is not None:
            self.forward(server, params)

    def lines(self, server: str) -> tuple[LogLine, ...]:
        """The kept lines of ``server``, oldest first."""
        return tuple(self._lines.get(server, ()))

    @staticmethod
    def owns(hook: LogHook | None) -> bool:
        """Whether ``hook`` is some engine's ring (a new engine takes its place)."""
        return isinstance(getattr(hook, "__self__", None), ServerLogs)
