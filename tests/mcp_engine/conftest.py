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
import os
import socket
import subprocess
import sys
import threading
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
from desktop_agent.testing.bus_reader import RecordingBus
from desktop_agent.testing.fake_clock import FakeClock

REPO = Path(__file__).resolve().parents[2]
SERVERS = Path(__file__).resolve().parent / "servers"
CRASH_SERVER = SERVERS / "crash_server.py"
HANG_SERVER = SERVERS / "hang_server.py"
EVERYTHING_JS = Path(
    os.environ.get(
        "SERVER_EVERYTHING_JS",
        REPO / ".venv/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    )
)


def everything_js() -> Path:
    """The npm test server, or a failure that says how to install it."""
    if not EVERYTHING_JS.is_file():
        pytest.fail(
            f"server-everything is missing at {EVERYTHING_JS}: run scripts/install-test-deps.sh "
            "(or set SERVER_EVERYTHING_JS)",
            pytrace=False,
        )
    return EVERYTHING_JS


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


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class RunningServer:
    url: str
    process: subprocess.Popen[str]


@contextmanager
def run_everything(mode: str, path: str, port: int | None = None) -> Iterator[RunningServer]:
    """Run server-everything over HTTP; wait (bounded) for its "port N" line."""
    js = everything_js()
    port = port or _free_port()
    process = subprocess.Popen(
        ["node", str(js), mode],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    ready = threading.Event()
    output: list[str] = []

    def drain() -> None:
        # Keep reading to EOF so a chatty server never blocks on a full pipe.
        assert process.stdout is not None
        for line in process.stdout:
            output.append(line)
            if f"port {port}" in line:
                ready.set()

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        if not ready.wait(timeout=30):
            pytest.fail(f"server-everything {mode} did not start: {''.join(output)[-500:]}", pytrace=False)
        yield RunningServer(f"http://127.0.0.1:{port}{path}", process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        reader.join(timeout=10)


@pytest.fixture(scope="module")
def everything_sse() -> Iterator[RunningServer]:
    with run_everything("sse", "/sse") as server:
        yield server


@pytest.fixture(scope="module")
def everything_http() -> Iterator[RunningServer]:
    with run_everything("streamableHttp", "/mcp") as server:
        yield server
