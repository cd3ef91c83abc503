"""Small built-in tools for tests and benchmarks."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from desktop_agent.core.json_types import JSONObject
from desktop_agent.core.ports import ToolContext, ToolResult, ToolSpec
from desktop_agent.core.risk import ToolAnnotations

_OBJECT: JSONObject = {"type": "object", "properties": {"text": {"type": "string"}}}


@dataclass
class EchoTool:
    """Returns its ``text`` argument; needs approval unless told otherwise."""

    name: str = "echo"
    skip_approval: bool = False
    calls: list[dict[str, Any]] = field(default_factory=list)

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, "Echo the text back.", _OBJECT, skip_approval=self.skip_approval)

    async def run(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        self.calls.append(dict(arguments))
        return ToolResult(f"echo: {arguments.get('text', '')}")


@dataclass
class BlockingTool:
    """Reports partial output, then waits until released or cancelled."""

    name: str = "slow"
    started: asyncio.Event = field(default_factory=asyncio.Event)
    release: asyncio.Event = field(default_factory=asyncio.Event)
    cancelled: bool = False

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, "A slow tool.", _OBJECT)

    async def run(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        ctx.set_partial("stdout", "half done")
        ctx.progress(1, 2, "step 1")
        self.started.set()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        return ToolResult("all done")


@dataclass
class FakeServerSource:
    """A ``ToolSource`` standing in for one MCP server: its tools echo, and
    say what ``annotations`` holds for them (the risk hints a real server
    states)."""

    server: str = "files"
    annotations: Mapping[str, ToolAnnotations | None] = field(default_factory=dict)
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    release: asyncio.Event | None = None
    """When set, each call waits for it (a call seen while it runs)."""

    def specs(self) -> list[ToolSpec]:
        return [
            ToolSpec(name, f"{name} on {self.server}", _OBJECT, server=self.server, annotations=hints)
            for name, hints in self.annotations.items()
        ]

    async def call(self, name: str, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        self.calls.append((name, dict(arguments)))
        if self.release is not None:
            await self.release.wait()
        return ToolResult(f"{name}: {arguments.get('text', '')}")
