"""Fault matrix, the rows about the services around a turn: an
MCP server that crashes, hangs or never starts, speech with no network, an
approval or a form nobody answers, and a history file that cannot be
written. The rows run side by side; each asserts the exit status, at most
one complaint on standard error and no traceback, a well-formed history
without intent tags and nothing left running (every MCP server carries its
row's folder in its command line, so no row's name may begin another's). A history file that cannot be written
costs one line and leaves the exit status 0."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.core.rejection import REASON_NO_ANSWER, REASON_TIMEOUT
from desktop_agent.testing.scripted_server import text_reply, tool_reply
from tests.faults.headless import PLAN, Result, Row, run_rows, script
from tests.faults.rig import Outcome, Scenario, assert_clean_interrupt

pytestmark = pytest.mark.integration

SERVER_CODE = '''
import os
import sys
from pathlib import Path

import anyio
from mcp.server.mcpserver import MCPServer

server = MCPServer("faults")


@server.tool()
def echo(text: str) -> str:
    """Say the text back."""
    return f"echo says {text}"


@server.tool()
def crash() -> str:
    """Die without answering."""
    os._exit(3)


@server.tool()
async def hang() -> str:
    """Never answer (first saying, in the row's folder, that the call came)."""
    folder = Path(sys.argv[-1])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "hang_called").touch()
    await anyio.sleep_forever()
    return "unreachable"


server.run("stdio")
'''
"""A stdio MCP server; the row's folder, its last argument, is the marker."""

FORM = {"title": "Trip", "questions": [{"id": "city", "question": "Which city?", "type": "text"}]}
TOLD = text_reply("<voice>Told you.</voice><no_tool>")


def _server(tmp: Path, folder: Path, timeout_s: float = 60) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(tmp / "server.py"), str(folder)], "timeout_s": timeout_s}


def _servers(**entries: dict[str, Any]) -> dict[str, bytes]:
    """The data folder's ``mcp_servers.json`` with these servers."""
    return {"mcp_servers.json": json.dumps({"mcpServers": entries}).encode()}


def _tool_answers(result: Result) -> list[str]:
    return [m["content"] for m in result.history() if m["role"] == "tool"]


def _mcp_rows(tmp: Path) -> list[Row]:
    def folder(name: str) -> Path:
        return tmp / name

    return [
        Row("mcp_crash", script(PLAN, tool_reply("crash", {}), then=TOLD),
            files=_servers(faults=_server(tmp, folder("mcp_crash")))),
        Row("mcp_hang_timeout", script(PLAN, tool_reply("hang", {}), then=TOLD),
            files=_servers(faults=_server(tmp, folder("mcp_hang_timeout"), timeout_s=1))),
        # Two servers that fail to start: a line each, the third one works.
        Row("mcp_failed_starts", script(PLAN, tool_reply("echo", {"text": "still here"}), then=TOLD),
            files=_servers(
                faults=_server(tmp, folder("mcp_failed_starts")),
                missing={"command": str(folder("mcp_failed_starts") / "no-such-command")},
                quitter={"command": sys.executable,
                         "args": ["-c", "import sys; sys.exit(3)", str(folder("mcp_failed_starts"))]})),
    ]


def _other_rows(tmp: Path) -> list[Row]:
    ask = ("--prompt", "x", "--approve", "ask", "--approval-timeout", "1")
    # Speech through a proxy where nothing listens: offline without relying
    # on this machine having no network; the scripted server stays direct.
    offline = {"HTTPS_PROXY": "http://127.0.0.1:9", "WSS_PROXY": "http://127.0.0.1:9",
               "NO_PROXY": "127.0.0.1,localhost"}
    return [
        # Also: a history file in folders that do not exist yet, made on the way.
        Row("tts_offline", script(then=text_reply("<voice>Spoken words.</voice><no_tool>")),
            extra=("--prompt", "x", "--approve", "all", "--tts", "edge",
                   "--history-json", str(tmp / "tts_offline" / "new" / "deep" / "h.json")), env=offline),
        Row("approval_timeout", script(PLAN, tool_reply("run_command", {"command": f"echo never {tmp}"})),
            extra=ask, stdin_open=True),
        Row("form_timeout", script(PLAN, tool_reply("ask_user_question", FORM)),
            extra=("--prompt", "x", "--approve", "all", "--approval-timeout", "1"), stdin_open=True),
        Row("history_blocked", script(),
            extra=("--prompt", "x", "--history-json", str(tmp / "history_blocked" / "home" / "a-file" / "h.json")),
            files={"a-file": b"not a folder"}),
    ]


async def _hang_then_sigint(tmp: Path) -> Outcome:
    """An MCP call that never answers, within its timeout: SIGINT ends it."""
    name = "mcp_hang_sigint"
    scenario = Scenario(tmp, name, [PLAN, tool_reply("hang", {})], "--prompt", "x", "--approve", "all",
                        marker=str(tmp / name))
    scenario.mcp.write_text(json.dumps({"mcpServers": {"faults": _server(tmp, scenario.dir)}}))

    async def act(s: Scenario) -> None:
        await s.wait_for(event="tool_call:executing", timeout_s=100)
        async with asyncio.timeout(100):
            while not (s.dir / "hang_called").exists():  # the server has the call
                await asyncio.sleep(0.05)
        s.send(signal.SIGINT)

    return await scenario.run(act, timeout_s=110)


async def test_a_failing_service_costs_at_most_one_line_and_the_run_ends_cleanly(tmp_path: Path) -> None:
    (tmp_path / "server.py").write_text(SERVER_CODE)
    results, hang_sigint = await asyncio.gather(
        run_rows(tmp_path, [*_mcp_rows(tmp_path), *_other_rows(tmp_path)]), _hang_then_sigint(tmp_path))

    # The MCP rows: the call that failed is an error result, the model hears
    # of it and the turn ends normally.
    for name in ("mcp_crash", "mcp_hang_timeout"):
        result = results[name]
        result.check(0)
        assert result.types()[-1] == "turn_end", name
        (answer,) = _tool_answers(result)
        assert "faults" in answer, (name, answer)
        assert len(result.requests) == 3, name  # planning, the call, the answer after the error
        assert "Told you." in result.stdout, name
        (ended,) = [e for e in result.events() if e["type"] == "tool_call" and e["state"] == "result"]
        assert ended["is_error"] is True, name
    assert "exited during the call" in _tool_answers(results["mcp_crash"])[0]
    assert "gave no result" in _tool_answers(results["mcp_hang_timeout"])[0]
    starts = results["mcp_failed_starts"]
    starts.check(0, lines=2)
    assert sorted(starts.lines()) == [  # the servers start side by side
        f'warning: mcp server "missing" failed to start: command not found: {starts.folder / "no-such-command"}',
        'warning: mcp server "quitter" failed to start: the server closed the connection'], starts.stderr
    assert _tool_answers(starts) == ["echo says still here"]

    assert_clean_interrupt(hang_sigint, "mcp_hang_sigint")
    assert hang_sigint.types()[-3] == "tool_rejected"

    tts = results["tts_offline"]
    tts.check(0)
    (line,) = tts.lines()
    assert line.startswith("notice: speech failed (edge)"), line
    assert "Spoken words." in tts.stdout
    assert tts.history_path == tts.folder / "new" / "deep" / "h.json" and tts.history_path.exists()

    # Nobody answers: the call ends as timed out and, as a timeout counts as
    # a rejection (contracts §4), the turn as interrupted; exit status 0.
    for name, reason in (("approval_timeout", REASON_TIMEOUT), ("form_timeout", REASON_NO_ANSWER)):
        result = results[name]
        result.check(0, lines=0)
        assert result.types()[-3:] == ["tool_rejected", "interrupted", "turn_end"], (name, result.types())
        events = result.events()
        assert events[-3]["reason"] == reason and events[-2]["reason"] == "approval_timeout", name
        assert _tool_answers(result) == [reason], name

    blocked = results["history_blocked"]
    path = blocked.home / "a-file" / "h.json"
    assert blocked.returncode == 0, blocked.stderr
    assert "Traceback" not in blocked.stderr
    assert blocked.lines() == [f"error: cannot write history to {path}: {path.parent} is a file, not a folder"], \
        blocked.stderr
    assert blocked.types()[-1] == "turn_end"  # the events file is whole
    assert blocked.left == []

