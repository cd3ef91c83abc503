"""A server's MCP log messages are kept per server (bounded, with level and
logger) after the client asked for ``info`` and above: server-everything's
simulated logging, over stdio and streamable HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import mcp_types as types
import pytest

from desktop_agent.mcp_engine import McpConfig, McpEngine, ServerConfig
from desktop_agent.mcp_engine.server_log import MAX_LINES, LogLine, ServerLogs
from desktop_agent.testing.everything import everything_stdio
from tests.mcp_engine.conftest import CallContext

LEVELS_SENT = {"info", "notice", "warning", "error", "critical", "alert", "emergency"}


@pytest.mark.integration
@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_log_messages_of_info_and_above_are_kept_for_the_server(
    transport: str, request: pytest.FixtureRequest, make_ctx: Callable[..., CallContext]
) -> None:
    config = (
        everything_stdio("everything") if transport == "stdio"
        else ServerConfig(name="everything", transport="http", url=request.getfixturevalue("everything_http").url)
    )
    engine = McpEngine(McpConfig(servers=(config,)))
    heard = asyncio.Event()

    def on_log(server: str, params: types.LoggingMessageNotificationParams) -> None:
        if "level" in str(params.data):  # "Info-level message", not its "Roots updated" line
            heard.set()

    engine.server_logs.forward = on_log
    try:
        assert await engine.start() == []
        await engine.shared_source().call("toggle-simulated-logging", {}, make_ctx().ctx)
        async with asyncio.timeout(30):  # one message at once, then one every 5 s; debug ones are not sent
            await heard.wait()
        await engine.shared_source().call("toggle-simulated-logging", {}, make_ctx().ctx)  # stop it
    finally:
        await engine.aclose()

    lines = engine.server_logs.lines("everything")
    assert lines and {line.level for line in lines} <= LEVELS_SENT
    simulated = [line for line in lines if "level" in line.text]
    assert simulated and simulated[0].logger is None and simulated[0].level in LEVELS_SENT
    assert engine.server_logs.lines("other") == ()


def test_the_ring_keeps_the_last_lines_with_level_and_logger() -> None:
    logs = ServerLogs(clock=lambda: 7.0)
    for n in range(MAX_LINES + 3):
        logs.add("fs", types.LoggingMessageNotificationParams(level="warning", logger="disk", data={"n": n}))

    lines = logs.lines("fs")
    assert len(lines) == MAX_LINES
    assert lines[0] == LogLine("warning", "disk", '{"n": 3}', 7.0)
    assert lines[-1].text == f'{{"n": {MAX_LINES + 2}}}'


def test_a_new_engine_takes_the_log_hook_over_but_not_someone_elses() -> None:
    first = McpEngine(McpConfig(servers=()))
    second = McpEngine(McpConfig(servers=()), hooks=first.hooks)
    assert second.hooks.on_log == second.server_logs.add

    theirs: list[str] = []
    second.hooks.on_log = lambda server, params: theirs.append(server)
    third = McpEngine(McpConfig(servers=()), hooks=second.hooks)
    assert third.hooks.on_log is not None and not ServerLogs.owns(third.hooks.on_log)
