"""Tool routing (contracts §2): built-in tools, then shared MCP servers, then
per-conversation MCP servers, then unknown.

The first source that offers a name wins; later duplicates are ignored and
reported by :meth:`ToolRouter.shadowed`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from desktop_agent.core.json_types import JSONMapping, JSONObject
from desktop_agent.core.messages import FormRequestMessage
from desktop_agent.core.ports import Tool, ToolContext, ToolResult, ToolSource, ToolSpec
from desktop_agent.core.redaction import RedactingContext, Redactor
from desktop_agent.core.risk import ToolAnnotations


@dataclass(frozen=True, slots=True)
class RoutedTool:
    """Where a tool name leads."""

    spec: ToolSpec
    builtin: Tool | None = None
    source: ToolSource | None = None
    redactor: Redactor | None = None
    """The app's secrets, replaced in everything the tool reports (its
    output, progress, partial output and result), so no key reaches the
    bus, the model or the saved conversation through a tool."""

    @property
    def skip_approval(self) -> bool:
        # MCP tools can never skip approval, whatever their server says.
        return self.builtin is not None and self.spec.skip_approval

    def post_executing(
        self, tool_call_id: str, arguments: JSONMapping
    ) -> FormRequestMessage | None:
        hook = getattr(self.builtin, "on_post_executing", None)
        if hook is None:
            return None
        result: FormRequestMessage | None = hook(tool_call_id, arguments)
        return result

    async def run(self, arguments: JSONMapping, ctx: ToolContext) -> ToolResult:
        if self.redactor is None:
            return await self._run(arguments, ctx)
        redacting = RedactingContext(ctx, self.redactor)
        try:
            return redacting.result(await self._run(arguments, redacting))
        finally:
            redacting.flush()

    async def _run(self, arguments: JSONMapping, ctx: ToolContext) -> ToolResult:
        if self.builtin is not None:
            return await self.builtin.run(arguments, ctx)
        assert self.source is not None
        return await self.source.call(self.spec.name, arguments, ctx)


class ToolRouter:
    def __init__(
        self,
        builtins: Sequence[Tool] = (),
        sources: Sequence[ToolSource] = (),
        *,
        redactor: Redactor | None = None,
    ) -> None:
        self._builtins = list(builtins)
        self._sources = list(sources)
        self.redactor = redactor

    def add_source(self, source: ToolSource) -> None:
        self._sources.append(source)

    def _routes(self) -> tuple[dict[str, RoutedTool], list[ToolSpec]]:
        routes: dict[str, RoutedTool] = {}
        shadowed: list[ToolSpec] = []
        for tool in self._builtins:
            routes.setdefault(tool.spec.name, RoutedTool(tool.spec, builtin=tool, redactor=self.redactor))
        for source in self._sources:
            for spec in source.specs():
                if spec.name in routes:
                    shadowed.append(spec)
                else:
                    routes[spec.name] = RoutedTool(spec, source=source, redactor=self.redactor)
        return routes, shadowed

    def lookup(self, name: str) -> RoutedTool | None:
        return self._routes()[0].get(name)

    def annotations(self, name: str) -> ToolAnnotations | None:
        """What the tool called ``name`` says of its risk (who may approve
        it without asking); None when it says nothing or there is no such
        tool."""
        routed = self.lookup(name)
        return routed.spec.annotations if routed is not None else None

    def specs(self) -> list[ToolSpec]:
        return [r.spec for r in self._routes()[0].values()]

    def shadowed(self) -> list[ToolSpec]:
        """Tools hidden because an earlier source offers the same name."""
        return self._routes()[1]

    def openai_tools(self) -> list[JSONObject]:
        return [spec.to_openai() for spec in self.specs()]


class SubAgentHost(Protocol):
    """What the chat handler lends a running ``sub_agent`` call (through its
    :class:`ToolContext`, attribute ``sub_agents``): a way to run a nested
    agent whose tool calls go through the turn's own bus, approvals and
    cancellation (``core/sub_agent.py``)."""

    async def run_sub_agent(
        self, parent: ToolContext, task: str, tools: ToolRouter, max_steps: int
    ) -> ToolResult:
        """Run the sub-agent to its final answer. Raises
        :class:`SubAgentStopped` when a nested call was not approved or the
        turn was interrupted."""
        ...
