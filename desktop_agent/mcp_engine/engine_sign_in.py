"""The engine's sign-in side: signing in to a remote server and out again
(:mod:`desktop_agent.mcp_engine.oauth` does the OAuth; this restarts the
server around it).

A mixin of :class:`~desktop_agent.mcp_engine.engine.McpEngine`, like
:mod:`engine_catalog`, so the engine module stays about routing tools and
statuses; it reads the engine's own fields and methods (declared below)
and adds none.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from desktop_agent.mcp_engine.config import McpConfig, ServerConfig
from desktop_agent.mcp_engine.connection import ServerConnection
from desktop_agent.mcp_engine.oauth import OAuthManager, SignInFailed
from desktop_agent.mcp_engine.status import ServerStatus

log = logging.getLogger(__name__)


class SignInMixin:
    """:meth:`sign_in` and :meth:`sign_out`, for :class:`McpEngine`."""

    _config: McpConfig
    _shared: dict[str, ServerConnection]
    _statuses: dict[str, ServerStatus]
    _per_conv: list[ServerConfig]
    _starts: dict[str, asyncio.Task[str | None]]
    _closed: bool
    oauth: OAuthManager

    if TYPE_CHECKING:

        def retry(self, name: str) -> bool: ...
        def _launch(self, name: str, start: Coroutine[Any, Any, str | None]) -> None: ...
        async def _start_shared(self, connection: ServerConnection) -> str | None: ...
        async def _probe(self, server: ServerConfig) -> str | None: ...
        def _publish(self, status: ServerStatus) -> None: ...

    async def sign_in(self, name: str) -> str | None:
        """Sign in to the remote server ``name`` (the browser opens), then
        start it again and wait for that. None when the sign-in worked
        (the start's outcome is its status), else the one line why not
        (also the server's status error while it waits for a sign-in)."""
        server = next((s for s in self._config.servers if s.name == name), None)
        if server is None or self._closed:
            return f'sign-in to "{name}" failed: no such server is running'
        try:
            await self.oauth.sign_in(server)
        except SignInFailed as exc:
            log.warning("%s", exc)
            status = self._statuses[name]
            if status.state == "sign_in":  # a failed server stays failed (and retried)
                self._publish(dataclasses.replace(status, error=str(exc)))
            return str(exc)
        self.retry(name)
        start = self._starts.get(name)
        if start is not None:  # its tools are there when this returns
            await asyncio.wait({start})
        return None

    async def sign_out(self, name: str) -> None:
        """Forget the sign-in of ``name``; a running session of it is
        stopped, so it says "sign-in needed" until the user signs in again.
        (A conversation's own instance keeps its session until it closes.)"""
        server = next((s for s in self._config.servers if s.name == name), None)
        if server is None:
            return
        connection = self._shared.get(name)
        if connection is not None and not self._closed:
            await connection.stop()  # first: its session's last requests still carry the token
        await self.oauth.sign_out(server)
        if connection is not None and not self._closed:
            self._launch(name, self._start_shared(connection))
        elif server in self._per_conv and not self._closed:
            self._launch(name, self._probe(server))
