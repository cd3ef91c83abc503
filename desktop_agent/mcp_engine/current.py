"""Tool sources that follow whichever :class:`McpEngine` is current.

Why: the Settings dialog's Tools page changes the servers while the app
runs, and :meth:`Services.reload_mcp` replaces the engine
instead of patching a running one. The router and the sub-agent tool hold
these instead of one engine's sources, so they see the new engine's tools
from the next request on, with nothing re-registered.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any, Literal

from desktop_agent.core.ports import ToolContext, ToolResult, ToolSource, ToolSpec
from desktop_agent.mcp_engine.engine import McpEngine

CurrentEngine = Callable[[], McpEngine | None]


class CurrentSource:
    """One isolation level of the current engine (none: no tools)."""

    def __init__(self, current: CurrentEngine, isolation: Literal["shared", "per_conversation"]) -> None:
        self._current = current
        self._isolation = isolation

    def _source(self) -> ToolSource | None:
        engine = self._current()
        if engine is None:
            return None
        return engine.shared_source() if self._isolation == "shared" else engine.conversation_source()

    def specs(self) -> Sequence[ToolSpec]:
        source = self._source()
        return source.specs() if source is not None else []

    async def call(self, name: str, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        source = self._source()
        if source is None:
            return ToolResult(text=f'unknown MCP tool "{name}"', is_error=True)
        return await source.call(name, arguments, ctx)


def current_isolated(current: CurrentEngine) -> Callable[[Sequence[str]], Any]:
    """The sub-agent's ``isolate``: the current engine's ``isolated_source``."""

    @asynccontextmanager
    async def isolated(names: Sequence[str]) -> AsyncIterator[ToolSource | None]:
        engine = current()
        if engine is None:
            yield None
            return
        async with engine.isolated_source(names) as source:
            yield source

    return isolated
