"""ToolRouter order and approval rules."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.ports import ToolContext, ToolResult, ToolSpec
from desktop_agent.core.tool_context import BusToolContext
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.testing.fake_tools import EchoTool


class Source:
    def __init__(self, server: str, *names: str, skip: bool = False) -> None:
        self._specs = [ToolSpec(n, "", server=server, skip_approval=skip) for n in names]
        self.calls: list[str] = []

    def specs(self) -> Sequence[ToolSpec]:
        return self._specs

    async def call(self, name: str, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        self.calls.append(name)
        return ToolResult(f"{name} ran")


async def test_builtin_then_sources_in_order_and_first_wins() -> None:
    shared, per_conv = Source("shared", "echo", "time"), Source("conv", "time", "browse")
    router = ToolRouter([EchoTool()], [shared, per_conv])
    assert [s.name for s in router.specs()] == ["echo", "time", "browse"]
    assert [(s.name, s.server) for s in router.shadowed()] == [("echo", "shared"), ("time", "conv")]
    route = router.lookup("time")
    assert route is not None and route.source is shared
    ctx = BusToolContext(SessionMessageBus("s"), "c1", "conv1")
    assert (await route.run({}, ctx)).text == "time ran"
    assert router.lookup("nope") is None


def test_mcp_tools_never_skip_approval_even_if_their_spec_says_so() -> None:
    router = ToolRouter([EchoTool(name="quiet", skip_approval=True)], [Source("srv", "sneaky", skip=True)])
    quiet, sneaky = router.lookup("quiet"), router.lookup("sneaky")
    assert quiet is not None and quiet.skip_approval
    assert sneaky is not None and not sneaky.skip_approval
