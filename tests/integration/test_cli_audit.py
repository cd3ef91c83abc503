"""``--audit-log PATH`` (contracts §10) from a real headless run
against the scripted server: every approval decision is one JSON line, the
same record the data folder's ``approvals.jsonl`` gets."""

from __future__ import annotations

import json
import stat
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from desktop_agent.core.audit import ApprovalRecord, arguments_sha256
from desktop_agent.testing.headless_run import read_jsonl, run_cli
from desktop_agent.testing.scripted_server import ScriptedLLMServer, text_reply, tool_reply

pytestmark = pytest.mark.integration
PLAN = text_reply("<voice>On it.</voice><need_tool>")
COMMAND = {"command": "echo audited"}


@pytest.fixture
async def server() -> AsyncIterator[ScriptedLLMServer]:
    async with ScriptedLLMServer([]) as srv:
        yield srv


async def headless(tmp: Path, server: ScriptedLLMServer, *extra: str, stdin: bytes = b"") -> tuple[int, str]:
    mcp = tmp / "mcp.json"
    mcp.write_text('{"mcpServers": {}}')
    return await run_cli(
        tmp / "home", "--base-url", server.base_url, "--model", "scripted",
        "--api-key", "k", "--tts", "none", "--mcp-config", str(mcp), "--prompt", "run it", *extra,
        stdin=stdin, timeout_s=60,
    )



async def test_approve_all_writes_one_valid_json_line_per_decision(tmp_path: Path, server: ScriptedLLMServer) -> None:
    audit = tmp_path / "out" / "audit.jsonl"
    server.set_script([PLAN, tool_reply("run_command", COMMAND), text_reply("It said audited.")])

    code, err = await headless(tmp_path, server, "--approve", "all", "--audit-log", str(audit))

    assert code == 0, err
    (entry,) = read_jsonl(audit)
    record = ApprovalRecord.from_json(entry)  # a whole, valid record
    assert {k: v for k, v in entry.items() if k not in ("time", "session_id", "conversation_id", "waited_s")} == {
        "tool_call_id": record.tool_call_id,
        "tool_name": "run_command",
        "server": None,
        "arguments_preview": json.dumps(COMMAND),
        "arguments_sha256": arguments_sha256(COMMAND),
        "decision": "approved",
        "decided_by": "headless_flag",
        "parent_tool_call_ids": [],
        "hints": ["read_only", "idempotent"],  # the hints of this command (echo), not of any command
    }
    assert record.conversation_id and record.waited_s >= 0
    # The data folder keeps the same record, privately.
    kept = tmp_path / "home" / "approvals.jsonl"
    assert read_jsonl(kept) == [entry]
    if sys.platform != "win32":
        assert stat.S_IMODE(kept.stat().st_mode) == 0o600


async def test_rejections_by_flag_and_by_the_terminal_are_appended(tmp_path: Path, server: ScriptedLLMServer) -> None:
    audit = tmp_path / "audit.jsonl"
    server.set_script([PLAN, tool_reply("run_command", COMMAND)])
    code, err = await headless(tmp_path, server, "--approve", "none", "--audit-log", str(audit))
    assert code == 0, err
    server.set_script([PLAN, tool_reply("run_command", COMMAND)])
    code, err = await headless(tmp_path, server, "--approve", "ask", "--audit-log", str(audit), stdin=b"n\n")
    assert code == 0, err

    assert [(e["tool_name"], e["decision"], e["decided_by"]) for e in read_jsonl(audit)] == [
        ("run_command", "rejected", "headless_flag"),
        ("run_command", "rejected", "user"),
    ]


async def test_an_audit_log_that_cannot_be_written_is_a_one_line_error(tmp_path: Path, server: ScriptedLLMServer) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")

    code, err = await headless(tmp_path, server, "--audit-log", str(blocker / "audit.jsonl"))

    assert code == 2
    assert err.strip().splitlines() == [f"error: cannot write the audit log {blocker / 'audit.jsonl'}: Not a directory"]
