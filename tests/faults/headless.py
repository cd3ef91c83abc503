"""One headless run per fault-matrix row, for the rows about what
comes in: the user's text, the server's stream, the model's tool calls, the
files and flags. Each row has its own folder, data folder and scripted
server, so rows run side by side (``asyncio.gather``).

The signal rows have their own rig (``rig.py``); this one adds what these
rows need: bytes on standard input, a real-looking API key, extra
environment, a script that is a function of the request, and the server's
record of the requests it got.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop_agent.core.history import check_history
from desktop_agent.storage.history_json import history_items
from desktop_agent.testing.json_dict import JSONDict
from desktop_agent.testing.procs import live_processes
from desktop_agent.testing.scripted_server import Reply, ScriptedLLMServer, text_reply

API_KEY = "sk-fault-matrix-0123456789"
"""Long enough to count as a secret (core.redaction.MIN_SECRET_LEN)."""
PLAN = text_reply("<voice>On it.</voice><need_tool>")
DONE = text_reply("<voice>Done.</voice><no_tool>")
INTENT_TAGS = ("<need_tool>", "<no_tool>")


def script(*replies: Reply, then: Reply = DONE) -> Any:
    """Serve ``replies`` in order, then ``then`` to every later request."""
    queue = list(replies)

    def reply(_request: JSONDict) -> Reply:
        return queue.pop(0) if queue else then

    return reply


@dataclass
class Row:
    """One row: its name, what the server answers, the flags, and what to
    write to standard input."""

    name: str
    replies: Any
    """A list of replies or a function of the request (see :func:`script`)."""
    extra: Sequence[str] = ("--prompt", "x", "--approve", "all")
    stdin: bytes | None = None
    stdin_open: bool = False
    """Keep standard input open (a pipe with nothing written) until the end."""
    env: dict[str, str] = field(default_factory=dict)
    refused: bool = False
    """Point the CLI at a port where nothing listens."""
    files: dict[str, bytes] = field(default_factory=dict)
    """Files to put in the data folder first (``settings.json``, ``hooks/hooks.json``…)."""
    modes: dict[str, int] = field(default_factory=dict)
    """Modes to give those files (``"."``: the data folder) once written."""
    prefix: Sequence[str] = ()
    """A command the CLI runs under: ``("unshare", "-U")`` makes file modes
    count for root (CI runs as root, whom no mode stops otherwise)."""


@dataclass
class Result:
    row: Row
    folder: Path
    home: Path
    returncode: int
    stdout: str
    stderr: str
    requests: list[JSONDict]
    left: list[int]

    @property
    def history_path(self) -> Path:
        """The row's own ``--history-json`` (the last one given), else the folder's."""
        flags = [i for i, arg in enumerate(self.row.extra) if arg == "--history-json"]
        if flags:
            return Path(self.row.extra[flags[-1] + 1])
        return self.folder / "history.json"

    def events(self) -> list[dict[str, Any]]:
        path = self.folder / "events.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines()]

    def types(self) -> list[str]:
        return [e["type"] if e["type"] != "tool_call" else f"tool_call:{e['state']}" for e in self.events()]

    def history(self) -> list[dict[str, Any]]:
        history: list[dict[str, Any]] = json.loads(self.history_path.read_text(encoding="utf-8"))
        return history

    def lines(self) -> list[str]:
        """The lines on standard error a user reads as a complaint (error,
        warning, notice, note), not the tool log or the ``you> `` prompts."""
        lines = []
        for line in self.stderr.splitlines():
            while line.startswith("you> "):
                line = line[len("you> "):]
            if line.startswith(("error", "warning", "notice", "note", "Traceback")):
                lines.append(line)
        return lines

    def check(self, status: int, *, lines: int = 1) -> None:
        """The common promises: this exit status, at most ``lines`` lines on
        standard error and no traceback, a well-formed history file without
        intent tags and no stray temp file, nothing left running."""
        where = f"{self.row.name}: status {self.returncode}, stderr {self.stderr!r}"
        assert self.returncode == status, where
        assert "Traceback" not in self.stderr, where
        assert len(self.lines()) <= lines, where
        history = self.history()
        check_history(history_items(history))
        text = json.dumps(history, ensure_ascii=False)
        assert not any(tag in text for tag in INTENT_TAGS), f"{self.row.name}: {text}"
        assert not list(self.folder.glob("*.tmp")), f"{self.row.name}: a temp file was left"
        assert self.left == [], f"{self.row.name}: left running {self.left}"


def _argv(row: Row, folder: Path, base_url: str) -> list[str]:
    # A row that brings its own mcp_servers.json reads the data folder's file.
    mcp = [] if "mcp_servers.json" in row.files else ["--mcp-config", str(folder / "mcp.json")]
    return [sys.executable, "-m", "desktop_agent", "--cli", "--base-url", base_url, "--model", "scripted",
            "--api-key", API_KEY, "--tts", "none", *mcp,
            "--events-jsonl", str(folder / "events.jsonl"), "--history-json", str(folder / "history.json"),
            *row.extra]


def _closed_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


async def run_row(tmp: Path, row: Row, timeout_s: float = 90) -> Result:
    folder = tmp / row.name
    home = folder / "home"
    home.mkdir(parents=True)
    (folder / "mcp.json").write_text('{"mcpServers": {}}')
    for name, data in row.files.items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)  # "skills/x/SKILL.md"
        (home / name).write_bytes(data)
    for name, mode in sorted(row.modes.items(), reverse=True):  # the folder itself ("." sorts first) last
        (home / name).chmod(mode)
    async with ScriptedLLMServer(row.replies) as server:
        base_url = f"http://127.0.0.1:{_closed_port()}/v1" if row.refused else server.base_url
        env = {**os.environ, "DESKTOP_AGENT_HOME": str(home), **row.env}
        proc = await asyncio.create_subprocess_exec(
            *row.prefix, *_argv(row, folder, base_url), env=env,
            stdin=asyncio.subprocess.PIPE if row.stdin is not None or row.stdin_open else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        try:
            async with asyncio.timeout(timeout_s):
                out, err = await proc.communicate(row.stdin)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        requests = list(server.requests)
    assert proc.returncode is not None
    return Result(row, folder, home, proc.returncode, out.decode(errors="replace"),
                  # With the separator: row "pipe" must not find row "pipe_file"'s processes.
                  err.decode(errors="replace"), requests, live_processes(str(folder) + os.sep))


async def run_rows(tmp: Path, rows: Sequence[Row]) -> dict[str, Result]:
    """Every row at once: the rows wait on the network and on subprocess
    start-up far more than on the CPU."""
    results = await asyncio.gather(*(run_row(tmp, row) for row in rows))
    return {result.row.name: result for result in results}
