"""One tool call through a :class:`ServerConnection`, as the core wants it.

Every failure becomes ``ToolResult(is_error=True)`` with a one-line message,
because the core's contract (``ToolSource.call``) is that failures come back
as results the model can read. Only cancellation propagates: the user's
interrupt must unwind the turn.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from mcp.shared.exceptions import MCPError

from desktop_agent.core.ports import ToolContext, ToolResult
from desktop_agent.mcp_engine.connection import ServerConnection
from desktop_agent.mcp_engine.errors import McpEngineError, describe
from desktop_agent.mcp_engine.results import to_tool_result

log = logging.getLogger(__name__)


async def run_tool(
    connection: ServerConnection, name: str, arguments: Mapping[str, Any], ctx: ToolContext
) -> ToolResult:
    server = connection.config.name
    try:
        result = await connection.call(name, arguments, ctx.progress, ctx)
    except McpEngineError as exc:
        return ToolResult(text=str(exc), is_error=True)
    except MCPError as exc:
        # A protocol-level error answer (e.g. an unknown tool on some servers):
        # the server's own message, like an is_error result.
        return ToolResult(text=exc.error.message or describe(exc), is_error=True)
    except Exception as exc:
        # An answer the SDK could not accept (schema mismatch, input-required…).
        log.warning('mcp server "%s": call to "%s" failed', server, name, exc_info=True)
        return ToolResult(
            text=f'tool "{name}" of mcp server "{server}" failed: {describe(exc)}', is_error=True
        )
    return to_tool_result(result, server=server, tool=name)
