"""The services answer every engine's servers (sampling, roots), also after
Services.reload_mcp replaced the engine; a change of the shared folders in
the settings reaches a running server (the real server-everything, stdio)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path

import pytest

from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.tool_context import BusToolContext
from desktop_agent.services import build_services
from desktop_agent.testing import everything

pytestmark = [pytest.mark.integration, pytest.mark.npm]


async def test_shared_folders_reach_the_servers_and_a_change_is_announced(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"everything": {"command": "node", "args": [
        str(everything.everything_js()), "stdio"]}}}))
    services = await build_services(mcp_config=path, tts="none", start_mcp=True)
    try:
        notes, code = tmp_path / "notes", tmp_path / "code"
        services.apply_settings(replace(services.settings, shared_folders={str(notes): ()}))
        assert services.mcp is not None
        source = services.mcp.shared_source()
        ctx = BusToolContext(SessionMessageBus("s"), "c1", "conv")
        first = await source.call("get-roots-list", {}, ctx)
        assert "(1 total)" in first.text and notes.as_uri() in first.text

        services.apply_settings(replace(services.settings, shared_folders={
            str(notes): (), str(code): ("everything",), str(tmp_path / "other"): ("files",),
        }))
        async with asyncio.timeout(20):  # the server asks again once it hears of the change
            while "(2 total)" not in (text := (await source.call("get-roots-list", {}, ctx)).text):
                await asyncio.sleep(0.05)
        assert code.as_uri() in text and (tmp_path / "other").as_uri() not in text

        await services.reload_mcp()
        assert services.mcp.hooks.sample is not None and services.mcp.hooks.roots is not None
    finally:
        await services.aclose()
