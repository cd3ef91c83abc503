"""run_tool: one call through a connection, every failure as an error result.

The connection is a fake: run_tool only reads ``config.name`` and awaits
``call()``, so what is under test is how each answer or exception becomes
a ToolResult, not the SDK.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from desktop_agent.core.messages import ImageContent
from desktop_agent.core.ports import ToolResult
from desktop_agent.core.tool_context import BusToolContext
from desktop_agent.mcp_engine.calls import run_tool
from desktop_agent.mcp_engine.connection import ProgressFn, ServerConnection
from desktop_agent.mcp_engine.errors import CallTimedOut, ServerDied, ServerStartError
from desktop_agent.testing.bus_reader import RecordingBus


@dataclass(frozen=True)
class _Config:
    name: str


@dataclass
class FakeConnection:
    """Answers every call with ``answer`` (a result, or an exception to raise),
    after reporting ``progress``."""

    answer: types.CallToolResult | BaseException
    progress: list[tuple[float, float | None, str | None]] = field(default_factory=list)
    config: _Config = field(default_factory=lambda: _Config("srv"))
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    async def call(
        self, name: str, arguments: Mapping[str, Any], on_progress: ProgressFn, ctx: object = None
    ) -> types.CallToolResult:
        self.calls.append((name, dict(arguments)))
        for report in self.progress:
            on_progress(*report)
        if isinstance(self.answer, BaseException):
            raise self.answer
        return self.answer


async def call(connection: FakeConnection, bus: RecordingBus | None = None) -> ToolResult:
    ctx = BusToolContext(bus or RecordingBus("s1"), "call_1", "c1")
    async with asyncio.timeout(5):
        return await run_tool(cast(ServerConnection, connection), "add", {"a": 1}, ctx)


def text_result(*texts: str, is_error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=t) for t in texts], is_error=is_error)


async def test_a_result_becomes_the_text_the_model_reads() -> None:
    connection = FakeConnection(text_result("3", "done"))

    assert await call(connection) == ToolResult("3\ndone")
    assert connection.calls == [("add", {"a": 1})]


async def test_an_image_stays_for_the_card_and_the_model_reads_a_placeholder() -> None:
    image = types.ImageContent(type="image", data="iVBORw==", mime_type="image/png")
    connection = FakeConnection(types.CallToolResult(content=[image]))

    assert await call(connection) == ToolResult(
        "[image: image/png, 4 bytes]", images=(ImageContent("image/png", b"\x89PNG"),)
    )


async def test_an_error_result_keeps_the_servers_message() -> None:
    connection = FakeConnection(text_result("division by zero", is_error=True))

    assert await call(connection) == ToolResult("division by zero", is_error=True)


async def test_progress_reports_reach_the_tool_context() -> None:
    bus = RecordingBus("s1")
    connection = FakeConnection(text_result("ok"), progress=[(1, 2, "half"), (2, 2, None)])

    assert await call(connection, bus) == ToolResult("ok")
    assert [(m["type"], m["progress"], m["total"], m["message"]) for m in bus.drain()] == [
        ("tool_progress", 1, 2, "half"),
        ("tool_progress", 2, 2, None),
    ]


@pytest.mark.parametrize(
    "error",
    [
        ServerStartError('mcp server "srv" could not start: command not found: nope'),
        ServerDied('mcp server "srv" exited while "add" was running'),
        CallTimedOut('tool "add" of mcp server "srv" sent nothing for 30 s'),
    ],
    ids=["start", "died", "timeout"],
)
async def test_an_engine_error_is_an_error_result_with_its_own_line(error: Exception) -> None:
    assert await call(FakeConnection(error)) == ToolResult(str(error), is_error=True)


async def test_a_protocol_error_answer_is_an_error_result_with_the_servers_message() -> None:
    connection = FakeConnection(MCPError(-32602, "Unknown tool: add"))

    assert await call(connection) == ToolResult("Unknown tool: add", is_error=True)


async def test_a_closed_connection_without_a_message_is_described() -> None:
    connection = FakeConnection(MCPError(types.CONNECTION_CLOSED, ""))

    assert await call(connection) == ToolResult("the server closed the connection", is_error=True)


async def test_an_unexpected_failure_names_the_tool_and_server_and_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    connection = FakeConnection(ValueError("output schema mismatch\nsecond line"))

    with caplog.at_level(logging.WARNING, logger="desktop_agent.mcp_engine.calls"):
        result = await call(connection)

    assert result == ToolResult(
        'tool "add" of mcp server "srv" failed: ValueError: output schema mismatch', is_error=True
    )
    assert [(r.levelname, r.getMessage(), r.exc_info is not None) for r in caplog.records] == [
        ("WARNING", 'mcp server "srv": call to "add" failed', True),
    ]


async def test_cancellation_propagates_instead_of_becoming_a_result() -> None:
    with pytest.raises(asyncio.CancelledError):
        await call(FakeConnection(asyncio.CancelledError()))
