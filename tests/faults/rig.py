"""The headless mode as a subprocess against a scripted server, for the fault
matrix: one :class:`Scenario` per row, each in its own folder and
data folder, so rows can run side by side (``asyncio.gather``)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop_agent.core.history import check_history
from desktop_agent.storage.history_json import history_items
from desktop_agent.testing.procs import live_processes
from desktop_agent.testing.scripted_server import Reply, ScriptedLLMServer, text_reply

PLAN = text_reply("<voice>On it.</voice><need_tool>")
INTENT_TAGS = ("<need_tool>", "<no_tool>")


@dataclass
class Outcome:
    returncode: int
    stdout: str
    stderr: str
    events: list[dict[str, Any]]
    history: list[dict[str, Any]] | None
    """None when no history file was written."""
    left: list[int] = field(default_factory=list)
    """Processes with the scenario's marker still alive after the run."""

    def types(self) -> list[str]:
        return [e["type"] if e["type"] != "tool_call" else f"tool_call:{e['state']}" for e in self.events]

    def problem_lines(self) -> list[str]:
        """Lines a user would read as a complaint (errors, warnings, notices)."""
        return [line for line in self.stderr.splitlines() if line.startswith(("error", "warning", "notice"))]


class Scenario:
    """One headless run: ``script`` served, ``extra`` flags, a data folder of its own."""

    def __init__(self, tmp: Path, name: str, script: Sequence[Reply], *extra: str, marker: str = "") -> None:
        self.dir = tmp / name
        self.dir.mkdir(parents=True)
        self.home = self.dir / "home"
        self.events_path = self.dir / "events.jsonl"
        self.history_path = self.dir / "history.json"
        self.mcp = self.dir / "mcp.json"
        self.mcp.write_text('{"mcpServers": {}}')
        self.script = list(script)
        self.extra = extra
        self.marker = marker
        self.proc: asyncio.subprocess.Process | None = None
        self.server: ScriptedLLMServer | None = None

    def argv(self, base_url: str) -> list[str]:
        return [sys.executable, "-m", "desktop_agent", "--cli", "--base-url", base_url,
                "--model", "scripted", "--api-key", "k", "--tts", "none", "--mcp-config", str(self.mcp),
                "--events-jsonl", str(self.events_path), "--history-json", str(self.history_path), *self.extra]

    def events(self) -> list[dict[str, Any]]:
        try:
            text = self.events_path.read_text()
        except FileNotFoundError:
            return []
        return [json.loads(line) for line in text.splitlines() if line.endswith("}")]

    async def wait_for(
        self, *, event: str = "", process: bool = False, requests: int = 0, timeout_s: float = 30
    ) -> None:
        """Until an event of this type (``tool_call:<state>`` for tool calls)
        is in the events file, with ``process`` the marker is running, and
        the server got at least ``requests`` requests."""
        async with asyncio.timeout(timeout_s):
            while True:
                types = {e["type"] if e["type"] != "tool_call" else f"tool_call:{e['state']}" for e in self.events()}
                served = len(self.server.requests) if self.server is not None else 0
                if (not event or event in types) and (not process or live_processes(self.marker)) \
                        and served >= requests:
                    return
                await asyncio.sleep(0.05)

    async def run(self, act: Any = None, *, stdin_open: bool = False, timeout_s: float = 60) -> Outcome:
        """Start the CLI, await ``act(self)`` while it runs, then its end."""
        async with ScriptedLLMServer(self.script) as server:
            self.server = server
            env = {**os.environ, "DESKTOP_AGENT_HOME": str(self.home)}
            self.proc = proc = await asyncio.create_subprocess_exec(
                *self.argv(server.base_url), env=env,
                stdin=asyncio.subprocess.PIPE if stdin_open else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            try:
                async with asyncio.timeout(timeout_s):
                    collected = asyncio.ensure_future(_collect(proc))
                    if act is not None:
                        await act(self)
                    out, err = await collected
                    await proc.wait()
            finally:
                # A failed wait must not leave the CLI writing into the next run's folders.
                if proc.returncode is None:
                    proc.kill()
                    await proc.wait()
        assert proc.returncode is not None
        history = json.loads(self.history_path.read_text()) if self.history_path.exists() else None
        left = await _left_over(self.marker) if self.marker else []
        return Outcome(proc.returncode, out, err, self.events(), history, left)

    def send(self, sig: int) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)


async def _collect(proc: asyncio.subprocess.Process) -> tuple[str, str]:
    assert proc.stdout is not None and proc.stderr is not None
    out, err = await asyncio.gather(proc.stdout.read(), proc.stderr.read())
    return out.decode(errors="replace"), err.decode(errors="replace")


async def _left_over(marker: str, settle_s: float = 3.0) -> list[int]:
    """The marker's processes once they had ``settle_s`` to die (a watchdog
    kills asynchronously when its parent is SIGKILLed)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + settle_s
    while (left := live_processes(marker)) and loop.time() < deadline:
        await asyncio.sleep(0.05)
    return left


def assert_clean_interrupt(outcome: Outcome, name: str) -> None:
    """Exit 0, at most one complaint and no traceback on stderr, the turn
    ended as interrupted, history written and well formed, nothing left."""
    where = f"{name}: {outcome.stderr}"
    assert outcome.returncode == 0, where
    assert "Traceback" not in outcome.stderr, where
    assert len(outcome.problem_lines()) <= 1, where
    assert outcome.types()[-2:] == ["interrupted", "turn_end"], f"{name}: {outcome.types()}"
    assert outcome.events[-2]["reason"] == "user", name
    assert outcome.history is not None, where
    check_history(history_items(outcome.history))
    text = json.dumps(outcome.history)
    assert not any(tag in text for tag in INTENT_TAGS), f"{name}: {text}"
    assert outcome.left == [], f"{name}: left running {outcome.left}"


def signal_name(sig: int) -> str:
    return signal.Signals(sig).name
