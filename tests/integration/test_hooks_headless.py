"""Hooks in a headless run (contracts §9, §10): the data folder's hooks reach
the wire without their markers, the history file keeps the persistent ones
with ``_hook``, and a broken hook is one warning while the turn completes."""

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
from desktop_agent.testing.scripted_server import ScriptedLLMServer, text_reply, tool_reply
from desktop_agent.testing.wire_contract import wire_problems

pytestmark = pytest.mark.integration

HOOKS = [
    {"name": "be-concise", "checkpoint": "turn_start", "role": "system", "persistent": True,
     "prompt_file": "concise.md", "enabled": True},
    {"name": "summarise", "checkpoint": "after_tool_result", "role": "user", "persistent": False,
     "prompt_file": "summarise.md", "enabled": True},
    {"name": "broken", "checkpoint": "turn_end", "role": "user", "persistent": False,
     "prompt_file": "missing.md", "enabled": True},
    {"name": "off", "checkpoint": "turn_start", "role": "user", "persistent": False,
     "prompt_file": "concise.md", "enabled": False},
]


def data_hooks() -> Path:
    folder = Path(os.environ["DESKTOP_AGENT_HOME"]) / "hooks"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "hooks.json").write_text(json.dumps(HOOKS), encoding="utf-8")
    (folder / "concise.md").write_text("CONCISE-PROMPT: answer briefly.", encoding="utf-8")
    (folder / "summarise.md").write_text("SUMMARISE-PROMPT: say what the tool showed.", encoding="utf-8")
    return folder


async def test_a_headless_run_sends_hooks_on_the_wire_and_keeps_persistent_ones_in_history(tmp_path: Path) -> None:
    folder = data_hooks()
    history_path, events_path = tmp_path / "history.json", tmp_path / "events.jsonl"
    mcp = tmp_path / "mcp.json"
    mcp.write_text('{"mcpServers": {}}')
    script = [text_reply("On it.<need_tool>"), tool_reply("run_command", {"command": "echo hooked"}),
              text_reply("It printed hooked.")]
    async with ScriptedLLMServer(script) as server:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "desktop_agent", "--cli", "--base-url", server.base_url, "--model", "scripted",
            "--api-key", "k", "--tts", "none", "--mcp-config", str(mcp), "--approve", "all",
            "--prompt", "run it", "--history-json", str(history_path), "--events-jsonl", str(events_path),
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        async with asyncio.timeout(60):
            _out, err_bytes = await proc.communicate()
        requests: list[dict[str, Any]] = list(server.requests)
    err = err_bytes.decode()

    assert proc.returncode == 0, err
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    assert warnings == [f"warning: hooks file {folder / 'hooks.json'}: hook 'broken': "
                        f"prompt file {folder / 'missing.md'} is missing"]

    bodies = [json.dumps(r["messages"]) for r in requests]
    assert len(bodies) == 3
    assert all("_hook" not in body for body in bodies)
    assert all(wire_problems(r["messages"]) == [] for r in requests)
    assert all("CONCISE-PROMPT" in body for body in bodies)  # persistent: every request of the turn
    assert ["SUMMARISE-PROMPT" in body for body in bodies] == [False, False, True]
    assert requests[2]["messages"][-1] == {"role": "user", "content": "SUMMARISE-PROMPT: say what the tool showed."}

    history = json.loads(history_path.read_text())
    check_history(history_items(history))
    assert history[:2] == [
        {"role": "user", "content": "run it"},
        {"role": "system", "content": "CONCISE-PROMPT: answer briefly.", "_hook": "be-concise"},
    ]
    assert [m for m in history if "_hook" in m or "_hook_once" in m] == [history[1]]
    events = events_path.read_text()
    assert "PROMPT" not in events and events.splitlines()[-1].startswith('{"type": "turn_end"')


async def test_the_demo_model_answers_the_user_not_a_user_role_hook(tmp_path: Path) -> None:
    folder = Path(os.environ["DESKTOP_AGENT_HOME"]) / "hooks"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "hooks.json").write_text(json.dumps([
        {"name": "rules", "checkpoint": "turn_start", "role": "user", "persistent": True,
         "prompt_file": "rules.md", "enabled": True}]), encoding="utf-8")
    (folder / "rules.md").write_text("HOUSE-RULES", encoding="utf-8")
    history_path = tmp_path / "h.json"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "desktop_agent", "--cli", "--model", "demo", "--prompt", "hi", "--tts", "none",
        "--history-json", str(history_path),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    async with asyncio.timeout(60):
        out, err = await proc.communicate()

    assert proc.returncode == 0, err.decode()
    assert "You said: hi." in out.decode() and "HOUSE-RULES" not in out.decode()
    history = json.loads(history_path.read_text())
    assert history[1] == {"role": "user", "content": "HOUSE-RULES", "_hook": "rules"}
