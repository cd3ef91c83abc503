"""The engine's catalogue side (``docs/contracts.md`` §10, "MCP in a user
message"): every ready server's prompts, resources and templates, and the
requests that read them, routed like tool calls.

A mixin of :class:`~desktop_agent.mcp_engine.engine.McpEngine` so the engine
module stays about routing tools and statuses; it reads the engine's own
fields (declared below) and adds none but :attr:`_catalogs` and
:attr:`_said_catalogs`.

Which instance answers: a shared server's one session; for a
per-conversation server, the conversation's sandbox when a
``conversation_id`` is given, else a throw-away instance (started for the
request and closed after it), so the lists and reads never depend on which
conversation happens to be open. The lists of a per-conversation server are
its probe's (replaced when a sandbox re-lists them).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager

from desktop_agent.mcp_engine import catalog_calls
from desktop_agent.mcp_engine.catalog import (
    EMPTY,
    ExpandedPrompt,
    McpCatalogError,
    PromptInfo,
    ResourceContent,
    ResourceInfo,
    ServerCatalog,
    TemplateInfo,
)
from desktop_agent.mcp_engine.client_hooks import ClientHooks
from desktop_agent.mcp_engine.config import McpConfig
from desktop_agent.mcp_engine.connection import ServerConnection
from desktop_agent.mcp_engine.noise import ServerNoise
from desktop_agent.mcp_engine.sandbox import SandboxRegistry
from desktop_agent.mcp_engine.status import ServerStatus

log = logging.getLogger(__name__)


class CatalogMixin:
    """Prompts, resources, templates and their requests, for :class:`McpEngine`."""

    _config: McpConfig
    _shared: dict[str, ServerConnection]
    _statuses: dict[str, ServerStatus]
    _registry: SandboxRegistry
    _noise_of: ServerNoise
    _closed: bool
    hooks: ClientHooks
    on_catalog: Callable[[str], None] | None
    _catalogs: dict[str, ServerCatalog]
    """Per-conversation servers' lists, from the probe (or a sandbox's re-listing)."""
    _said_catalogs: dict[str, ServerCatalog]
    """What :attr:`on_catalog` listeners were last told each server shows."""

    def prompts(self) -> list[PromptInfo]:
        """Every ready server's prompts, servers in file order; never waits."""
        return [p for s in self._config.servers for p in self.catalog_of(s.name).prompts]

    def resources(self) -> list[ResourceInfo]:
        return [r for s in self._config.servers for r in self.catalog_of(s.name).resources]

    def templates(self) -> list[TemplateInfo]:
        return [t for s in self._config.servers for t in self.catalog_of(s.name).templates]

    def catalog_of(self, server: str) -> ServerCatalog:
        """The server's lists while it is ready; empty otherwise."""
        status = self._statuses.get(server)
        if status is None or status.state != "ready":
            return EMPTY
        connection = self._shared.get(server)
        if connection is not None:
            return connection.catalog
        return self._catalogs.get(server, EMPTY)

    async def get_prompt(
        self, server: str, name: str, arguments: Mapping[str, str], *, conversation_id: str | None = None
    ) -> ExpandedPrompt:
        """The server's prompt with ``arguments``; raises :class:`McpCatalogError`.
        ``conversation_id``: a per-conversation server answers from that
        conversation's sandbox (without one, from a throw-away instance)."""
        async with self._catalog_connection(server, conversation_id) as connection:
            return await catalog_calls.get_prompt(connection, name, arguments)

    async def read_resource(
        self, server: str, uri: str, *, conversation_id: str | None = None
    ) -> ResourceContent:
        """The resource's text (capped) and images; raises :class:`McpCatalogError`."""
        async with self._catalog_connection(server, conversation_id) as connection:
            return await catalog_calls.read_resource(connection, uri)

    async def complete(
        self,
        server: str,
        ref: PromptInfo | TemplateInfo,
        argument: str,
        value: str,
        context: Mapping[str, str] = {},
        *,
        conversation_id: str | None = None,
    ) -> list[str]:
        """The server's completions of ``argument`` typed so far as ``value``
        (``context``: the arguments already chosen); [] when it offers none."""
        if not self.catalog_of(server).completions:
            return []
        async with self._catalog_connection(server, conversation_id) as connection:
            return await catalog_calls.complete(connection, ref, argument, value, context)

    @asynccontextmanager
    async def _catalog_connection(self, server: str, conversation_id: str | None) -> AsyncIterator[ServerConnection]:
        config = next((s for s in self._config.servers if s.name == server and s.enabled), None)
        if config is None:
            raise McpCatalogError(f'unknown mcp server "{server}"')
        if self._closed:
            raise McpCatalogError(f'mcp server "{server}" is shut down')
        shared = self._shared.get(server)
        if shared is not None:
            yield shared
        elif conversation_id is not None:
            async with self._registry.use(conversation_id) as sandbox:
                yield sandbox.connections[server]
        else:
            once = ServerConnection(config, sandboxed=True, noise=self._noise_of(server), hooks=self.hooks)
            try:
                yield once
            finally:
                await once.aclose()

    def _check_catalog(self, server: str) -> None:
        """Tell ``on_catalog`` when what the lists show for ``server`` changed."""
        shown = self.catalog_of(server)
        if self._said_catalogs.get(server, EMPTY) == shown:
            return
        self._said_catalogs[server] = shown
        if self.on_catalog is not None:
            try:
                self.on_catalog(server)
            except Exception:
                log.exception("on_catalog callback failed")
