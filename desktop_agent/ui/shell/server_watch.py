"""The status bar's MCP servers kept current. Servers start in the
background and may fail, or come back, between turns, so their states are
read again every few seconds while any run, after each turn and after a
Retry from an item's menu. Reading them never takes the window down.
A Sign in from an item's menu runs the sign-in (the browser opens)."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer

from desktop_agent.ui.shell.status_bar import StatusBar, server_views

if TYPE_CHECKING:
    from desktop_agent.ui.settings.mcp_feature import McpFeature

log = logging.getLogger(__name__)

STATUS_REFRESH_MS = 3000


class ServerWatch(QObject):
    def __init__(self, bar: StatusBar) -> None:
        super().__init__(bar)
        self._bar = bar
        self._mcp: McpFeature | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(STATUS_REFRESH_MS)
        self._timer.timeout.connect(self.refresh)
        bar.retry_requested.connect(self._retry)
        bar.sign_in_requested.connect(self._sign_in)
        self._signing: set[asyncio.Future[None]] = set()

    def follow(self, mcp: McpFeature | None) -> None:
        """Show these servers from now on (None: there are none)."""
        self._mcp = mcp
        self.refresh()
        if mcp is not None:
            self._timer.start()

    def stop(self) -> None:
        """The window closes: no more reads."""
        self._timer.stop()

    def refresh(self) -> None:
        mcp = self._mcp
        if mcp is not None:
            try:
                self._bar.set_servers(server_views(mcp.statuses()))
            except Exception:  # the status bar must never take the window down
                log.exception("could not read the MCP server states")

    def _sign_in(self, name: str) -> None:
        mcp = self._mcp
        if mcp is None or mcp.sign_in is None:
            return
        sign_in = mcp.sign_in

        async def run() -> None:
            await sign_in(name)  # a failure is the server's status line
            self.refresh()

        task = asyncio.ensure_future(run())
        self._signing.add(task)
        task.add_done_callback(self._signing.discard)

    def _retry(self, name: str) -> None:
        """A server's Retry (its status item's menu)."""
        mcp = self._mcp
        if mcp is not None:
            mcp.retry(name)
            self.refresh()
