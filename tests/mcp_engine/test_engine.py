"""The engine as the app sees it: default server, duplicate names, failing
and disabled servers, statuses, shutdown."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

import pytest

from desktop_agent.core.ports import ToolResult
from desktop_agent.mcp_engine import McpConfig, McpEngine, ServerConfig, ServerStatus, default_config

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
        assert engine.statuses() == [ServerStatus("time", "ready", 2)]
    finally:
        await engine.aclose()
    assert engine.statuses() == [ServerStatus("time", "stopped", 2)]


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
            ServerStatus("alpha", "ready", 6),
            ServerStatus("beta", "ready", 3),
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
