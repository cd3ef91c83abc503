"""A real stdio MCP server's tool annotations reach ``ToolSpec`` as the
server states them, and through the services to the window."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from desktop_agent.core.risk import ToolAnnotations
from desktop_agent.mcp_engine import McpConfig, McpEngine
from desktop_agent.services import build_services

from .conftest import python_server

pytestmark = pytest.mark.integration
ANNOTATED_SERVER = Path(__file__).resolve().parent / "servers" / "annotated_server.py"


async def test_a_servers_annotations_reach_the_tool_specs_as_stated() -> None:
    engine = McpEngine(McpConfig(servers=(python_server("notes", ANNOTATED_SERVER),)))
    try:
        assert await engine.start() == []
        specs = {spec.name: spec for spec in engine.specs()}
    finally:
        await engine.aclose()

    assert {name: (spec.server, spec.annotations) for name, spec in specs.items()} == {
        "read_note": ("notes", ToolAnnotations(read_only=True, open_world=False)),
        "delete_note": ("notes", ToolAnnotations(read_only=False, destructive=True, idempotent=True, open_world=True)),
        "plain": ("notes", None),  # says nothing: no defaults filled in
    }
    assert specs["read_note"].annotations is not None and specs["read_note"].annotations.is_read_only
    assert specs["delete_note"].annotations is not None and specs["delete_note"].annotations.hints() == (
        "destructive", "idempotent", "open_world"
    )
    assert "annotations" not in str(specs["read_note"].to_openai())  # never sent to the model


async def test_the_services_say_each_tools_annotations_by_name(tmp_path: Path) -> None:
    servers = tmp_path / "mcp.json"
    servers.write_text(json.dumps({"mcpServers": {"notes": {"command": sys.executable, "args": [str(ANNOTATED_SERVER)]}}}))
    services = await build_services(model="demo", mcp_config=servers, tts="none")
    try:
        assert services.tool_annotations("read_note") == ToolAnnotations(read_only=True, open_world=False)
        run_command = services.tool_annotations("run_command")  # a built-in declares its own
        assert run_command is not None and (run_command.is_destructive, run_command.reaches_outside) == (True, True)
        get_skill = services.tool_annotations("get_skill")
        assert get_skill is not None and get_skill.is_read_only
        assert services.tool_annotations("no_such_tool") is None
    finally:
        await services.aclose()
