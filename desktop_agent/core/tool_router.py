"""Tool routing (DESIGN §2): built-in tools, then shared MCP servers, then
per-conversation MCP servers, then unknown.

The first source that offers a name wins; later duplicates are ignored and
reported by :meth:`ToolRouter.shadowed`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.ports import Tool, ToolContext, ToolResult, ToolSource, ToolSpec

JSONDict = dict[str, Any]


@dataclass(frozen=True, slots=True)
class RoutedTool:
    """Where a tool name leads."""

    spec: ToolSpec
    builtin: Tool | None = None
    source: ToolSource | None = None

    @property
    def skip_approval(self) -> bool:
        # MCP tools can never skip approval, whatever their server says.
        return self.builtin is not None and self.spec.skip_approval

    def post_executing(self, tool_call_id: str, arguments: Mapping[str, Any]) -> JSONDict | None:
        hook = getattr(self.builtin, "on_post_executing", None)
        if hook is None:
            return None
        result = hook(tool_call_id, arguments)
        return dict(result) if result is not None else None

    async def run(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        if self.builtin is not None:
            return await self.builtin.run(arguments, ctx)
        assert self.source is not None
        return await self.source.call(self.spec.name, arguments, ctx)


class ToolRouter:
    def __init__(
        self, builtins: Sequence[Tool] = (), sources: Sequence[ToolSource] = ()
    ) -> None:
        self._builtins = list(builtins)
        self._sources = list(sources)

    def add_source(self, source: ToolSource) -> None:
        self._sources.append(source)

    def _routes(self) -> tuple[dict[str, RoutedTool], list[ToolSpec]]:
        routes: dict[str, RoutedTool] = {}
        shadowed: list[ToolSpec] = []
        for tool in self._builtins:
            routes.setdefault(tool.spec.name, RoutedTool(tool.spec, builtin=tool))
        for source in self._sources:
            for spec in source.specs():
                if spec.name in routes:
                    shadowed.append(spec)
                else:
                    routes[spec.name] = RoutedTool(spec, source=source)
        return routes, shadowed

    def lookup(self, name: str) -> RoutedTool | None:
        return self._routes()[0].get(name)

    def specs(self) -> list[ToolSpec]:
        return [r.spec for r in self._routes()[0].values()]

    def shadowed(self) -> list[ToolSpec]:
        """Tools hidden because an earlier source offers the same name."""
        return self._routes()[1]

    def openai_tools(self) -> list[JSONDict]:
        return [spec.to_openai() for spec in self.specs()]


class BusToolContext:
    """ToolContext that writes into the session bus."""

    def __init__(
        self,
        bus: SessionMessageBus,
        tool_call_id: str,
        conversation_id: str,
        clock: Any = None,
    ) -> None:
        self._bus = bus
        self._tool_call_id = tool_call_id
        self._conversation_id = conversation_id
        self._progress_log: list[str] = []
        self._rate = _ProgressRate(clock)

    @property
    def session_id(self) -> str:
        return self._bus.session_id

    @property
    def conversation_id(self) -> str:
        return self._conversation_id

    @property
    def tool_call_id(self) -> str:
        return self._tool_call_id

    def _cache(self) -> JSONDict:
        cache = self._bus.tool_output_cache
        if cache is None or cache.get("_id") != self._tool_call_id:
            cache = {"_id": self._tool_call_id}
            self._bus.tool_output_cache = cache
        return cache

    def set_partial(self, key: str, value: Any) -> None:
        self._cache()[key] = value

    def progress(self, progress: float, total: float | None, message: str | None) -> None:
        eta = self._rate.eta(progress, total)
        self._bus.push(
            "tool_progress",
            tool_call_id=self._tool_call_id,
            progress=progress,
            total=total,
            message=message,
            eta_s=eta,
        )
        if total:
            line = f"{progress:g}/{total:g}"
        else:
            line = f"{progress:g}"
        if message:
            line += f" {message}"
        self._progress_log.append(line)
        self.set_partial("progress", list(self._progress_log))

    def push_card(self, card: Mapping[str, Any]) -> None:
        self._bus.push("card", tool_call_id=self._tool_call_id, card=dict(card))


class _ProgressRate:
    """ETA from the observed progress rate since the first report of a run.

    A report whose ``total`` differs from the previous one, or whose progress
    goes backwards, starts a new run (a tool moving on to a second phase):
    the old rate says nothing about the new work, so the ETA waits for a
    second report of the new run instead of extrapolating a wrong one.
    """

    def __init__(self, clock: Any = None) -> None:
        import time

        self._now = clock or time.monotonic
        self._first: tuple[float, float] | None = None
        self._total: float | None = None
        self._last = 0.0

    def eta(self, progress: float, total: float | None) -> float | None:
        now = float(self._now())
        if self._first is None or total != self._total or progress < self._last:
            self._first = (now, progress)
            self._total = total
            self._last = progress
            return None
        self._last = progress
        if not total:
            return None
        t0, p0 = self._first
        done = progress - p0
        elapsed = now - t0
        if done <= 0 or elapsed <= 0:
            return None
        remaining = max(total - progress, 0.0)
        return round(remaining * elapsed / done, 1)
