"""ToolRouter order and approval rules; BusToolContext progress and ETA."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.ports import ToolContext, ToolResult, ToolSpec
from desktop_agent.core.tool_router import BusToolContext, ToolRouter
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


def test_progress_pushes_messages_with_eta_from_the_observed_rate() -> None:
    now = [100.0]
    bus = SessionMessageBus("s")
    ctx = BusToolContext(bus, "c1", "conv", clock=lambda: now[0])
    ctx.progress(0, 10, "starting")
    now[0] = 102.0
    ctx.progress(2, 10, "two done")
    now[0] = 103.0
    ctx.progress(3, None, "unknown total")
    messages = [bus.get_nowait() for _ in range(3)]
    assert [(m.message["progress"], m.message["total"], m.message["eta_s"]) for m in messages if m] == [
        (0, 10, None), (2, 10, 8.0), (3, None, None)]
    assert bus.snapshot_partial() == {"progress": ["0/10 starting", "2/10 two done", "3 unknown total"]}
