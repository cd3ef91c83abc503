"""A stdio MCP server for the catalogue tests: what server-everything does
not have — a resource too big to send whole, an image resource, a prompt
with an image, and a tool that adds a prompt and a resource and says the
lists changed."""

from __future__ import annotations

import base64

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.prompts.base import Message, UserMessage
from mcp.types import ImageContent, TextContent

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
HUGE_CHARS = 250_000

server = MCPServer("catalog-server")


@server.resource("test://huge.txt", name="huge", mime_type="text/plain")
def huge() -> str:
    return "a" * HUGE_CHARS


@server.resource("test://dot.png", name="dot", mime_type="image/png")
def dot() -> bytes:
    return PNG


@server.resource("test://data.bin", name="data", mime_type="application/octet-stream")
def data() -> bytes:
    return b"\x00\x01\x02"


@server.prompt(description="A picture and a question")
def picture() -> list[Message]:
    return [
        UserMessage(TextContent(type="text", text="What is in this picture?")),
        UserMessage(ImageContent(type="image", data=base64.b64encode(PNG).decode(), mime_type="image/png")),
    ]


@server.tool()
async def add_more(ctx: Context) -> str:
    """Add the prompt "later" and the resource test://later.txt, and say so."""

    @server.prompt(name="later", description="Added while running")
    def later() -> str:
        return "later"

    @server.resource("test://later.txt", name="later")
    def later_text() -> str:
        return "later"

    await ctx.session.send_prompt_list_changed()
    await ctx.session.send_resource_list_changed()
    return "added"


if __name__ == "__main__":
    server.run("stdio")
