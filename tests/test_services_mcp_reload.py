"""Services.reload_mcp: the servers file's changes run without a restart."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop_agent.mcp_engine import McpConfigError
from desktop_agent.services import build_services
from desktop_agent.testing.mcp_servers import gated_entry
from desktop_agent.testing.services_listener import RecordingListener


async def _until(condition: Callable[[], bool], timeout_s: float = 20) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.02)


async def test_a_server_added_then_removed_comes_and_goes_without_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {}}')
    gate = tmp_path / "gate"
    gate.touch()
    services = await build_services(mcp_config=path, tts="none", start_mcp=False)
    listener = services.listener = RecordingListener()
    try:
        services.start_mcp_in_background()
        first = services.mcp
        path.write_text(json.dumps({"mcpServers": {"gated": gated_entry(gate)}}))
        await services.reload_mcp()
        assert services.mcp is not first
        await _until(lambda: "greet" in [s.name for s in services.router.specs()])
        assert services.mcp is not None
        assert [(s.name, s.state, s.tool_count) for s in services.mcp.statuses()] == [("gated", "ready", 2)]  # greet, add_tool
        assert ("gated", "ready") in [(s.name, s.state) for s in listener.statuses]
        assert services.router.lookup("greet") is not None

        path.write_text('{"mcpServers": {}}')
        await services.reload_mcp()
        assert services.mcp is not None and services.mcp.statuses() == []
        assert "greet" not in [s.name for s in services.router.specs()]
    finally:
        await services.aclose()


async def test_a_broken_file_keeps_the_servers_running(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {}}')
    services = await build_services(mcp_config=path, tts="none", start_mcp=False)
    try:
        engine = services.mcp
        path.write_text("{not json")
        with pytest.raises(McpConfigError, match="not valid JSON"):
            await services.reload_mcp()
        assert services.mcp is engine
    finally:
        await services.aclose()


async def test_a_reload_keeps_the_sign_ins_and_where_their_browser_opens(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {}}')
    services = await build_services(mcp_config=path, tts="none", start_mcp=False)
    try:
        assert services.mcp is not None
        oauth = services.mcp.oauth
        oauth.open_url = opener = lambda _server, _url: None
        await services.reload_mcp()
        assert services.mcp.oauth is oauth and oauth.open_url is opener
    finally:
        await services.aclose()
