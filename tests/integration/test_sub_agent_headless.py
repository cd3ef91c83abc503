"""The headless mode on the demo model delegating to a sub-agent (contracts
§9, §10): nested events carry the sub_agent call's id, the terminal
indents them, and ``--approve ask`` asks for each nested call."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.core.history import check_history
from desktop_agent.storage.history_json import history_items

pytestmark = pytest.mark.integration
PROMPT = "delegate: run a command"


async def headless(tmp: Path, *extra: str, stdin: bytes = b"") -> tuple[int, str, list[dict[str, Any]], list[Any]]:
    mcp = tmp / "mcp.json"
    mcp.write_text('{"mcpServers": {}}')
    events, history = tmp / "events.jsonl", tmp / "history.json"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "desktop_agent", "--cli", "--model", "demo", "--prompt", PROMPT, "--tts", "none",
        "--mcp-config", str(mcp), "--events-jsonl", str(events), "--history-json", str(history), *extra,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "DESKTOP_AGENT_HOME": str(tmp / "home")},
    )
    async with asyncio.timeout(60):
        _out, err = await proc.communicate(stdin)
    assert proc.returncode is not None
    loaded = json.loads(history.read_text())
    check_history(history_items(loaded))
    return proc.returncode, err.decode(), [json.loads(line) for line in events.read_text().splitlines()], loaded


def calls(events: list[dict[str, Any]]) -> list[tuple[str, str, str | None]]:
    return [(e["tool_name"], e["state"], e.get("parent_tool_call_id")) for e in events if e["type"] == "tool_call"]


async def test_a_demo_delegation_runs_the_nested_command_and_returns_the_answer(tmp_path: Path) -> None:
    code, err, events, history = await headless(tmp_path, "--approve", "all")

    assert code == 0, err
    parent = next(e["tool_call_id"] for e in events if e["type"] == "tool_call")
    assert calls(events) == [
        ("sub_agent", "start", None), ("sub_agent", "approval_required", None), ("sub_agent", "executing", None),
        ("run_command", "start", parent), ("run_command", "approval_required", parent),
        ("run_command", "executing", parent), ("run_command", "result", parent), ("sub_agent", "result", None),
    ]
    assert all(e.get("parent_tool_call_id") == parent for e in events if e["type"] == "tool_output")
    assert "  [tool] run_command running" in err and "  [sub-agent] " in err
    assert [c["function"]["name"] for m in history for c in m.get("tool_calls", [])] == ["sub_agent"]


async def test_approve_ask_asks_for_the_nested_call_and_a_no_ends_the_turn(tmp_path: Path) -> None:
    code, err, events, _history = await headless(tmp_path, "--approve", "ask", stdin=b"y\nn\n")

    assert code == 0, err
    assert "[approval] sub-agent wants to run run_command" in err
    assert [(e["type"], e.get("tool_name"), e.get("reason")) for e in events[-4:]] == [
        ("tool_rejected", "run_command", "The user rejected this tool call."),
        ("tool_rejected", "sub_agent", "The user rejected this tool call."),
        ("interrupted", None, "rejected"),
        ("turn_end", None, None),
    ]
    assert events[-3]["partial_result"]["stopped_call"]["tool_name"] == "run_command"
