"""A tiny MCP server (stdio) whose ``crash`` tool kills the process mid-call.

Used by the engine tests to check that a dead server fails the pending call
with a clear error and is restarted on the next call.
"""

from __future__ import annotations

import os

import anyio
from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("crash-server")


@server.tool()
def pid() -> str:
    """Return this server's process id."""
    return str(os.getpid())


@server.tool()
async def crash(ctx: Context) -> str:
    """Report one progress step, then die without answering."""
    await ctx.report_progress(1, 2, "about to crash")
    await anyio.sleep(0.05)  # let the notification leave the pipe first
    os._exit(3)


@server.tool(name="crash.report")
def crash_report() -> str:
    """A dotted name: valid MCP, but the OpenAI API would reject it."""
    return "nothing to report"


if __name__ == "__main__":
    server.run("stdio")
