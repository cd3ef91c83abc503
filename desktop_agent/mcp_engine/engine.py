"""The MCP engine: every configured server, as two tool sources for the router.

Routing (DESIGN §2): built-in tools → shared servers (:meth:`McpEngine.shared_source`)
→ per-conversation servers (:meth:`McpEngine.conversation_source`) → unknown.

Duplicate tool names: **the first server in file order wins**, whatever its
isolation; the same name from a later server is hidden, and :meth:`start`
returns a warning naming both servers. Why file order: it is the one order
the user controls and can see, it does not depend on which server happened
to start first, and it stays the same from run to run. (A built-in tool of
the same name beats every MCP tool; that is the router's rule.) Tool names
the OpenAI API would reject are hidden with a warning too.

A server that fails to start is a warning, never an exception: the other
servers keep working.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import mcp_types as types

from desktop_agent.core.ports import ToolContext, ToolResult, ToolSource, ToolSpec
from desktop_agent.mcp_engine.calls import run_tool
from desktop_agent.mcp_engine.config import McpConfig, ServerConfig
from desktop_agent.mcp_engine.connection import ServerConnection
from desktop_agent.mcp_engine.errors import McpEngineError
from desktop_agent.mcp_engine.sandbox import SandboxRegistry

log = logging.getLogger(__name__)

StatusState = Literal["starting", "ready", "failed", "stopped", "disabled"]
_TOOL_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@dataclass(frozen=True)
class ServerStatus:
    name: str
    state: StatusState
    tool_count: int = 0
    error: str | None = None


class McpEngine:
    def __init__(self, config: McpConfig, *, on_status: Callable[[ServerStatus], None] | None = None) -> None:
        self._config = config
        self._on_status = on_status
        self._statuses: dict[str, ServerStatus] = {}
        self._shared: dict[str, ServerConnection] = {}
        self._per_conv = [s for s in config.servers if s.enabled and s.isolation == "per_conversation"]
        self._probed: dict[str, tuple[types.Tool, ...]] = {}
        self._registry = SandboxRegistry(self._per_conv, config.max_sandboxes)
        self._specs: list[ToolSpec] = []
        self._route: dict[str, ServerConfig] = {}
        self._started = False
        self._closed = False
        for server in config.servers:
            if not server.enabled:
                self._publish(ServerStatus(server.name, "disabled"))
            elif server.isolation == "shared":
                self._shared[server.name] = ServerConnection(server, on_change=self._on_connection_change)
                self._publish(ServerStatus(server.name, "stopped"))
            else:
                self._publish(ServerStatus(server.name, "stopped"))

    # ------------------------------------------------------------- lifecycle

    async def start(self) -> list[str]:
        """Start shared servers and probe per-conversation ones, all at once.

        Returns warnings, one line each naming the server; never raises for a
        failing server.
        """
        if self._started or self._closed:
            return []
        self._started = True
        results = await asyncio.gather(
            *(self._start_shared(c) for c in self._shared.values()),
            *(self._probe(s) for s in self._per_conv),
        )
        warnings = [w for w in results if w is not None]
        warnings += self._build_specs()
        for warning in warnings:
            log.warning("%s", warning)
        return warnings

    async def _start_shared(self, connection: ServerConnection) -> str | None:
        try:
            await connection.ensure_started()
        except McpEngineError as exc:
            return str(exc)
        return None

    async def _probe(self, server: ServerConfig) -> str | None:
        """Start a throw-away instance to learn the schema, then close it and its folder."""
        self._publish(ServerStatus(server.name, "starting"))
        probe = ServerConnection(server, sandboxed=True)
        try:
            await probe.ensure_started()
            self._probed[server.name] = probe.tools
        except McpEngineError as exc:
            self._publish(ServerStatus(server.name, "failed", 0, str(exc)))
            return str(exc)
        finally:
            await probe.aclose()
        self._publish(ServerStatus(server.name, "ready", len(self._probed[server.name])))
        return None

    async def close_conversation(self, conversation_id: str) -> None:
        await self._registry.close(conversation_id)

    async def aclose(self) -> None:
        """Reap every server process and sandbox folder; idempotent."""
        self._closed = True
        await asyncio.gather(self._registry.aclose(), *(c.aclose() for c in self._shared.values()))
        for server in self._per_conv:
            if self._statuses[server.name].state != "failed":
                self._publish(ServerStatus(server.name, "stopped", len(self._probed.get(server.name, ()))))

    # ----------------------------------------------------------------- tools

    def specs(self) -> list[ToolSpec]:
        """Every visible tool, in file order of their servers."""
        return list(self._specs)

    def statuses(self) -> list[ServerStatus]:
        return [self._statuses[s.name] for s in self._config.servers]

    def shared_source(self) -> ToolSource:
        return _Source(self, "shared")

    def conversation_source(self) -> ToolSource:
        return _Source(self, "per_conversation")

    @property
    def sandboxes(self) -> SandboxRegistry:
        """The per-conversation sandboxes (diagnostics, tests)."""
        return self._registry

    def connection(self, name: str) -> ServerConnection | None:
        """A shared server's connection (diagnostics, the benchmark); None for others."""
        return self._shared.get(name)

    def _build_specs(self) -> list[str]:
        warnings: list[str] = []
        specs: list[ToolSpec] = []
        route: dict[str, ServerConfig] = {}
        for server in self._config.servers:
            for tool in self._tools_of(server):
                if tool.name in server.disabled_tools:
                    continue
                if not _TOOL_NAME_RE.match(tool.name):
                    warnings.append(
                        f'mcp server "{server.name}": tool "{tool.name}" is hidden: '
                        "the name must be 1-64 letters, digits, '_' or '-'"
                    )
                    continue
                owner = route.get(tool.name)
                if owner is not None:
                    warnings.append(
                        f'mcp server "{server.name}": tool "{tool.name}" is hidden by the tool of the '
                        f'same name from server "{owner.name}" (first server in the file wins)'
                    )
                    continue
                route[tool.name] = server
                specs.append(
                    ToolSpec(
                        name=tool.name,
                        description=tool.description or tool.title or "",
                        parameters=_parameters(tool.input_schema),
                        skip_approval=False,
                        server=server.name,
                    )
                )
        self._specs, self._route = specs, route
        return warnings

    def _tools_of(self, server: ServerConfig) -> Sequence[types.Tool]:
        if not server.enabled:
            return ()
        if server.isolation == "shared":
            return self._shared[server.name].tools
        return self._probed.get(server.name, ())

    async def _call(
        self, isolation: str, name: str, arguments: Mapping[str, Any], ctx: ToolContext
    ) -> ToolResult:
        server = self._route.get(name)
        if server is None or server.isolation != isolation:
            return ToolResult(text=f'unknown MCP tool "{name}"', is_error=True)
        if self._closed:
            return ToolResult(text=f'mcp server "{server.name}" is shut down', is_error=True)
        if isolation == "shared":
            return await run_tool(self._shared[server.name], name, arguments, ctx)
        async with self._registry.use(ctx.conversation_id) as sandbox:
            return await run_tool(sandbox.connections[server.name], name, arguments, ctx)

    # ---------------------------------------------------------------- status

    def _on_connection_change(self, connection: ServerConnection) -> None:
        self._publish(
            ServerStatus(connection.config.name, connection.state, len(connection.tools), connection.error)
        )

    def _publish(self, status: ServerStatus) -> None:
        if self._statuses.get(status.name) == status:
            return
        self._statuses[status.name] = status
        if self._on_status is not None:
            try:
                self._on_status(status)
            except Exception:
                log.exception("on_status callback failed")


class _Source:
    """A ToolSource over one isolation level of the engine."""

    def __init__(self, engine: McpEngine, isolation: str) -> None:
        self._engine = engine
        self._isolation = isolation

    def specs(self) -> Sequence[ToolSpec]:
        return [s for s in self._engine.specs() if self._engine._route[s.name].isolation == self._isolation]

    async def call(self, name: str, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        return await self._engine._call(self._isolation, name, arguments, ctx)


def _parameters(schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """The input schema as OpenAI wants it: always an object schema."""
    params = dict(schema or {})
    params.setdefault("type", "object")
    if params.get("type") == "object":
        params.setdefault("properties", {})
    return params
