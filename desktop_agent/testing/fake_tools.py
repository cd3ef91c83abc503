"""Small built-in tools for tests and benchmarks."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from desktop_agent.core.ports import ToolContext, ToolResult, ToolSpec

_OBJECT = {"type": "object", "properties": {"text": {"type": "string"}}}


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
