"""The running MCP engine as the pickers' :class:`MentionSource`.

Settings → Tools replaces the engine on a reload, so the engine is looked up
on every call (``Services.mcp``), never kept: the lists always show the
servers that run now. Built by the composition root; the window itself never
imports the engine.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from desktop_agent.mcp_engine import McpEngine
from desktop_agent.mcp_engine.catalog import PromptInfo, ResourceInfo, TemplateInfo


class EngineMentions:
    def __init__(self, engine: Callable[[], McpEngine | None]) -> None:
        self._engine = engine

    def prompts(self) -> Sequence[PromptInfo]:
        engine = self._engine()
        return engine.prompts() if engine is not None else ()

    def resources(self) -> Sequence[ResourceInfo]:
        engine = self._engine()
        return engine.resources() if engine is not None else ()

    def templates(self) -> Sequence[TemplateInfo]:
        engine = self._engine()
        return engine.templates() if engine is not None else ()

    async def complete(
        self, server: str, ref: PromptInfo | TemplateInfo, argument: str, value: str,
        context: Mapping[str, str],
    ) -> list[str]:
        engine = self._engine()
        if engine is None or not isinstance(ref, PromptInfo | TemplateInfo):
            return []  # not an entry the engine listed: nothing to ask
        return await engine.complete(server, ref, argument, value, context)
