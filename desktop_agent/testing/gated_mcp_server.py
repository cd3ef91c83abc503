"""A stdio MCP server that fails to start until its gate file exists
(``python gated_mcp_server.py GATE_FILE``); see :mod:`desktop_agent.testing.mcp_servers`.

Open, it serves ``greet`` and ``add_tool(name)``, which adds a tool and
sends ``notifications/tools/list_changed``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("gated-server")


@server.tool()
def greet(name: str) -> str:
    """Say hello."""
    return f"hello {name}"


@server.tool()
async def add_tool(name: str, ctx: Context) -> str:
    """Add a tool called ``name`` and tell the client its tool list changed."""

    def added() -> str:
        return f"{name} here"

    server.add_tool(added, name=name, description=f"added at run time: {name}")
    await ctx.session.send_tool_list_changed()
    return f"added {name}"


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: gated_mcp_server.py GATE_FILE")
    if not Path(sys.argv[1]).exists():
        sys.exit(f"gate {sys.argv[1]} is closed")
    server.run("stdio")
