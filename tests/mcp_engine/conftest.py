"""Shared set-up for the MCP engine tests: real servers, a bus-backed tool
context with a fake clock, a fake clock for the idle timeouts, and a look at
the process table (psutil).

server-everything comes from npm via ``scripts/install-test-deps.sh``; nothing
is downloaded at test time. SSE and streamable-HTTP instances run once per
module on a random high port on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import itertools
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import pytest

from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.json_types import JSONObject
from desktop_agent.core.tool_context import BusToolContext
from desktop_agent.mcp_engine import ServerConfig, connection
from desktop_agent.mcp_engine.idle import IdleWatchdog, Watch
from desktop_agent.testing import everything
from desktop_agent.testing.bus_reader import RecordingBus
from desktop_agent.testing.fake_clock import FakeClock

REPO = Path(__file__).resolve().parents[2]
SERVERS = Path(__file__).resolve().parent / "servers"
CRASH_SERVER = SERVERS / "crash_server.py"
HANG_SERVER = SERVERS / "hang_server.py"
EVERYTHING_JS = everything.EVERYTHING_JS


def everything_js() -> Path:
    """The npm test server, or a failure that says how to install it."""
    try:
        return everything.everything_js()
    except everything.EverythingMissing as exc:
        pytest.fail(str(exc), pytrace=False)


def python_server(name: str, script: Path, **kwargs: object) -> ServerConfig:
    return ServerConfig(name=name, command=sys.executable, args=(str(script),), **kwargs)  # type: ignore[arg-type]


def children(marker: str) -> list[int]:
    """PIDs of this test process's own children whose command line has ``marker``.

    A zombie has no command line left, so it never matches: like a process
    that is gone.
    """
    found: list[int] = []
    for child in psutil.Process().children():
        try:
            cmdline = " ".join(child.cmdline())
        except psutil.Error:  # gone, a zombie, or not ours to read
            continue
        if marker in cmdline:
            found.append(child.pid)
    return sorted(found)


@dataclass
class IdleClock:
    """The fake clock every :class:`ServerConnection` made in the test times its idle calls by.

    ``calls`` counts the calls that started their idle watch, so a test can
    wait until a call is in flight before it advances the clock.
    """

    clock: FakeClock
    calls: int = 0
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    def _started(self) -> None:
        self.calls += 1
        self._changed.set()

    async def wait_calls(self, count: int) -> None:
        """Return once ``count`` calls in all have started (bounded: 10 s)."""
        async with asyncio.timeout(10):
            while self.calls < count:
                self._changed.clear()
                await self._changed.wait()


@pytest.fixture
def idle_clock(monkeypatch: pytest.MonkeyPatch) -> IdleClock:
    """Put the idle timeouts of the engine's connections on a :class:`FakeClock`.

    A monkeypatch because neither ``McpEngine`` nor ``ServerConnection`` takes
    a clock; only ``IdleWatchdog`` does.
    """
    idle = IdleClock(FakeClock())

    class RecordingWatchdog(IdleWatchdog):
        def start(self, seconds: float) -> Watch:
            watch = super().start(seconds)
            idle._started()
            return watch

    monkeypatch.setattr(connection, "IdleWatchdog", lambda: RecordingWatchdog(idle.clock))
    return idle


@dataclass
class CallContext:
    """A real BusToolContext on a fresh bus, with a clock that ticks 1 s per reading."""

    bus: SessionMessageBus
    ctx: BusToolContext

    def messages(self, type_: str | None = None) -> list[JSONObject]:
        """The JSON form of every message not taken yet (taking them)."""
        assert isinstance(self.bus, RecordingBus)
        out = []
        while (item := self.bus.reader.get_nowait()) is not None:
            out.append(item.to_json())
        return [m for m in out if type_ is None or m["type"] == type_]


@pytest.fixture
def make_ctx() -> Callable[..., CallContext]:
    counter = itertools.count(1)

    def make(conversation_id: str = "conv-1") -> CallContext:
        n = next(counter)
        ticks = itertools.count()
        bus = RecordingBus(f"session-{n}")
        ctx = BusToolContext(bus, f"call-{n}", conversation_id, clock=lambda: float(next(ticks)))
        return CallContext(bus, ctx)

    return make


_free_port = everything.free_port
RunningServer = everything.RunningServer


@contextmanager
def run_everything(mode: str, path: str, port: int | None = None) -> Iterator[RunningServer]:
    everything_js()
    try:
        with everything.run_everything(mode, path, port) as server:
            yield server
    except RuntimeError as exc:
        if "did not start" not in str(exc):
            raise
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="module")
def everything_sse() -> Iterator[RunningServer]:
    with run_everything("sse", "/sse") as server:
        yield server


@pytest.fixture(scope="module")
def everything_http() -> Iterator[RunningServer]:
    with run_everything("streamableHttp", "/mcp") as server:
        yield server
