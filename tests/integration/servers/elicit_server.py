"""A tiny MCP server (stdio) that asks the user forms of its own: ``ask``
(every required field has a default, so ``--elicit defaults`` accepts it)
and ``ask_nested`` (a nested object, which no form can show). Each tool
returns what the client answered: ``"ACTION CONTENT"``."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("elicit-server")

DEFAULTS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "count": {"type": "integer", "title": "How many", "minimum": 1, "maximum": 9, "default": 3},
        "fast": {"type": "boolean", "title": "Hurry", "default": True},
        "note": {"type": "string", "title": "Note"},
    },
    "required": ["count", "fast"],
}
NESTED: dict[str, Any] = {
    "type": "object",
    "properties": {"address": {"type": "object", "properties": {"street": {"type": "string"}}}},
}


async def _ask(ctx: Context, schema: dict[str, Any]) -> str:
    result = await ctx.request_context.session.elicit_form(
        "Pick your options", schema, related_request_id=ctx.request_id
    )
    return f"{result.action} {result.content}"


@server.tool()
async def ask(ctx: Context) -> str:
    """Ask a form whose required fields all have defaults."""
    return await _ask(ctx, DEFAULTS)


@server.tool()
async def ask_nested(ctx: Context) -> str:
    """Ask a form no client can show (a nested object)."""
    return await _ask(ctx, NESTED)


if __name__ == "__main__":
    server.run("stdio")
