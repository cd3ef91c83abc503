"""Shared set-up for the MCP engine tests: real servers, a bus-backed tool
context with a fake clock, and a look at the process table.

server-everything comes from npm via ``scripts/install-test-deps.sh``; nothing
is downloaded at test time. SSE and streamable-HTTP instances run once per
module on a random high port on 127.0.0.1.
"""

from __future__ import annotations

import itertools
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.tool_router import BusToolContext
from desktop_agent.mcp_engine import ServerConfig

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
    """Live (or zombie) child processes of this test process whose command line has ``marker``."""
    me = os.getpid()
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == me and marker in cmdline:
            found.append(int(entry.name))
    return sorted(found)


@dataclass
class CallContext:
    """A real BusToolContext on a fresh bus, with a clock that ticks 1 s per reading."""

    bus: SessionMessageBus
    ctx: BusToolContext

    def messages(self, type_: str | None = None) -> list[dict[str, object]]:
        out = []
        while (item := self.bus.get_nowait()) is not None:
            out.append(item.message)
        return [m for m in out if type_ is None or m["type"] == type_]


@pytest.fixture
def make_ctx() -> Callable[..., CallContext]:
    counter = itertools.count(1)

    def make(conversation_id: str = "conv-1") -> CallContext:
        n = next(counter)
        ticks = itertools.count()
        bus = SessionMessageBus(f"session-{n}")
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
