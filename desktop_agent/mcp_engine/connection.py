"""One live session with one MCP server, owned by one task.

Why an owner task: an mcp 2.x session (and its stdio process or HTTP client)
must be opened and closed in the same task, or anyio fails with "Attempted to
exit cancel scope in a different task". So :meth:`ServerConnection.ensure_started`
spawns a task that opens the transport and the session, lists the tools and
then parks until it is told to stop or the transport ends; it alone closes
them, which is what reaps the child process.

Calls are *not* funnelled through that task: the SDK's dispatcher matches
responses by request id, so the caller's own task sends the request and
waits. That keeps the per-call cost at the SDK's own (see
``benchmarks/bench_mcp.py``) and makes the caller's cancellation (the user's
interrupt) cancel the request directly, which the SDK turns into a
``notifications/cancelled`` to the server.

The tool list is read when a session opens (so a restart lists it again)
and again on ``notifications/tools/list_changed``; the prompts, resources
and templates (:mod:`~desktop_agent.mcp_engine.catalog`) likewise, on their
own ``list_changed`` notices; ``on_change`` is told of each, as of every
state change.

What this module does not know: tool names across servers, conversations,
the bus. It raises; :mod:`desktop_agent.mcp_engine.calls` turns that into
:class:`ToolResult` errors.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import tempfile
import warnings
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, Literal, TypeVar

import mcp_types as types
from mcp import ClientSession
from mcp.client.session import ClientRequestContext
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

from desktop_agent.core.ports import ToolContext
from desktop_agent.mcp_engine.catalog import EMPTY, ServerCatalog, read_catalog
from desktop_agent.mcp_engine.client_hooks import CallOrigin, ClientHooks, ListKind
from desktop_agent.mcp_engine.config import ServerConfig
from desktop_agent.mcp_engine.errors import CallTimedOut, ServerDied, ServerStartError, describe
from desktop_agent.mcp_engine.idle import IdleWatchdog, Watch
from desktop_agent.mcp_engine.noise import StdoutNoise, quiet_sdk_parse_errors
from desktop_agent.mcp_engine.oauth import sign_in_needed
from desktop_agent.mcp_engine.server_log import CLIENT_LEVEL
from desktop_agent.mcp_engine.stderr import StderrTail
from desktop_agent.mcp_engine.transports import open_transport
from desktop_agent.mcp_engine.watch import WatchedReadStream

log = logging.getLogger(__name__)

State = Literal["starting", "ready", "failed", "stopped", "sign_in"]
ProgressFn = Callable[[float, float | None, str | None], None]

CLIENT_INFO = types.Implementation(name="desktop-agent", version="0.1.0")
MIN_START_TIMEOUT_S = 30.0
"""A cold ``npx`` or Python server can take seconds to start even when its
idle timeout is short, so start-up gets at least this long."""
STOP_TIMEOUT_S = 10.0
"""Bound on a clean stop; the SDK's own stdio shutdown escalates to SIGKILL well within it."""
HEALTH_PING_MAX_S = 5.0
_Answer = TypeVar("_Answer")


class ServerConnection:
    """A restartable session with one server. Not started until first needed."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        sandboxed: bool = False,
        on_change: Callable[[ServerConnection], None] | None = None,
        noise: StdoutNoise | None = None,
        hooks: ClientHooks | None = None,
    ) -> None:
        """``noise``: counts the server's stdout lines that are not MCP
        (shared by its connections); without it they are only logged.
        ``hooks``: who answers the server's own requests and hears its
        notifications (:mod:`desktop_agent.mcp_engine.client_hooks`)."""
        self.config = config
        self.state: State = "stopped"
        self.error: str | None = None
        self.tools: tuple[types.Tool, ...] = ()
        self.catalog: ServerCatalog = EMPTY
        """Its prompts, resources and templates as last read."""
        self.starts = 0
        """How many times a session was opened (restarts included)."""
        self._sandboxed = sandboxed
        self._sandbox_dir: Path | None = None
        self._on_change = on_change
        self._session: ClientSession | None = None
        self._owner: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._ended = False
        self._stopping = False
        self._closed = False
        self._lock = asyncio.Lock()
        self._stderr = StderrTail()
        self._background: set[asyncio.Task[Any]] = set()
        self._idle = IdleWatchdog()
        self._relist_wanted = False
        self._relist: asyncio.Task[None] | None = None
        self._recatalog_wanted = False
        self._recatalog: asyncio.Task[None] | None = None
        self._noise = noise or StdoutNoise(config.name, _log_notice)
        self.hooks = hooks or ClientHooks()
        self._running: list[CallOrigin] = []
        """Tool calls in flight on this connection, oldest first."""
        self._watch_of: dict[CallOrigin, Watch] = {}
        """Each running call's idle deadline, held while a request of its
        server waits for the user (:meth:`_while_held`)."""
        quiet_sdk_parse_errors()  # the noise is said here, once, not by the SDK per line

    # ------------------------------------------------------------------ life

    @property
    def alive(self) -> bool:
        return self._session is not None and not self._ended

    @property
    def sandbox_dir(self) -> Path | None:
        return self._sandbox_dir

    async def ensure_started(self) -> ClientSession:
        """The live session, (re)starting the server if needed.

        Raises :class:`ServerStartError` with a one-line message naming the server.
        """
        if self._session is not None and not self._ended:
            return self._session
        async with self._lock:
            if self._closed:
                raise ServerStartError(f'mcp server "{self.config.name}" is shut down')
            if self._session is not None and not self._ended:
                return self._session
            await self._stop_owner()
            return await self._start()

    async def _start(self) -> ClientSession:
        name = self.config.name
        self._set("starting", None)
        if self._sandboxed and self._sandbox_dir is None:
            self._sandbox_dir = Path(tempfile.mkdtemp(prefix=f"desktop-agent-mcp-{name}-"))
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[ClientSession] = loop.create_future()
        ready.add_done_callback(_retrieve)
        self._wake = asyncio.Event()
        self._ended = False
        self._stopping = False
        self._stderr.reset()
        self.starts += 1
        self._owner = asyncio.create_task(self._own(ready, self._wake), name=f"mcp-owner:{name}")
        timeout = max(self.config.timeout_s, MIN_START_TIMEOUT_S)
        try:
            async with asyncio.timeout(timeout):
                session = await asyncio.shield(ready)
        except TimeoutError:
            await self._stop_owner()
            message = f'mcp server "{name}" did not start within {timeout:g} s{self._stderr.suffix()}'
            self._set("failed", message)
            raise ServerStartError(message) from None
        except asyncio.CancelledError:
            await self._stop_owner()
            self._set("stopped", None)
            raise
        except Exception as exc:
            await self._stop_owner()
            if (needed := sign_in_needed(exc)) is not None:  # waits for the user, not a retry
                self._set("sign_in", str(needed))
                raise needed from None
            message = f'mcp server "{name}" failed to start: {describe(exc)}{self._stderr.suffix()}'
            self._set("failed", message)
            raise ServerStartError(message) from exc
        if not self._ended:  # it may already have gone again; then it says "failed"
            self._set("ready", None)
        return session

    async def _own(self, ready: asyncio.Future[ClientSession], wake: asyncio.Event) -> None:
        """The owner task: open, list tools, park, close, all in this one task."""
        try:
            async with AsyncExitStack() as stack:
                errlog = stack.enter_context(self._stderr.open())
                read, write = await stack.enter_async_context(
                    open_transport(self.config, errlog, self._sandbox_dir, self.hooks.auth)
                )
                watched = WatchedReadStream(read, on_end=lambda: self._on_transport_end(wake))
                session = await stack.enter_async_context(
                    ClientSession(
                        watched,
                        write,
                        client_info=CLIENT_INFO,
                        message_handler=self._on_message,
                        elicitation_callback=self._on_elicit,
                        sampling_callback=self._on_sample,
                        list_roots_callback=self._on_list_roots,
                        logging_callback=self._on_log,
                    )
                )
                await session.initialize()
                # Side by side, not one after another: a remote server's
                # start-up costs one round trip for the three, not three.
                tools, catalog, logs = await asyncio.gather(
                    _list_all_tools(session),
                    self._read_catalog(session),
                    _ask_for_logs(session, self.config.name),
                    return_exceptions=True,  # each one ends before the session may close
                )
                for failed in (tools, catalog, logs):
                    if isinstance(failed, BaseException):
                        raise failed
                assert not isinstance(tools, BaseException) and not isinstance(catalog, BaseException)
                self.tools, self.catalog = tools, catalog
                self._session = session
                ready.set_result(session)
                await wake.wait()
        except Exception as exc:
            if not ready.done():
                ready.set_exception(exc)
            elif (needed := sign_in_needed(exc)) is not None:  # a refused refresh: wait for the user
                self._ended = True
                self._set("sign_in", str(needed))
            else:
                log.warning('mcp server "%s": session ended with %s', self.config.name, describe(exc))
        finally:
            self._session = None
            self._ended = True
            if not ready.done():
                # Stopped before it was ready (shutdown during start-up).
                ready.set_exception(ServerStartError(f'mcp server "{self.config.name}" was stopped'))

    def _on_transport_end(self, wake: asyncio.Event) -> None:
        """The server went away (process exit, stream closed): let the owner reap it."""
        session = self._session
        if session is not None:
            self._mark_gone(session)
        wake.set()

    async def _stop_owner(self) -> None:
        owner, self._owner = self._owner, None
        if owner is None:
            return
        self._stopping = True
        self._wake.set()
        if self._session is None:
            # Still connecting: nothing to close politely; cancelling the owner
            # unwinds the transport, and the SDK's shielded stdio shutdown reaps.
            owner.cancel()
        done, _ = await asyncio.wait({owner}, timeout=STOP_TIMEOUT_S)
        if not done:
            log.warning('mcp server "%s" did not stop in %g s; cancelling', self.config.name, STOP_TIMEOUT_S)
            owner.cancel()
            await asyncio.wait({owner}, timeout=STOP_TIMEOUT_S)

    async def stop(self) -> None:
        """End the session now (a sign-out); the next call or start opens a new one."""
        async with self._lock:
            await self._stop_owner()
            self._set("stopped", None)

    async def aclose(self) -> None:
        """Stop the server for good and remove its sandbox folder; idempotent."""
        self._closed = True
        for task in list(self._background):
            task.cancel()
        if self._background:
            await asyncio.wait(self._background, timeout=STOP_TIMEOUT_S)
        # Not under the lock: a start in progress must not delay shutdown; the
        # owner task it spawned is stopped here either way.
        await self._stop_owner()
        self._idle.close()
        if self._sandbox_dir is not None:
            shutil.rmtree(self._sandbox_dir, ignore_errors=True)
            self._sandbox_dir = None
        if self.state != "failed":
            self._set("stopped", None)

    def _set(self, state: State, error: str | None) -> None:
        self.state, self.error = state, error
        if self._on_change is not None:
            self._on_change(self)

    # ------------------------------------------------------------ tool list

    async def _on_message(self, message: types.ServerNotification | Exception) -> None:
        """Server notifications: a changed tool list is listed again. A
        transport's exception item (a stdio line that is not JSON-RPC) is
        counted as noise; the session goes on.

        In a task of its own: the SDK runs this handler inside the session's
        read loop, so awaiting a request here would wait for a response that
        loop can no longer read. Several notices in a row cost one listing
        more at most.
        """
        if isinstance(message, Exception):
            if self.config.transport == "stdio":
                self._noise.saw()
            else:
                log.debug('mcp server "%s": transport error %s', self.config.name, describe(message))
            return
        if isinstance(message, types.PromptListChangedNotification):
            self._list_changed("prompts")
            return
        if isinstance(message, types.ResourceListChangedNotification):
            self._list_changed("resources")
            return
        if not isinstance(message, types.ToolListChangedNotification):
            return
        self._relist_wanted = True
        if self._relist is None or self._relist.done():
            self._relist = self._spawn(self._list_again())

    def _list_changed(self, kind: ListKind) -> None:
        self._recatalog_wanted = True
        if self._recatalog is None or self._recatalog.done():
            self._recatalog = self._spawn(self._catalog_again())
        hook = self.hooks.on_list_changed
        if hook is not None:
            try:
                hook(self.config.name, kind)
            except Exception:
                log.exception('mcp server "%s": on_list_changed failed', self.config.name)

    # ------------------------------------------------- the server's requests

    @property
    def origin(self) -> CallOrigin | None:
        """The call a server request belongs to: the newest one running."""
        return self._running[-1] if self._running else None

    async def _on_elicit(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        hook = self.hooks.elicit
        if hook is None:
            return types.ErrorData(code=types.INVALID_REQUEST, message="Elicitation not supported")
        return await self._while_held(lambda origin: hook(self.config.name, params, origin))

    async def _on_sample(
        self, context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult | types.ErrorData:
        hook = self.hooks.sample
        if hook is None:
            return types.ErrorData(code=types.INVALID_REQUEST, message="Sampling not supported")
        return await self._while_held(lambda origin: hook(self.config.name, params, origin))

    async def _while_held(self, answer: Callable[[CallOrigin | None], Awaitable[_Answer]]) -> _Answer:
        """Answer a server's request for the call it belongs to; the user may
        take longer than the server's idle timeout, so that call is not idle
        meanwhile (its whole idle period starts again once answered)."""
        origin = self.origin
        watch = self._watch_of.get(origin) if origin is not None else None
        if watch is not None:
            self._idle.hold(watch)
        try:
            return await answer(origin)
        finally:
            if watch is not None:
                self._idle.release(watch)

    async def _on_list_roots(self, context: ClientRequestContext) -> types.ListRootsResult | types.ErrorData:
        hook = self.hooks.roots
        if hook is None:
            return types.ListRootsResult(roots=[])
        return await hook(self.config.name)

    async def roots_changed(self) -> None:
        """Tell a live server that the shared folders changed
        (``notifications/roots/list_changed``; it asks for them again)."""
        session = self._session
        if session is None or self._ended:
            return
        try:
            with warnings.catch_warnings():
                # The SDK marks roots deprecated by a later protocol revision
                # (SEP-2577); servers of the revisions it speaks still use them.
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await session.send_roots_list_changed()
        except Exception as exc:  # a server that went away hears it at its next start
            log.info('mcp server "%s": could not say the roots changed: %s', self.config.name, describe(exc))

    async def _on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        hook = self.hooks.on_log
        if hook is not None:
            try:
                hook(self.config.name, params)
            except Exception:
                log.exception('mcp server "%s": on_log failed', self.config.name)

    async def _list_again(self) -> None:
        while self._relist_wanted:
            self._relist_wanted = False
            session = self._session
            if session is None or self._ended:
                return
            try:
                async with asyncio.timeout(max(self.config.timeout_s, MIN_START_TIMEOUT_S)):
                    tools = await _list_all_tools(session)
            except Exception as exc:  # the old list stays; the next notice or restart tries again
                log.warning('mcp server "%s": could not list its changed tools: %s', self.config.name, describe(exc))
                return
            if self._session is session and not self._ended and tools != self.tools:
                self.tools = tools
                self._set(self.state, self.error)

    async def _read_catalog(self, session: ClientSession) -> ServerCatalog:
        """Its prompts and resources; a server whose lists fail still offers
        its tools (the lists stay empty until the next notice or restart)."""
        try:
            async with asyncio.timeout(max(self.config.timeout_s, MIN_START_TIMEOUT_S)):
                return await read_catalog(session, self.config.name)
        except Exception as exc:
            log.warning('mcp server "%s": could not list its prompts and resources: %s', self.config.name, describe(exc))
            return self.catalog

    async def _catalog_again(self) -> None:
        """Prompt or resource list changed: read the lists again (in a task:
        see :meth:`_on_message`)."""
        while self._recatalog_wanted:
            self._recatalog_wanted = False
            session = self._session
            if session is None or self._ended:
                return
            catalog = await self._read_catalog(session)
            if self._session is session and not self._ended and catalog != self.catalog:
                self.catalog = catalog
                self._set(self.state, self.error)

    # ----------------------------------------------------------------- calls

    async def call(
        self, name: str, arguments: Mapping[str, Any], on_progress: ProgressFn, ctx: ToolContext | None = None
    ) -> types.CallToolResult:
        """Run one tool, with an idle timeout that every progress report resets.

        ``ctx``: the calling tool call, named as the origin of any request
        the server sends while this call runs.

        Raises :class:`ServerStartError`, :class:`ServerDied`, :class:`CallTimedOut`,
        or :class:`MCPError` for a protocol-level error answer.
        """
        session = await self.ensure_started()
        idle = self.config.timeout_s
        watch = self._idle.start(idle)

        async def report(progress: float, total: float | None, message: str | None) -> None:
            if not watch.fired:
                watch.touch()
                on_progress(progress, total, message)

        origin = CallOrigin(self.config.name, name, ctx) if ctx is not None else None
        if origin is not None:
            self._running.append(origin)
            self._watch_of[origin] = watch
        try:
            result: types.CallToolResult = await session.call_tool(
                name, dict(arguments), progress_callback=report
            )
        except asyncio.CancelledError:
            # Ours only if nobody else cancelled too (the user's interrupt wins).
            if not watch.fired or watch.task.uncancel() > 0:
                raise
            self._check_health(session)
            raise CallTimedOut(
                f'tool "{name}" of mcp server "{self.config.name}" gave no result or progress '
                f"for {idle:g} s and was cancelled"
            ) from None
        except MCPError as exc:
            if exc.error.code == types.CONNECTION_CLOSED:
                # The transport may notice the end a moment later (HTTP); make
                # sure the next call starts afresh instead of using this session.
                self._mark_gone(session)
                if self.hooks.auth is not None and self.config.transport != "stdio" and self._owner is not None:
                    # A refused refresh ends the HTTP session; its owner says so as it ends.
                    await asyncio.wait({self._owner}, timeout=STOP_TIMEOUT_S)
                if self.state == "sign_in" and self.error:
                    raise ServerDied(self.error) from None
                raise ServerDied(self._died_message(name)) from None
            raise
        finally:
            self._idle.stop(watch)
            if origin is not None:
                self._running.remove(origin)
                del self._watch_of[origin]
        return result

    @property
    def _gone(self) -> str:
        if self.config.transport == "stdio":
            return "exited; it restarts on the next call"
        return "disconnected; it reconnects on the next call"

    def _died_message(self, tool: str) -> str:
        went, then = self._gone.split("; ")
        return f'mcp server "{self.config.name}" {went} during the call to "{tool}"; {then}{self._stderr.suffix()}'

    def _mark_gone(self, session: ClientSession, error: str | None = None) -> None:
        """Retire ``session``: the owner reaps it and the next call starts a new one."""
        if self._session is not session or self._ended or self._stopping:
            return
        self._ended = True
        self._set("failed", error or f'mcp server "{self.config.name}" {self._gone}{self._stderr.suffix()}')
        self._wake.set()

    def _check_health(self, session: ClientSession) -> None:
        """After a hung call: ping; a server too stuck to answer is restarted."""

        async def ping() -> None:
            try:
                async with asyncio.timeout(min(self.config.timeout_s, HEALTH_PING_MAX_S)):
                    await session.send_ping()
            except (TimeoutError, MCPError):
                log.warning('mcp server "%s" does not answer a ping; restarting it', self.config.name)
                verb = "restarts" if self.config.transport == "stdio" else "reconnects"
                self._mark_gone(
                    session, f'mcp server "{self.config.name}" stopped answering; it {verb} on the next call'
                )

        self._spawn(ping())

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task


def _log_notice(notice: str) -> None:
    log.warning("%s", notice)


def _retrieve(future: asyncio.Future[ClientSession]) -> None:
    """Mark the outcome seen, so a start abandoned by its caller logs nothing at GC."""
    if not future.cancelled():
        future.exception()


async def _ask_for_logs(session: ClientSession, name: str) -> None:
    """``logging/setLevel`` to ``info`` where the server offers logging (its log view shows them)."""
    capabilities = session.server_capabilities
    if capabilities is None or capabilities.logging is None:
        return
    # The SDK marks logging deprecated (SEP-2577) and warns on every call,
    # yet servers such as server-everything still declare and use it.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        asking = session.set_logging_level(CLIENT_LEVEL)
    try:
        await asking
    except MCPError as exc:  # a server may declare logging and still refuse the level
        log.info('mcp server "%s": logging/setLevel refused: %s', name, exc)


async def _list_all_tools(session: ClientSession) -> tuple[types.Tool, ...]:
    tools: list[types.Tool] = []
    cursor: str | None = None
    for _ in range(100):  # a paginator that never ends must not hang start-up
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tuple(tools)
