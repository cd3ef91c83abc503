"""The terminal's approval prompt: y approves, n rejects, and the end of
standard input is nobody's answer (the turn is interrupted, the call not run)."""

from __future__ import annotations

import asyncio
import io
import json
import os
import sys
from pathlib import Path
from typing import Any, cast

import pytest

from desktop_agent.cli import TerminalIO
from desktop_agent.cli.view import NO_ANSWER, TerminalView
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.forms import FormManager
from desktop_agent.core.risk import ToolAnnotations
from desktop_agent.testing.window_rig import tool_item


class FakeConversation:
    """Records what the view answered: an approval or an interrupt."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, ...]] = []
        self.answered = asyncio.Event()

    def answer_approval(self, task_id: str, approved: bool, *, by: str = "user") -> bool:
        self.calls.append(("answer", task_id, str(approved), by))
        self.answered.set()
        return True

    def interrupt(self) -> bool:
        self.calls.append(("interrupt",))
        self.answered.set()
        return True


async def ask(
    stdin: str, tool: str = "run_command", server: str | None = None, annotations: ToolAnnotations | None = None
) -> tuple[list[tuple[str, ...]], str]:
    err = io.StringIO()
    view = TerminalView(TerminalIO(io.StringIO(stdin), err), FormManager(), "ask", io.StringIO(), err,
                        server_of={tool: server}.get, annotations_of={tool: annotations}.get)
    conversation = FakeConversation()
    view.conversation = cast(Conversation, conversation)
    view.approval_needed(tool_item("approval_required", "c1", tool, {"command": "date"}, task_id="t1"))
    async with asyncio.timeout(5):
        await conversation.answered.wait()
    return conversation.calls, err.getvalue()


async def test_the_end_of_input_at_the_prompt_interrupts_with_one_line_saying_why() -> None:
    calls, err = await ask("")
    assert calls == [("interrupt",)]
    assert err.splitlines() == [
        '[approval] run_command (built-in) {"command": "date"}',
        "Approve? [y/N] ",
        f"[approval] {NO_ANSWER.format(tool='run_command')}",
    ]
    assert "--approve all" in err and "reject" not in err


@pytest.mark.parametrize(
    ("server", "annotations", "origin"),
    [
        ("evil", ToolAnnotations(destructive=True, open_world=True),
         '(MCP server "evil"; may change or delete data · reaches outside this computer)'),
        ("files", ToolAnnotations(read_only=True), '(MCP server "files")'),
        ("web", ToolAnnotations(open_world=True), '(MCP server "web"; reaches outside this computer)'),
        ('say "hi"\n', None, '(MCP server "say \\"hi\\"\\n")'),
        (None, ToolAnnotations(destructive=True), "(built-in; may change or delete data)"),
    ],
)
async def test_the_approval_line_names_who_offers_the_tool_and_its_risk(
    server: str | None, annotations: ToolAnnotations | None, origin: str
) -> None:
    _, err = await ask("y\n", "Run_Command", server, annotations)
    assert err.splitlines()[0] == f'[approval] Run_Command {origin} {{"command": "date"}}'


async def test_typing_n_rejects_and_y_approves() -> None:
    assert (await ask("n\n"))[0] == [("answer", "t1", "False", "user")]
    assert (await ask("yes\n"))[0] == [("answer", "t1", "True", "user")]


# ------------------------------------------------- the real headless run


async def headless(tmp: Path, stdin: bytes) -> tuple[int, str, list[dict[str, Any]]]:
    """One demo turn asking to run ``echo approved`` (needs approval), with ``stdin``."""
    mcp = tmp / "mcp.json"
    mcp.write_text('{"mcpServers": {}}')
    home = tmp / "home"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "desktop_agent", "--cli", "--model", "demo", "--tts", "none",
        "--mcp-config", str(mcp), "--prompt", "Run `echo approved`",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        env={**os.environ, "DESKTOP_AGENT_HOME": str(home)},
    )
    async with asyncio.timeout(60):
        out, _ = await proc.communicate(stdin)
    assert proc.returncode is not None
    audit = home / "approvals.jsonl"
    records = [json.loads(line) for line in audit.read_text().splitlines()] if audit.exists() else []
    return proc.returncode, out.decode(), records


def decisions(records: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    return [(r["tool_name"], r["decision"], r["decided_by"]) for r in records]


@pytest.mark.integration
async def test_headless_end_of_input_records_an_interrupt_not_a_rejection(tmp_path: Path) -> None:
    code, out, records = await headless(tmp_path, b"")
    assert code == 0, out
    assert decisions(records) == [("run_command", "interrupted", "interrupt")]
    assert f"[approval] {NO_ANSWER.format(tool='run_command')}" in out.splitlines()
    assert "rejected" not in out and "approved" not in out.replace("echo approved", "")


@pytest.mark.integration
async def test_headless_n_records_the_user_s_rejection(tmp_path: Path) -> None:
    code, out, records = await headless(tmp_path, b"n\n")
    assert code == 0, out
    assert decisions(records) == [("run_command", "rejected", "user")]
    assert "The user rejected this tool call." in out and "No answer" not in out


@pytest.mark.integration
async def test_headless_y_approves_and_runs_the_command(tmp_path: Path) -> None:
    code, out, records = await headless(tmp_path, b"y\n")
    assert code == 0, out
    assert decisions(records) == [("run_command", "approved", "user")]
    assert "[tool] run_command done: exit code 0 --- stdout --- approved" in out
