"""The engine as the app sees it: default server, duplicate names, failing
and disabled servers, statuses, shutdown; starting in the background,
retries before a turn, tools that join later."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest

from desktop_agent.core.ports import ToolResult
from desktop_agent.mcp_engine import (
    McpConfig,
    McpEngine,
    Readiness,
    ServerConfig,
    ServerStatus,
    default_config,
    parse_mcp_config,
)
from desktop_agent.testing.mcp_servers import SILENT_CODE, gated_entry, silent_entry

from .conftest import CRASH_SERVER, HANG_SERVER, CallContext, children, python_server

pytestmark = pytest.mark.integration


async def test_the_default_config_offers_the_offline_time_server(
    make_ctx: Callable[..., CallContext],
) -> None:
    engine = McpEngine(default_config())
    try:
        assert await engine.start() == []
        source = engine.shared_source()

        tokyo = await source.call("get_current_time", {"timezone": "Asia/Tokyo"}, make_ctx().ctx)
        bad = await source.call("get_current_time", {"timezone": "Nowhere/Atlantis"}, make_ctx().ctx)

        assert [(s.name, s.server, s.skip_approval) for s in engine.specs()] == [
            ("get_current_time", "time", False),
            ("convert_time", "time", False),
        ]
        assert not tokyo.is_error
        assert json.loads(tokyo.text)["timezone"] == "Asia/Tokyo"
        assert bad.is_error and "Nowhere/Atlantis" in bad.text
        time_tools = ("get_current_time", "convert_time")
        assert engine.statuses() == [ServerStatus("time", "ready", 2, tools=time_tools)]
    finally:
        await engine.aclose()
    assert engine.statuses() == [ServerStatus("time", "stopped", 2, tools=time_tools)]


async def test_first_server_in_file_order_wins_and_failures_only_warn(
    make_ctx: Callable[..., CallContext],
) -> None:
    config = McpConfig(
        servers=(
            python_server("alpha", HANG_SERVER, isolation="per_conversation", disabled_tools=("block",)),
            python_server("beta", CRASH_SERVER),
            ServerConfig(name="broken", command="no-such-command-for-mcp-tests"),
            ServerConfig(name="off", command=sys.executable, enabled=False),
        )
    )
    engine = McpEngine(config)
    try:
        warnings = await engine.start()

        assert warnings == [
            'mcp server "broken" failed to start: command not found: no-such-command-for-mcp-tests',
            'mcp server "beta": tool "pid" is hidden by the tool of the same name from server "alpha" '
            "(first server in the file wins)",
            'mcp server "beta": tool "crash.report" is hidden: the name must be 1-64 letters, digits, '
            "'_' or '-'",
        ]
        assert [(s.name, s.server) for s in engine.specs()] == [
            ("pid", "alpha"),
            ("sandbox", "alpha"),
            ("hang", "alpha"),
            ("slow", "alpha"),
            ("wait_cancelled", "alpha"),
            ("crash", "beta"),
        ]
        assert [s.name for s in engine.shared_source().specs()] == ["crash"]
        assert engine.statuses() == [
            # The count and the names leave the disabled tool out.
            ServerStatus("alpha", "ready", 5, tools=("pid", "sandbox", "hang", "slow", "wait_cancelled")),
            ServerStatus("beta", "ready", 3, tools=("pid", "crash", "crash.report")),
            ServerStatus("broken", "failed", 0, warnings[0]),
            ServerStatus("off", "disabled"),
        ]
        # The winner serves the name; the hidden tool is unreachable through the other source.
        pid = await engine.conversation_source().call("pid", {}, make_ctx().ctx)
        assert children(str(HANG_SERVER)) == [int(pid.text)]
        assert await engine.shared_source().call("pid", {}, make_ctx().ctx) == ToolResult(
            text='unknown MCP tool "pid"', is_error=True
        )
        assert await engine.conversation_source().call("block", {"seconds": 1}, make_ctx().ctx) == ToolResult(
            text='unknown MCP tool "block"', is_error=True
        )
    finally:
        await engine.aclose()
    assert children(str(HANG_SERVER)) == children(str(CRASH_SERVER)) == []


async def test_shutdown_is_idempotent_and_later_calls_fail_cleanly(
    make_ctx: Callable[..., CallContext],
) -> None:
    engine = McpEngine(
        McpConfig(servers=(python_server("beta", CRASH_SERVER, disabled_tools=("crash.report",)),))
    )
    assert await engine.start() == []
    await engine.aclose()
    await engine.aclose()

    result = await engine.shared_source().call("crash", {}, make_ctx().ctx)

    assert result == ToolResult(text='mcp server "beta" is shut down', is_error=True)
    assert children(str(CRASH_SERVER)) == []


async def test_an_engine_that_never_started_closes_without_error() -> None:
    engine = McpEngine(McpConfig(servers=(python_server("beta", CRASH_SERVER),)))

    await engine.aclose()

    assert engine.specs() == []
    assert engine.statuses() == [ServerStatus("beta", "stopped")]


# ------------------------------------------------- starting in the background


class StatusLog:
    """Every status the engine publishes; waits (bounded) for one."""

    def __init__(self) -> None:
        self.seen: list[ServerStatus] = []
        self._changed = asyncio.Event()

    def __call__(self, status: ServerStatus) -> None:
        self.seen.append(status)
        self._changed.set()

    async def wait_for(self, name: str, state: str, after: int = 0) -> ServerStatus:
        """The first status of ``name`` in ``state`` from index ``after`` on."""
        async with asyncio.timeout(20):
            while True:
                for status in self.seen[after:]:
                    if (status.name, status.state) == (name, state):
                        return status
                self._changed.clear()
                await self._changed.wait()

    def states(self, name: str) -> list[str]:
        return [s.state for s in self.seen if s.name == name]


def _entry_config(isolation: str = "shared", **entries: dict[str, object]) -> McpConfig:
    return parse_mcp_config({"mcpServers": {name: {**e, "isolation": isolation} for name, e in entries.items()}})


async def test_a_server_that_never_answers_holds_back_nothing(make_ctx: Callable[..., CallContext]) -> None:
    log = StatusLog()
    config = McpConfig(servers=(*_entry_config(silent=silent_entry()).servers, python_server("beta", CRASH_SERVER)))
    engine = McpEngine(config, on_status=log)
    try:
        engine.start_background()
        await log.wait_for("beta", "ready")

        assert [s.name for s in engine.specs()] == ["pid", "crash"]
        assert not (await engine.shared_source().call("pid", {}, make_ctx().ctx)).is_error
        assert engine.before_turn() == Readiness(starting=("silent",))
        assert children(SILENT_CODE) != []
    finally:
        await engine.aclose()
    assert children(SILENT_CODE) == []
    assert log.states("silent") == ["stopped", "starting", "stopped"]


@pytest.mark.parametrize("isolation", ["shared", "per_conversation"])
async def test_a_failed_server_is_retried_before_the_next_turn_and_its_tools_join(
    isolation: str, tmp_path: Path, make_ctx: Callable[..., CallContext]
) -> None:
    gate = tmp_path / "gate"
    log = StatusLog()
    engine = McpEngine(_entry_config(isolation, gated=gated_entry(gate)), on_status=log)
    try:
        engine.start_background()
        failed = await log.wait_for("gated", "failed")
        assert failed.error is not None and failed.error.startswith('mcp server "gated" failed to start')
        assert engine.specs() == []

        # Still closed: the retry fails again; nothing waits for it.
        mark = len(log.seen)
        assert engine.before_turn() == Readiness(retrying=("gated",))
        await log.wait_for("gated", "failed", after=mark)

        gate.touch()
        mark = len(log.seen)
        assert engine.before_turn() == Readiness(retrying=("gated",))
        ready = await log.wait_for("gated", "ready", after=mark)
        greeting = await engine.conversation_source().call("greet", {"name": "x"}, make_ctx().ctx) \
            if isolation == "per_conversation" \
            else await engine.shared_source().call("greet", {"name": "x"}, make_ctx().ctx)

        assert ready.tools == ("greet", "add_tool")
        assert [s.name for s in engine.specs()] == ["greet", "add_tool"]
        assert greeting.text == "hello x"
        assert engine.before_turn() == Readiness()
    finally:
        await engine.aclose()
    assert children(str(gate)) == []


async def test_retry_starts_only_a_failed_server_once(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    log = StatusLog()
    engine = McpEngine(_entry_config(gated=gated_entry(gate)), on_status=log)
    try:
        assert not engine.retry("gated")  # not started yet
        engine.start_background()
        await log.wait_for("gated", "failed")
        gate.touch()

        assert engine.retry("gated")
        assert not engine.retry("gated")  # one start at a time
        assert not engine.retry("no-such-server")
        await log.wait_for("gated", "ready")
        assert not engine.retry("gated")  # nothing to retry
    finally:
        await engine.aclose()
    assert not engine.retry("gated")
    assert log.states("gated") == ["stopped", "starting", "failed", "starting", "ready", "stopped"]


async def test_tools_are_listed_again_after_a_restart(tmp_path: Path, make_ctx: Callable[..., CallContext]) -> None:
    gate = tmp_path / "gate"
    gate.touch()
    log = StatusLog()
    engine = McpEngine(_entry_config(gated=gated_entry(gate)), on_status=log)
    try:
        assert await engine.start() == []
        await engine.shared_source().call("add_tool", {"name": "shiny"}, make_ctx().ctx)
        joined = await _wait_tools(log, ("greet", "add_tool", "shiny"))
        [pid] = children(str(gate))

        mark = len(log.seen)
        psutil.Process(pid).kill()  # a crash; the tool it added at run time dies with it
        await log.wait_for("gated", "failed", after=mark)
        engine.before_turn()
        back = await log.wait_for("gated", "ready", after=mark)

        assert joined.tool_count == 3
        assert back.tools == ("greet", "add_tool")
        assert [s.name for s in engine.specs()] == ["greet", "add_tool"]
    finally:
        await engine.aclose()


async def test_tool_warnings_found_after_start_are_said_once(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    log = StatusLog()
    warned: list[str] = []
    config = McpConfig(
        servers=(*_entry_config(gated=gated_entry(gate)).servers, python_server("beta", CRASH_SERVER))
    )
    engine = McpEngine(config, on_status=log, on_warning=warned.append)
    try:
        engine.start_background()
        await log.wait_for("beta", "ready")
        await log.wait_for("gated", "failed")
        first = list(warned)
        gate.touch()
        engine.before_turn()
        await log.wait_for("gated", "ready")
        engine.before_turn()  # nothing new to say

        assert first == [
            'mcp server "beta": tool "crash.report" is hidden: the name must be 1-64 letters, digits, '
            "'_' or '-'"
        ]
        assert warned == first
    finally:
        await engine.aclose()


async def _wait_tools(log: StatusLog, tools: tuple[str, ...]) -> ServerStatus:
    async with asyncio.timeout(20):
        while True:
            for status in log.seen:
                if status.tools == tools:
                    return status
            log._changed.clear()
            await log._changed.wait()
