"""The MCP engine: every configured server, as two tool sources for the router.

Routing (contracts §2): built-in tools → shared servers (:meth:`McpEngine.shared_source`)
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

Never blocking (a slow server must not hold up the window): the window
starts the servers with
:meth:`McpEngine.start_background` and does not wait; each server's tools
join the visible list (:meth:`McpEngine.specs`, which the router reads for
every request) the moment it is ready, and again whenever its list changes
(a restart, ``notifications/tools/list_changed``). :meth:`McpEngine.before_turn`
tells a turn which servers it goes without and retries, in the background,
those that failed; :meth:`McpEngine.retry` is the status bar's Retry. The
headless mode still awaits :meth:`McpEngine.start` before its prompt.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

import mcp_types as types

from desktop_agent.core.notice import Notice
from desktop_agent.core.ports import ToolContext, ToolResult, ToolSource, ToolSpec
from desktop_agent.core.risk import ToolAnnotations
from desktop_agent.mcp_engine.calls import run_tool
from desktop_agent.mcp_engine.catalog import ServerCatalog
from desktop_agent.mcp_engine.client_hooks import ClientHooks
from desktop_agent.mcp_engine.config import McpConfig, ServerConfig
from desktop_agent.mcp_engine.connection import STOP_TIMEOUT_S, ServerConnection
from desktop_agent.mcp_engine.engine_catalog import CatalogMixin
from desktop_agent.mcp_engine.engine_sign_in import SignInMixin
from desktop_agent.mcp_engine.errors import McpEngineError
from desktop_agent.mcp_engine.noise import ServerNoise
from desktop_agent.mcp_engine.oauth import OAuthManager, SignInNeeded
from desktop_agent.mcp_engine.sandbox import SandboxRegistry
from desktop_agent.mcp_engine.server_log import ServerLogs
from desktop_agent.mcp_engine.status import Readiness, ServerStatus, StatusState

log = logging.getLogger(__name__)

_TOOL_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

__all__ = ["McpEngine", "Readiness", "ServerStatus", "StatusState"]


class McpEngine(CatalogMixin, SignInMixin):
    def __init__(
        self,
        config: McpConfig,
        *,
        on_status: Callable[[ServerStatus], None] | None = None,
        on_warning: Callable[[str], None] | None = None,
        hooks: ClientHooks | None = None,
        on_catalog: Callable[[str], None] | None = None,
        oauth: OAuthManager | None = None,
    ) -> None:
        """``on_status``: told each server's status when it changes.
        ``on_warning``: told each warning about the tool list (a hidden
        duplicate or invalid name) once, when it is first found, also after
        :meth:`start` has returned (a server that joins later).
        ``on_catalog``: told a server's name whenever what :meth:`prompts`,
        :meth:`resources` or :meth:`templates` return for it changed (it
        became ready, re-listed, or went away). All may be set later as
        attributes of the same names."""
        self._config = config
        self.on_status = on_status
        self.on_warning = on_warning
        self.on_catalog = on_catalog
        self._catalogs: dict[str, ServerCatalog] = {}
        """Per-conversation servers' lists, from the probe (or a sandbox's re-listing)."""
        self._said_catalogs: dict[str, ServerCatalog] = {}
        self.hooks = hooks or ClientHooks()
        """Shared by every connection and read when a server asks: its
        fields may be set after start (:mod:`~desktop_agent.mcp_engine.client_hooks`)."""
        self.oauth = oauth or OAuthManager()
        """Remote servers' sign-ins (:mod:`~desktop_agent.mcp_engine.oauth`)."""
        self.hooks.auth = self.oauth.auth_for
        self.server_logs = ServerLogs()
        """Each server's MCP log messages (the Tools page's log view)."""
        if self.hooks.on_log is None or ServerLogs.owns(self.hooks.on_log):
            self.hooks.on_log = self.server_logs.add
        self._statuses: dict[str, ServerStatus] = {}
        self._shared: dict[str, ServerConnection] = {}
        self._per_conv = [s for s in config.servers if s.enabled and s.isolation == "per_conversation"]
        self._probed: dict[str, tuple[types.Tool, ...]] = {}
        self._noise_of = ServerNoise(self._say)
        """Each server's counter of stdout lines that are not MCP, shared by
        all its connections, so its warning is rate-limited per server."""
        self._unsaid: list[str] = []
        """Warnings found while nobody listens (during :meth:`start`), returned by it."""
        self._registry = SandboxRegistry(
            self._per_conv,
            config.max_sandboxes,
            on_change=self._on_sandbox_change,
            noise=self._noise_of,
            hooks=self.hooks,
        )
        self._specs: list[ToolSpec] = []
        self._route: dict[str, ServerConfig] = {}
        self._spec_warnings: list[str] = []
        self._warned: set[str] = set()
        self._starts: dict[str, asyncio.Task[str | None]] = {}
        """Starts and probes in flight, by server: at most one each."""
        self._started = False
        self._closed = False
        for server in config.servers:
            if not server.enabled:
                self._publish(ServerStatus(server.name, "disabled"))
            elif server.isolation == "shared":
                self._shared[server.name] = ServerConnection(
                    server, on_change=self._on_connection_change, noise=self._noise_of(server.name), hooks=self.hooks
                )
                self._publish(ServerStatus(server.name, "stopped"))
            else:
                self._publish(ServerStatus(server.name, "stopped"))

    # ------------------------------------------------------------- lifecycle

    async def start(self) -> list[str]:
        """Start shared servers and probe per-conversation ones, all at once,
        and wait until each is ready or has failed (the headless mode).

        Returns warnings, one line each naming the server: the failures, then
        the tool-list warnings; never raises for a failing server.
        """
        if self._started or self._closed:
            return []
        self.start_background()
        # A start cancelled by aclose() is no failure; the caller's own
        # cancellation still propagates.
        results = await asyncio.gather(*self._starts.values(), return_exceptions=True)
        failures = [w for w in results if isinstance(w, str)]
        for warning in failures:
            log.warning("%s", warning)
        self._refresh_specs()
        unsaid, self._unsaid = self._unsaid, []
        return failures + self._spec_warnings + unsaid

    def start_background(self) -> None:
        """Start every server without waiting (the window): statuses and
        tools follow as each one gets there. Idempotent."""
        if self._started or self._closed:
            return
        self._started = True
        for connection in self._shared.values():
            self._launch(connection.config.name, self._start_shared(connection))
        for server in self._per_conv:
            self._launch(server.name, self._probe(server))

    def before_turn(self) -> Readiness:
        """Which servers a turn starting now goes without; never waits.

        Every failed server is started again in the background (one that
        has tools, i.e. died after starting, would restart on its next call
        anyway; now it is back sooner). Named: servers still starting, and
        failed ones that never offered a tool; their tools join the turn's
        next request once they are ready.
        """
        if not self._started or self._closed:
            return Readiness()
        starting: list[str] = []
        retrying: list[str] = []
        for server in self._config.servers:
            state = self._statuses[server.name].state
            if state == "failed":
                self.retry(server.name)
                if not self._tools_of(server):
                    retrying.append(server.name)
            elif (state == "starting" or self._starting(server.name)) and not self._tools_of(server):
                starting.append(server.name)
        return Readiness(tuple(starting), tuple(retrying))

    def _starting(self, name: str) -> bool:
        """A start of ``name`` is under way (perhaps not yet running)."""
        running = self._starts.get(name)
        return running is not None and not running.done()

    def retry(self, name: str) -> bool:
        """Start the failed server ``name`` again, in the background (the
        status bar's Retry). False when there is nothing to do: it has not
        failed, a start is already under way, or the engine is shut down."""
        status = self._statuses.get(name)
        if self._closed or status is None or status.state not in ("failed", "sign_in"):
            return False
        if self._starting(name):  # a start that is done has published its failure last
            return False
        connection = self._shared.get(name)
        if connection is not None:
            self._launch(name, self._start_shared(connection))
            return True
        server = next((s for s in self._per_conv if s.name == name), None)
        if server is None:
            return False
        self._launch(name, self._probe(server))
        return True

    def _launch(self, name: str, start: Coroutine[Any, Any, str | None]) -> None:
        task = asyncio.create_task(start, name=f"mcp-start:{name}")
        self._starts[name] = task

        def done(finished: asyncio.Task[str | None]) -> None:
            if self._starts.get(name) is finished:
                del self._starts[name]
            if not finished.cancelled() and finished.exception() is not None:
                log.error('mcp server "%s": start failed unexpectedly', name, exc_info=finished.exception())

        task.add_done_callback(done)

    async def _start_shared(self, connection: ServerConnection) -> str | None:
        try:
            await connection.ensure_started()
        except McpEngineError as exc:
            return str(exc)
        return None

    async def _probe(self, server: ServerConfig) -> str | None:
        """Start a throw-away instance to learn the schema, then close it and its folder.

        The outcome is published last, once the probe is reaped: a status
        of ``failed`` means a retry may start now.
        """
        known = self._probed.get(server.name, ())
        self._publish(_status(server, "starting", known))
        try:
            probe = ServerConnection(server, sandboxed=True, noise=self._noise_of(server.name), hooks=self.hooks)
            try:
                await probe.ensure_started()
                tools = probe.tools
                self._catalogs[server.name] = probe.catalog
            finally:
                await probe.aclose()
        except McpEngineError as exc:
            self._publish(_status(server, "sign_in" if isinstance(exc, SignInNeeded) else "failed", known, str(exc)))
            return str(exc)
        except asyncio.CancelledError:
            self._publish(_status(server, "stopped", known))
            raise
        self._probed[server.name] = tools
        self._refresh_specs()
        self._publish(_status(server, "ready", tools))
        return None

    async def close_conversation(self, conversation_id: str) -> None:
        await self._registry.close(conversation_id)

    async def aclose(self) -> None:
        """Reap every server process and sandbox folder; idempotent. Starts
        still under way are cancelled first (a server that never answers
        does not hold up the exit)."""
        self._closed = True
        starts = list(self._starts.values())
        for task in starts:
            task.cancel()
        if starts:
            await asyncio.wait(starts, timeout=STOP_TIMEOUT_S)
        await asyncio.gather(self._registry.aclose(), *(c.aclose() for c in self._shared.values()))
        for server in self._per_conv:
            if self._statuses[server.name].state != "failed":
                self._publish(_status(server, "stopped", self._probed.get(server.name, ())))

    # ----------------------------------------------------------------- tools

    def specs(self) -> list[ToolSpec]:
        """Every visible tool of the servers that are up now, in file order
        of their servers."""
        return list(self._specs)

    def specs_of(self, isolation: str) -> list[ToolSpec]:
        """The visible tools of the servers of one isolation level that are up now."""
        return [s for s in self._specs if self._route[s.name].isolation == isolation]

    def statuses(self) -> list[ServerStatus]:
        return [self._statuses[s.name] for s in self._config.servers]

    def shared_source(self) -> ToolSource:
        return _Source(self, "shared")

    def conversation_source(self) -> ToolSource:
        return _Source(self, "per_conversation")

    @asynccontextmanager
    async def isolated_source(self, names: Sequence[str]) -> AsyncIterator[ToolSource | None]:
        """A sub-agent's own instances of the servers holding ``names``
        (contracts §9): new connections, started on their
        first call, each a process (or remote session) of its own — shared
        with neither the main agent nor a conversation's sandbox. A
        per-conversation server gets a temporary profile folder
        (``${sandbox_dir}``). Only tools the main agent sees are offered
        (a ``disabled_tools`` entry holds for the sub-agent too). On exit
        every instance is stopped and its folder removed, also when the
        sub-agent was cancelled. None when no name is an MCP tool."""
        wanted = set(names)
        specs = [s for s in self._specs if s.name in wanted]
        if not specs or self._closed:
            yield None
            return
        servers = {self._route[s.name].name: self._route[s.name] for s in specs}
        connections = {
            name: ServerConnection(
                config,
                sandboxed=config.isolation == "per_conversation",
                noise=self._noise_of(name),
                hooks=self.hooks,
            )
            for name, config in servers.items()
        }
        routes = {s.name: connections[self._route[s.name].name] for s in specs}
        try:
            yield _IsolatedSource(specs, routes)
        finally:
            closing = asyncio.ensure_future(asyncio.gather(*(c.aclose() for c in connections.values())))
            try:
                await asyncio.shield(closing)
            except asyncio.CancelledError:
                await asyncio.wait({closing}, timeout=STOP_TIMEOUT_S * 2)
                raise

    @property
    def sandboxes(self) -> SandboxRegistry:
        """The per-conversation sandboxes (diagnostics, tests)."""
        return self._registry

    def connection(self, name: str) -> ServerConnection | None:
        """A shared server's connection (diagnostics, the benchmark); None for others."""
        return self._shared.get(name)

    def _refresh_specs(self) -> None:
        """Rebuild the visible tools (a server joined or its list changed);
        say each warning once."""
        self._spec_warnings = self._build_specs()
        for warning in self._spec_warnings:
            if warning not in self._warned:
                self._warned.add(warning)
                log.warning("%s", warning)
                if self.on_warning is not None:
                    try:
                        self.on_warning(warning)
                    except Exception:
                        log.exception("on_warning callback failed")

    def _say(self, warning: str) -> None:
        """A warning found while the servers run: to ``on_warning``, or,
        while nobody listens yet (the headless start-up), with what
        :meth:`start` returns."""
        log.warning("%s", warning)
        if self.on_warning is None:
            self._unsaid.append(warning)
            return
        try:
            self.on_warning(warning)
        except Exception:
            log.exception("on_warning callback failed")

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
                        Notice(
                            f'mcp server "{server.name}": tool "{tool.name}" is hidden: '
                            "the name must be 1-64 letters, digits, '_' or '-'",
                            "notice_mcp_tool_bad_name",
                            {"server": server.name, "tool": tool.name},
                        )
                    )
                    continue
                owner = route.get(tool.name)
                if owner is not None:
                    warnings.append(
                        Notice(
                            f'mcp server "{server.name}": tool "{tool.name}" is hidden by the tool of the '
                            f'same name from server "{owner.name}" (first server in the file wins)',
                            "notice_mcp_tool_duplicate",
                            {"server": server.name, "tool": tool.name, "owner": owner.name},
                        )
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
                        annotations=_annotations(tool.annotations),
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

    async def call_in(
        self, isolation: str, name: str, arguments: Mapping[str, Any], ctx: ToolContext
    ) -> ToolResult:
        """Call ``name`` on its server if the server is of ``isolation``: a
        per-conversation server runs in the calling conversation's sandbox."""
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
        """A shared server changed state or re-listed its tools. The tools
        are rebuilt before the status goes out, so a listener that reads
        them on ``ready`` sees the new ones."""
        if connection.state == "ready" and not self._closed:
            self._refresh_specs()
        self._publish(_status(connection.config, connection.state, connection.tools, connection.error))
        self._check_catalog(connection.config.name)

    def _on_sandbox_change(self, connection: ServerConnection) -> None:
        """A conversation's instance of a per-conversation server is up or
        re-listed its tools: a changed list replaces the probed one."""
        name = connection.config.name
        if connection.state == "ready" and not self._closed and connection.catalog != self._catalogs.get(name):
            self._catalogs[name] = connection.catalog
            self._check_catalog(name)
        if connection.state != "ready" or connection.tools == self._probed.get(name) or self._closed:
            return
        self._probed[name] = connection.tools
        self._refresh_specs()
        status = self._statuses[name]
        self._publish(_status(connection.config, status.state, connection.tools, status.error))

    def _publish(self, status: ServerStatus) -> None:
        if self._statuses.get(status.name) == status:
            return
        self._statuses[status.name] = status
        if self.on_status is not None:
            try:
                self.on_status(status)
            except Exception:
                log.exception("on_status callback failed")
        self._check_catalog(status.name)


class _Source:
    """A ToolSource over one isolation level of the engine."""

    def __init__(self, engine: McpEngine, isolation: str) -> None:
        self._engine = engine
        self._isolation = isolation

    def specs(self) -> Sequence[ToolSpec]:
        return self._engine.specs_of(self._isolation)

    async def call(self, name: str, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        return await self._engine.call_in(self._isolation, name, arguments, ctx)


class _IsolatedSource:
    """A ToolSource over a sub-agent's own server instances."""

    def __init__(self, specs: Sequence[ToolSpec], routes: Mapping[str, ServerConnection]) -> None:
        self._specs = list(specs)
        self._routes = dict(routes)

    def specs(self) -> Sequence[ToolSpec]:
        return list(self._specs)

    async def call(self, name: str, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        connection = self._routes.get(name)
        if connection is None:
            return ToolResult(text=f'unknown MCP tool "{name}"', is_error=True)
        return await run_tool(connection, name, arguments, ctx)


def _status(
    server: ServerConfig, state: StatusState, tools: Sequence[types.Tool], error: str | None = None
) -> ServerStatus:
    names = tuple(t.name for t in tools if t.name not in server.disabled_tools)
    return ServerStatus(server.name, state, len(names), error, names)


def _annotations(given: types.ToolAnnotations | None) -> ToolAnnotations | None:
    """The server's hints as it states them (defaults are not filled in:
    ``core/risk.py`` says why)."""
    if given is None:
        return None
    return ToolAnnotations(
        read_only=given.read_only_hint,
        destructive=given.destructive_hint,
        idempotent=given.idempotent_hint,
        open_world=given.open_world_hint,
    )


def _parameters(schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """The input schema as OpenAI wants it: always an object schema."""
    params = dict(schema or {})
    params.setdefault("type", "object")
    if params.get("type") == "object":
        params.setdefault("properties", {})
    return params
