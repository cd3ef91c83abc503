"""MCP engine cost: what the engine adds to a bare MCP session's call, and
what a per-conversation server costs to start and to evict.

1. Call overhead. One running server, one live session: in one run we call
   the same tool through the engine (``McpEngine.shared_source().call`` →
   routing, idle-timeout wrapper, progress hook, result conversion) and
   through the bare ``ClientSession.call_tool`` of the very session the
   engine owns, interleaved pair by pair (alternating which goes first) so
   the machine's noise hits both alike. Reported: median latency of each
   and engine/bare. Target ≤ 1.05 (the session declares elicitation,
   sampling and roots, as the app's always does).
2. Sandbox cost. With ``max_sandboxes=1``, each new conversation lazily
   starts its own instance of a ``per_conversation`` server (first call =
   start + call) and evicts the previous conversation's instance (its
   process reaped, its folder removed). Reported: median start+first call,
   and median eviction.

Servers: server-everything (node; ``scripts/install-test-deps.sh``) when
installed, and mcp-server-time (Python) always.

Run: ``.venv/bin/python benchmarks/bench_mcp.py [--calls 1000] [--sandboxes 5]``
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from desktop_agent.core.messages import Card
from desktop_agent.core.ports import ToolResult
from desktop_agent.mcp_engine import McpConfig, McpEngine, ServerConfig

REPO = Path(__file__).resolve().parents[1]
EVERYTHING_JS = REPO / ".venv/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"


class NullContext:
    """A ToolContext that drops everything (the bus is not what we measure)."""

    def __init__(self, conversation_id: str = "bench") -> None:
        self._conversation_id = conversation_id

    @property
    def session_id(self) -> str:
        return "bench"

    @property
    def conversation_id(self) -> str:
        return self._conversation_id

    @property
    def tool_call_id(self) -> str:
        return "call"

    def set_partial(self, key: str, value: Any) -> None:
        pass

    def progress(self, progress: float, total: float | None, message: str | None) -> None:
        pass

    def push_card(self, card: Card) -> None:
        pass


def servers() -> list[tuple[ServerConfig, str, dict[str, Any]]]:
    """(server, tool, arguments) for each server we can run here."""
    found = []
    if EVERYTHING_JS.is_file():
        found.append(
            (
                ServerConfig(name="everything", command="node", args=(str(EVERYTHING_JS), "stdio")),
                "echo",
                {"message": "hello"},
            )
        )
    found.append(
        (
            ServerConfig(name="time", command=sys.executable, args=("-m", "mcp_server_time")),
            "get_current_time",
            {"timezone": "UTC"},
        )
    )
    return found


async def _timed(fn: Callable[[], Awaitable[object]]) -> float:
    start = time.perf_counter()
    await fn()
    return time.perf_counter() - start


async def call_overhead(
    server: ServerConfig, tool: str, args: dict[str, Any], calls: int
) -> tuple[float, float]:
    engine = McpEngine(McpConfig(servers=(server,)))
    try:
        warnings = await engine.start()
        if warnings:
            raise SystemExit(f"bench_mcp: {warnings[0]}")
        connection = engine.connection(server.name)
        assert connection is not None
        session = await connection.ensure_started()
        source, ctx = engine.shared_source(), NullContext()

        async def through_engine() -> None:
            result = await source.call(tool, args, ctx)
            assert isinstance(result, ToolResult) and not result.is_error, result

        async def bare() -> None:
            result = await session.call_tool(tool, args)
            assert not result.is_error, result

        for _ in range(20):  # warm up both paths
            await through_engine()
            await bare()
        engine_times: list[float] = []
        bare_times: list[float] = []
        for i in range(calls):
            if i % 2:
                engine_times.append(await _timed(through_engine))
                bare_times.append(await _timed(bare))
            else:
                bare_times.append(await _timed(bare))
                engine_times.append(await _timed(through_engine))
        return statistics.median(engine_times), statistics.median(bare_times)
    finally:
        await engine.aclose()


async def sandbox_cost(
    server: ServerConfig, tool: str, args: dict[str, Any], rounds: int
) -> tuple[float, float]:
    per_conv = dataclasses.replace(server, isolation="per_conversation")
    engine = McpEngine(McpConfig(servers=(per_conv,), max_sandboxes=1))
    try:
        warnings = await engine.start()
        if warnings:
            raise SystemExit(f"bench_mcp: {warnings[0]}")
        source = engine.conversation_source()
        starts: list[float] = []
        evictions: list[float] = []
        for i in range(rounds + 1):
            ctx = NullContext(f"conversation-{i}")
            start = time.perf_counter()
            await source.call(tool, args, ctx)
            starts.append(time.perf_counter() - start)
            # Evict now (what the next conversation's first call would start in the
            # background) to time it alone: process reaped, folder removed.
            start = time.perf_counter()
            await engine.close_conversation(ctx.conversation_id)
            evictions.append(time.perf_counter() - start)
        return statistics.median(starts[1:]), statistics.median(evictions[1:])
    finally:
        await engine.aclose()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--sandboxes", type=int, default=5)
    options = parser.parse_args()

    print(
        f"{'server':<12} {'engine ms':>10} {'bare ms':>10} {'ratio':>7} {'start+call ms':>14} {'evict ms':>9}"
    )
    for server, tool, args in servers():
        engine_s, bare_s = await call_overhead(server, tool, args, options.calls)
        start_s, evict_s = await sandbox_cost(server, tool, args, options.sandboxes)
        print(
            f"{server.name:<12} {engine_s * 1e3:>10.3f} {bare_s * 1e3:>10.3f} {engine_s / bare_s:>7.3f} "
            f"{start_s * 1e3:>14.1f} {evict_s * 1e3:>9.1f}"
        )
    print(
        f"(medians; {options.calls} interleaved call pairs, {options.sandboxes} sandboxes; target ratio ≤ 1.05)"
    )


if __name__ == "__main__":
    asyncio.run(main())
