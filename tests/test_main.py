"""``desktop_agent.__main__``: the bundle's own time server entry works as a
real MCP server (a frozen bundle has no ``python -m``)."""

from __future__ import annotations

import sys

from desktop_agent.mcp_engine import McpConfig, McpEngine, ServerConfig


async def test_the_entry_point_serves_the_default_time_server() -> None:
    config = McpConfig(servers=(ServerConfig(
        name="time", transport="stdio", command=sys.executable,
        args=("-m", "desktop_agent", "--mcp-server-time")),))
    engine = McpEngine(config)
    try:
        assert await engine.start() == []
        assert {s.name for s in engine.specs()} == {"get_current_time", "convert_time"}
    finally:
        await engine.aclose()
