"""The engine against @modelcontextprotocol/server-everything over stdio, SSE
and streamable HTTP: listing, echo, progress, images, unknown tools.

One engine (and one server process) per transport for the whole module.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest
import pytest_asyncio

from desktop_agent.core.json_types import as_object
from desktop_agent.core.ports import ToolResult
from desktop_agent.mcp_engine import McpConfig, McpEngine, ServerConfig
from desktop_agent.mcp_engine.calls import run_tool
from desktop_agent.mcp_engine.connection import ServerConnection

from .conftest import CallContext, everything_js

pytestmark = [pytest.mark.integration, pytest.mark.npm, pytest.mark.asyncio(loop_scope="module")]


def _config(transport: str, request: pytest.FixtureRequest) -> ServerConfig:
    if transport == "stdio":
        return ServerConfig(name="everything", command="node", args=(str(everything_js()), "stdio"))
    if transport == "sse":
        return ServerConfig(
            name="everything", transport="sse", url=request.getfixturevalue("everything_sse").url
        )
    return ServerConfig(
        name="everything", transport="http", url=request.getfixturevalue("everything_http").url
    )


@pytest.fixture(scope="module", params=["stdio", "sse", "http"])
def server_config(request: pytest.FixtureRequest) -> ServerConfig:
    return _config(request.param, request)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def engine(server_config: ServerConfig) -> AsyncIterator[McpEngine]:
    engine = McpEngine(McpConfig(servers=(server_config,)))
    try:
        assert await engine.start() == []
        yield engine
    finally:
        await engine.aclose()


async def test_lists_every_tool_with_its_server_and_schema(engine: McpEngine) -> None:
    specs = {spec.name: spec for spec in engine.specs()}

    assert {"echo", "get-sum", "get-tiny-image", "trigger-long-running-operation"} <= set(specs)
    assert {(s.server, s.skip_approval) for s in specs.values()} == {("everything", False)}
    assert specs["echo"].parameters["type"] == "object"
    assert "message" in as_object(specs["echo"].parameters["properties"])
    assert [s.name for s in engine.shared_source().specs()] == [s.name for s in engine.specs()]
    assert engine.conversation_source().specs() == []


async def test_echo_returns_the_text_as_is(engine: McpEngine, make_ctx: Callable[..., CallContext]) -> None:
    call = make_ctx()

    result = await engine.shared_source().call("echo", {"message": "hello 你好"}, call.ctx)

    assert result == ToolResult(text="Echo: hello 你好")
    assert call.messages() == []


async def test_long_operation_progress_becomes_tool_progress_with_eta(
    engine: McpEngine, make_ctx: Callable[..., CallContext]
) -> None:
    call = make_ctx()
    args = {"duration": 0.3, "steps": 3}

    result = await engine.shared_source().call("trigger-long-running-operation", args, call.ctx)

    assert result == ToolResult(text="Long running operation completed. Duration: 0.3 seconds, Steps: 3.")
    base = {"type": "tool_progress", "session_id": call.bus.session_id, "tool_call_id": call.ctx.tool_call_id}
    # The fake clock ticks one second per reading: ETA = remaining / rate.
    assert call.messages() == [
        {**base, "seq": 1, "progress": 1, "total": 3, "message": None, "eta_s": None},
        {**base, "seq": 2, "progress": 2, "total": 3, "message": None, "eta_s": 1.0},
        {**base, "seq": 3, "progress": 3, "total": 3, "message": None, "eta_s": 0.0},
    ]
    assert call.ctx.partial.snapshot() == {"progress": ["1/3", "2/3", "3/3"]}


async def test_image_becomes_a_placeholder_and_keeps_its_bytes(
    engine: McpEngine, make_ctx: Callable[..., CallContext]
) -> None:
    result = await engine.shared_source().call("get-tiny-image", {}, make_ctx().ctx)

    (image,) = result.images
    assert image.mime == "image/png"
    assert image.data.startswith(b"\x89PNG\r\n\x1a\n")
    assert result == ToolResult(
        text=(
            "Here's the image you requested:\n"
            f"[image: image/png, {len(image.data)} bytes]\n"
            "The image above is the MCP logo."
        ),
        images=(image,),
    )
    assert "base64" not in result.text and len(result.text) < 200


async def test_tool_unknown_to_the_engine_is_an_error_result(
    engine: McpEngine, make_ctx: Callable[..., CallContext]
) -> None:
    result = await engine.shared_source().call("no-such-tool", {}, make_ctx().ctx)

    assert result == ToolResult(text='unknown MCP tool "no-such-tool"', is_error=True)


async def test_tool_unknown_to_the_server_returns_the_servers_own_error(
    server_config: ServerConfig, make_ctx: Callable[..., CallContext]
) -> None:
    connection = ServerConnection(server_config)
    try:
        result = await run_tool(connection, "no-such-tool", {}, make_ctx().ctx)
    finally:
        await connection.aclose()

    assert result == ToolResult(text="MCP error -32602: Tool no-such-tool not found", is_error=True)
