"""The reference MCP server ``@modelcontextprotocol/server-everything`` for
tests in any folder: its path, a stdio config, and an HTTP instance.

It comes from npm via ``scripts/install-test-deps.sh`` (under
``.venv/npm``; ``SERVER_EVERYTHING_JS`` overrides the path); nothing is
downloaded at test time. An HTTP instance listens on a random high port
(it binds every interface; clients connect via 127.0.0.1).
"""

from __future__ import annotations

import os
import socket
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from desktop_agent.mcp_engine import ServerConfig

REPO = Path(__file__).resolve().parents[2]
EVERYTHING_JS = Path(
    os.environ.get(
        "SERVER_EVERYTHING_JS",
        REPO / ".venv/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    )
)


class EverythingMissing(RuntimeError):
    """The npm test server is not installed; the message says how to install it."""


def everything_js() -> Path:
    if not EVERYTHING_JS.is_file():
        raise EverythingMissing(
            f"server-everything is missing at {EVERYTHING_JS}: run scripts/install-test-deps.sh "
            "(or set SERVER_EVERYTHING_JS)"
        )
    return EVERYTHING_JS


def everything_stdio(name: str = "everything", **kwargs: object) -> ServerConfig:
    """A stdio config that runs server-everything."""
    return ServerConfig(name=name, command="node", args=(str(everything_js()), "stdio"), **kwargs)  # type: ignore[arg-type]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class RunningServer:
    url: str
    process: subprocess.Popen[str]


@contextmanager
def run_everything(mode: str = "streamableHttp", path: str = "/mcp", port: int | None = None) -> Iterator[RunningServer]:
    """Run server-everything over HTTP (``sse`` at ``/sse``, ``streamableHttp``
    at ``/mcp``); waits (at most 30 s) for its "port N" line."""
    js = everything_js()
    port = port or free_port()
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
            raise RuntimeError(f"server-everything {mode} did not start: {''.join(output)[-500:]}")
        yield RunningServer(f"http://127.0.0.1:{port}{path}", process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        reader.join(timeout=10)
