"""Failure and recovery against our own small servers (tests/mcp_engine/servers):
a crash mid-call, a silent hang, a blocked server, progress that keeps a long
call alive, an interrupt, and no orphan process afterwards; a tool list that
changes while the server runs.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path

import mcp_types as types
import pytest

from desktop_agent.core.messages import BusItem, ToolProgressMessage
from desktop_agent.core.ports import ToolContext, ToolResult
from desktop_agent.mcp_engine import McpConfig, McpEngine, ServerConfig, ServerStatus
from desktop_agent.mcp_engine.connection import ServerConnection
from desktop_agent.testing.mcp_servers import gated_entry

from .conftest import (
    CRASH_SERVER,
    HANG_SERVER,
    CallContext,
    IdleClock,
    children,
    python_server,
    run_everything,
)

pytestmark = pytest.mark.integration


async def test_crash_fails_the_call_then_the_next_call_restarts_the_server(
    make_ctx: Callable[..., CallContext],
) -> None:
    engine = McpEngine(
        McpConfig(servers=(python_server("crashy", CRASH_SERVER, disabled_tools=("crash.report",)),))
    )
    try:
        assert await engine.start() == []
        source = engine.shared_source()
        first_pid = (await source.call("pid", {}, make_ctx().ctx)).text
        call = make_ctx()

        crashed = await source.call("crash", {}, call.ctx)
        again = await source.call("pid", {}, make_ctx().ctx)

        assert crashed == ToolResult(
            text='mcp server "crashy" exited during the call to "crash"; it restarts on the next call',
            is_error=True,
        )
        assert call.ctx.partial.snapshot() == {"progress": ["1/2 about to crash"]}
        assert not again.is_error and again.text != first_pid
        assert children(str(CRASH_SERVER)) == [int(again.text)]
    finally:
        await engine.aclose()
    assert children(str(CRASH_SERVER)) == []


async def test_a_silent_hung_call_ends_at_the_idle_timeout_and_the_server_lives_on(
    make_ctx: Callable[..., CallContext], idle_clock: IdleClock
) -> None:
    engine = McpEngine(McpConfig(servers=(python_server("hangs", HANG_SERVER, timeout_s=1.0),)))
    try:
        assert await engine.start() == []
        source = engine.shared_source()
        pid = (await source.call("pid", {}, make_ctx().ctx)).text
        hanging = asyncio.create_task(source.call("hang", {}, make_ctx().ctx))
        await idle_clock.wait_calls(2)

        idle_clock.clock.advance(1.0)
        async with asyncio.timeout(10):
            hung = await hanging
        after = await source.call("pid", {}, make_ctx().ctx)

        assert hung == ToolResult(
            text='tool "hang" of mcp server "hangs" gave no result or progress for 1 s and was cancelled',
            is_error=True,
        )
        assert after == ToolResult(text=pid)
    finally:
        await engine.aclose()
    assert children(str(HANG_SERVER)) == []


class _TickingContext:
    """A tool context whose every progress report comes 1 s (idle-clock time) after the last."""

    def __init__(self, ctx: ToolContext, idle_clock: IdleClock) -> None:
        self._ctx = ctx
        self._clock = idle_clock.clock
        self.session_id, self.conversation_id = ctx.session_id, ctx.conversation_id
        self.tool_call_id = ctx.tool_call_id
        self.set_partial, self.push_card, self.output = ctx.set_partial, ctx.push_card, ctx.output
        self.answer_timeout_s = ctx.answer_timeout_s

    def progress(self, progress: float, total: float | None, message: str | None) -> None:
        self._ctx.progress(progress, total, message)
        self._clock.advance(1.0)


async def test_progress_resets_the_idle_timeout_so_a_long_reporting_call_finishes(
    make_ctx: Callable[..., CallContext], idle_clock: IdleClock
) -> None:
    # 10 reports 1 s apart: 10 s in all, well past the 1.5 s idle timeout, yet each gap below it.
    engine = McpEngine(McpConfig(servers=(python_server("slowpoke", HANG_SERVER, timeout_s=1.5),)))
    try:
        assert await engine.start() == []
        call = make_ctx()

        async with asyncio.timeout(10):
            result = await engine.shared_source().call(
                "slow", {"steps": 10, "interval": 0.001}, _TickingContext(call.ctx, idle_clock)
            )

        assert result == ToolResult(text="done after 10 steps")
        assert idle_clock.clock.now() == 10.0
        assert [m["progress"] for m in call.messages("tool_progress")] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    finally:
        await engine.aclose()


async def test_a_blocked_server_that_misses_its_ping_is_restarted(
    make_ctx: Callable[..., CallContext],
) -> None:
    gave_up = asyncio.Event()
    seen: list[tuple[str, str | None]] = []

    def on_status(status: ServerStatus) -> None:
        seen.append((status.state, status.error))
        if status.state == "failed":
            gave_up.set()

    # Real time on purpose: the server must really be blocked when the idle
    # timeout fires, and nothing tells the test when it is; the health ping
    # after it is bounded by the same 0.5 s.
    engine = McpEngine(
        McpConfig(servers=(python_server("stuck", HANG_SERVER, timeout_s=0.5),)), on_status=on_status
    )
    try:
        assert await engine.start() == []
        source = engine.shared_source()
        pid = int((await source.call("pid", {}, make_ctx().ctx)).text)

        blocked = await source.call("block", {"seconds": 60}, make_ctx().ctx)
        async with asyncio.timeout(10):  # the health ping runs in the background
            await gave_up.wait()
        new_pid = int((await source.call("pid", {}, make_ctx().ctx)).text)

        assert blocked.is_error
        assert new_pid != pid
        assert children(str(HANG_SERVER)) == [new_pid]
    finally:
        await engine.aclose()
    assert children(str(HANG_SERVER)) == []
    assert seen == [
        ("stopped", None),
        ("starting", None),
        ("ready", None),
        ("failed", 'mcp server "stuck" stopped answering; it restarts on the next call'),
        ("starting", None),
        ("ready", None),
        ("stopped", None),
    ]


async def test_interrupt_cancels_the_mcp_request_promptly_and_keeps_the_progress_so_far(
    make_ctx: Callable[..., CallContext],
) -> None:
    engine = McpEngine(McpConfig(servers=(python_server("slowpoke", HANG_SERVER),)))
    try:
        assert await engine.start() == []
        source = engine.shared_source()
        call = make_ctx()
        second_step = asyncio.Event()

        def on_message(item: BusItem) -> None:
            if isinstance(item.message, ToolProgressMessage) and item.message.progress == 2:
                second_step.set()

        call.bus.add_listener(on_message)
        task = asyncio.create_task(source.call("slow", {"steps": 1000, "interval": 0.05}, call.ctx))
        async with asyncio.timeout(10):
            await second_step.wait()

        task.cancel()
        async with asyncio.timeout(5):
            with pytest.raises(asyncio.CancelledError):
                await task
        seen = call.ctx.partial.snapshot()
        server_saw = await source.call("wait_cancelled", {}, make_ctx().ctx)

        assert seen is not None and isinstance(seen["progress"], list)
        assert seen["progress"][:2] == ["1/1000 step 1", "2/1000 step 2"]
        assert server_saw == ToolResult(text="cancelled")
    finally:
        await engine.aclose()
    assert children(str(HANG_SERVER)) == []


async def test_a_server_that_dies_at_start_is_one_warning_with_its_last_stderr_line() -> None:
    script = "import sys; print('loading...', file=sys.stderr); sys.exit('fatal: no API token')"
    dead = ServerConfig(name="dead", command=sys.executable, args=("-c", script))
    engine = McpEngine(
        McpConfig(servers=(dead, python_server("beta", CRASH_SERVER, disabled_tools=("crash.report",))))
    )
    try:
        warnings = await engine.start()

        assert warnings == [
            'mcp server "dead" failed to start: the server closed the connection '
            "(stderr: loading... | fatal: no API token)"
        ]
        assert [s.name for s in engine.specs()] == ["pid", "crash"]
    finally:
        await engine.aclose()


@pytest.mark.npm
async def test_a_remote_server_that_goes_away_is_reconnected_on_the_next_call(
    make_ctx: Callable[..., CallContext],
) -> None:
    gone = asyncio.Event()

    def on_status(status: ServerStatus) -> None:
        if status.state == "failed":
            gone.set()

    with run_everything("sse", "/sse") as server:
        port = int(server.url.rsplit(":", 1)[1].split("/")[0])
        engine = McpEngine(
            McpConfig(servers=(ServerConfig(name="remote", transport="sse", url=server.url),)),
            on_status=on_status,
        )
        assert await engine.start() == []
    try:
        async with asyncio.timeout(10):
            await gone.wait()
        while_down = await engine.shared_source().call("echo", {"message": "a"}, make_ctx().ctx)
        with run_everything("sse", "/sse", port=port):
            back = await engine.shared_source().call("echo", {"message": "b"}, make_ctx().ctx)
            statuses = engine.statuses()
    finally:
        await engine.aclose()

    assert while_down == ToolResult(
        text='mcp server "remote" failed to start: ConnectError: All connection attempts failed',
        is_error=True,
    )
    assert back == ToolResult(text="Echo: b")
    # 17: the server adds its elicitation, sampling and roots tools for a
    # client that declares those capabilities, as this one does.
    assert [(s.name, s.state, s.tool_count, len(s.tools)) for s in statuses] == [("remote", "ready", 17, 17)]


async def test_interrupting_a_start_leaves_no_process() -> None:
    # A "server" that phones home once it runs, then never answers the handshake.
    spawned = asyncio.Event()

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        spawned.set()
        writer.close()

    listener = await asyncio.start_server(on_connect, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    script = f"import socket, sys; socket.create_connection(('127.0.0.1', {port})); sys.stdin.read()  # never-answers"
    connection = ServerConnection(ServerConfig(name="mute", command=sys.executable, args=("-c", script)))
    try:
        task = asyncio.create_task(connection.ensure_started())
        async with asyncio.timeout(10):
            await spawned.wait()
        assert len(children("never-answers")) == 1

        task.cancel()
        async with asyncio.timeout(10):
            with pytest.raises(asyncio.CancelledError):
                await task

        assert (connection.state, connection.alive) == ("stopped", False)
        assert children("never-answers") == []
    finally:
        await connection.aclose()
        listener.close()
        await listener.wait_closed()


async def test_a_changed_tool_list_is_listed_again_and_the_new_tool_joins(
    tmp_path: Path, make_ctx: Callable[..., CallContext]
) -> None:
    gate = tmp_path / "gate"
    gate.touch()
    changes: list[tuple[str, ...]] = []
    joined = asyncio.Event()

    def on_change(connection: ServerConnection) -> None:
        changes.append(tuple(t.name for t in connection.tools))
        if "shiny" in changes[-1]:
            joined.set()

    entry = gated_entry(gate)
    connection = ServerConnection(
        ServerConfig(name="gated", command=entry["command"], args=tuple(entry["args"])), on_change=on_change
    )
    try:
        await connection.ensure_started()
        added = await connection.call("add_tool", {"name": "shiny"}, lambda *_a: None)
        async with asyncio.timeout(10):  # the notice is handled in the background
            await joined.wait()
        shiny = await connection.call("shiny", {}, lambda *_a: None)

        assert not added.is_error
        assert changes == [(), ("greet", "add_tool"), ("greet", "add_tool", "shiny")]
        assert [c.text for c in shiny.content if isinstance(c, types.TextContent)] == ["shiny here"]
    finally:
        await connection.aclose()
    assert children(str(gate)) == []
