"""Per-conversation isolation: probe once, one process per conversation,
least-recently-used eviction, and nothing left behind."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop_agent.core.ports import ToolResult
from desktop_agent.mcp_engine import McpConfig, McpEngine, ServerStatus

from .conftest import HANG_SERVER, CallContext, children, python_server

pytestmark = pytest.mark.integration


def _engine(name: str, max_sandboxes: int = 4, **kwargs: object) -> McpEngine:
    server = python_server(name, HANG_SERVER, isolation="per_conversation")
    return McpEngine(McpConfig(servers=(server,), max_sandboxes=max_sandboxes), **kwargs)  # type: ignore[arg-type]


def _dirs(name: str) -> list[Path]:
    return sorted(Path(tempfile.gettempdir()).glob(f"desktop-agent-mcp-{name}-*"))


async def _pid(engine: McpEngine, make_ctx: Callable[..., CallContext], conversation: str) -> int:
    result = await engine.conversation_source().call("pid", {}, make_ctx(conversation).ctx)
    assert not result.is_error, result.text
    return int(result.text)


async def test_probe_learns_the_schema_then_leaves_no_process_and_no_folder() -> None:
    statuses: list[ServerStatus] = []
    engine = _engine("probe-only", on_status=statuses.append)
    try:
        assert await engine.start() == []

        assert [s.name for s in engine.conversation_source().specs()] == [
            "pid",
            "sandbox",
            "hang",
            "block",
            "slow",
            "wait_cancelled",
        ]
        assert engine.shared_source().specs() == []
        assert [s.server for s in engine.specs()] == ["probe-only"] * 6
        assert children(str(HANG_SERVER)) == []
        assert _dirs("probe-only") == []
        assert engine.sandboxes.conversation_ids() == []
    finally:
        await engine.aclose()
    assert [(s.state, s.tool_count) for s in statuses] == [
        ("stopped", 0),
        ("starting", 0),
        ("ready", 6),
        ("stopped", 6),
    ]


async def test_two_conversations_get_two_processes_each_with_its_own_folder(
    make_ctx: Callable[..., CallContext],
) -> None:
    engine = _engine("two-convs")
    try:
        assert await engine.start() == []
        source = engine.conversation_source()
        pid_a = await _pid(engine, make_ctx, "A")
        pid_b = await _pid(engine, make_ctx, "B")
        dir_a = (await source.call("sandbox", {}, make_ctx("A").ctx)).text
        dir_b = (await source.call("sandbox", {}, make_ctx("B").ctx)).text

        assert pid_a != pid_b
        assert children(str(HANG_SERVER)) == sorted([pid_a, pid_b])
        assert await _pid(engine, make_ctx, "A") == pid_a  # started once, then reused
        assert sorted(map(str, _dirs("two-convs"))) == sorted([dir_a, dir_b])

        await engine.close_conversation("A")

        assert children(str(HANG_SERVER)) == [pid_b]
        assert [str(d) for d in _dirs("two-convs")] == [dir_b]
    finally:
        await engine.aclose()
    assert children(str(HANG_SERVER)) == []
    assert _dirs("two-convs") == []


async def test_beyond_the_limit_the_least_recently_used_sandbox_is_evicted_and_reaped(
    make_ctx: Callable[..., CallContext],
) -> None:
    engine = _engine("lru", max_sandboxes=2)
    try:
        assert await engine.start() == []
        pid_a = await _pid(engine, make_ctx, "A")
        pid_b = await _pid(engine, make_ctx, "B")
        await _pid(engine, make_ctx, "A")  # A is now the most recently used

        pid_c = await _pid(engine, make_ctx, "C")
        await engine.sandboxes.wait_closed()  # eviction reaps in the background

        assert engine.sandboxes.conversation_ids() == ["A", "C"]
        assert children(str(HANG_SERVER)) == sorted([pid_a, pid_c])
        assert pid_b not in children(str(HANG_SERVER))
        assert len(_dirs("lru")) == 2

        new_b = await _pid(engine, make_ctx, "B")  # comes back as a fresh instance; A goes
        await engine.sandboxes.wait_closed()

        assert engine.sandboxes.conversation_ids() == ["C", "B"]
        assert children(str(HANG_SERVER)) == sorted([pid_c, new_b])
    finally:
        await engine.aclose()
    assert children(str(HANG_SERVER)) == []
    assert _dirs("lru") == []


async def test_a_sandbox_with_a_call_in_flight_is_not_evicted_until_the_call_ends(
    make_ctx: Callable[..., CallContext],
) -> None:
    engine = _engine("busy", max_sandboxes=1)
    try:
        assert await engine.start() == []
        source = engine.conversation_source()
        call_a = make_ctx("A")
        running = asyncio.Event()
        call_a.bus.add_listener(lambda item: running.set())
        task = asyncio.create_task(source.call("slow", {"steps": 3, "interval": 0.2}, call_a.ctx))
        async with asyncio.timeout(10):
            await running.wait()

        pid_b = await _pid(engine, make_ctx, "B")
        both = engine.sandboxes.conversation_ids()
        async with asyncio.timeout(10):
            result_a = await task
        await _pid(engine, make_ctx, "B")
        await engine.sandboxes.wait_closed()

        assert both == ["A", "B"]
        assert result_a == ToolResult(text="done after 3 steps")
        assert engine.sandboxes.conversation_ids() == ["B"]
        assert children(str(HANG_SERVER)) == [pid_b]
    finally:
        await engine.aclose()
    assert children(str(HANG_SERVER)) == []
