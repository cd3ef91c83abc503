"""Why a call or a start failed, as exceptions inside the engine.

They never reach the core: :mod:`desktop_agent.mcp_engine.calls` turns each
into a ``ToolResult(is_error=True)`` whose text is the one-line message.
"""

from __future__ import annotations

import mcp_types as types
from mcp.shared.exceptions import MCPError


class McpEngineError(Exception):
    """Base of the engine's own failures; ``str()`` is the user-facing line."""


class ServerStartError(McpEngineError):
    """The server could not be started or did not finish the handshake."""


class ServerDied(McpEngineError):
    """The server went away while a call was pending."""


class CallTimedOut(McpEngineError):
    """No result and no progress for the server's idle timeout."""


def leaf(exc: BaseException) -> BaseException:
    """The first real error inside (possibly nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def describe(exc: BaseException) -> str:
    """One line for the user, without a traceback."""
    exc = leaf(exc)
    if isinstance(exc, MCPError):
        if exc.error.code == types.CONNECTION_CLOSED:
            return "the server closed the connection"
        return exc.error.message
    if isinstance(exc, FileNotFoundError) and exc.filename:
        return f"command not found: {exc.filename}"
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
