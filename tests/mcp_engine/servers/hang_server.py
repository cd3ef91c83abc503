"""A tiny MCP server (stdio) with tools that hang, block or run long.

- ``pid`` / ``sandbox``: which process and which private folder answered.
- ``hang``: never answers and never reports progress (idle timeout).
- ``block``: blocks the whole server in ``time.sleep`` (it cannot even answer
  a ping, so the engine must restart it).
- ``slow``: reports progress every ``interval`` seconds for ``steps`` steps,
  then answers; a cancellation is remembered for ``wait_cancelled``.
- ``wait_cancelled``: answers "cancelled" once a ``slow`` call was cancelled
  by the client (``notifications/cancelled``), or "not cancelled" after 10 s.
"""

from __future__ import annotations

import os
import time

import anyio
from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("hang-server")
cancelled = anyio.Event()


@server.tool()
def pid() -> str:
    """Return this server's process id."""
    return str(os.getpid())


@server.tool()
def sandbox() -> str:
    """Return the private folder the engine gave this instance (per-conversation servers)."""
    return os.environ.get("MCP_SANDBOX_DIR", "")


@server.tool()
async def hang() -> str:
    """Never answer."""
    await anyio.sleep_forever()
    return "unreachable"


@server.tool()
async def block(seconds: float) -> str:
    """Block the server's event loop (a sync tool would run in a worker thread)."""
    time.sleep(seconds)  # the hang under test (a server process blocking its own loop)
    return "unblocked"


@server.tool()
async def slow(steps: int, interval: float, ctx: Context) -> str:
    """Report progress every interval seconds, then answer."""
    try:
        for step in range(1, steps + 1):
            await anyio.sleep(interval)
            await ctx.report_progress(step, steps, f"step {step}")
    except anyio.get_cancelled_exc_class():
        cancelled.set()
        raise
    return f"done after {steps} steps"


@server.tool()
async def wait_cancelled() -> str:
    """Whether a slow call was cancelled by the client."""
    with anyio.move_on_after(10):
        await cancelled.wait()
        return "cancelled"
    return "not cancelled"


if __name__ == "__main__":
    server.run("stdio")
