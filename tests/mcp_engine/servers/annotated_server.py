"""A stdio MCP server whose tools state their risk (MCP ``ToolAnnotations``),
for the issue-14 tests: one read-only, one destructive and open-world, one
that says nothing."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("annotated-server")


@server.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
def read_note(name: str) -> str:
    """Read a note."""
    return f"note {name}"


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True,
                                         open_world_hint=True))
def delete_note(name: str) -> str:
    """Delete a note."""
    return f"deleted {name}"


@server.tool()
def plain(name: str) -> str:
    """Says nothing of its risk."""
    return name


if __name__ == "__main__":
    server.run("stdio")
