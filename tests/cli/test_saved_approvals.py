"""A headless run honours the window's standing answers under ``--approve
ask`` and ``voice`` (always-allow entries, command rules, trusted read-only
servers); ``all`` and ``none`` are the whole policy. The headless run itself
in a process of its own, reading the settings the window wrote."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from desktop_agent.cli.saved_approvals import SavedApprovals
from desktop_agent.core.messages import ToolCallMessage
from desktop_agent.core.risk import ToolAnnotations
from desktop_agent.storage.settings import Settings
from desktop_agent.testing import everything
from desktop_agent.testing.headless_run import read_jsonl, run_cli
from desktop_agent.testing.scripted_server import ScriptedLLMServer, text_reply, tool_reply

READ_ONLY = ToolAnnotations(read_only=True)
SETTINGS = Settings(
    always_allow=("builtin/run_command:git status", "sampling:everything", "everything/add"),
    trusted_read_only_servers=("time",),
)


def saved(approve: str) -> SavedApprovals:
    servers = {"get_current_time": "time", "add": "everything", "list_files": "files"}
    return SavedApprovals(approve, lambda: SETTINGS, servers.get, lambda name: READ_ONLY)


def command(text: str) -> ToolCallMessage:
    return ToolCallMessage("approval_required", "c1", "run_command", {"command": text}, task_id="t1")


def test_ask_honours_entries_rules_and_trusted_servers() -> None:
    policy = saved("ask")
    assert [policy.auto(s) for s in ("add", "get_current_time", "list_files", "sampling:everything")] == [
        "always_allow", "read_only_setting", None, "always_allow",
    ]
    assert policy.call(command("git status -s")) == "always_allow"
    assert policy.call(command("git status; rm -rf ~")) is None
    assert saved("voice").call(command("git status")) == "always_allow"


def test_the_all_and_none_flags_are_the_whole_policy() -> None:
    assert saved("all").auto("list_files") == "headless_flag"
    assert saved("all").call(command("rm -rf ~")) is None  # the name already answered it
    assert saved("none").auto("add") is None
    assert saved("none").call(command("git status")) is None


PLAN = text_reply("<voice>On it.</voice><need_tool>")


@pytest.fixture
async def server() -> AsyncIterator[ScriptedLLMServer]:
    async with ScriptedLLMServer([]) as srv:
        yield srv


@pytest.mark.integration
async def test_a_headless_run_answers_what_a_saved_command_rule_covers_and_asks_the_rest(
    tmp_path: Path, server: ScriptedLLMServer
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"always_allow": ["builtin/run_command:echo"]}))
    mcp = tmp_path / "mcp.json"
    mcp.write_text('{"mcpServers": {}}')
    audit = tmp_path / "audit.jsonl"

    async def run(command: str, stdin: bytes) -> tuple[int, str]:
        server.set_script([PLAN, tool_reply("run_command", {"command": command}), text_reply("Done.")])
        return await run_cli(
            home, "--base-url", server.base_url, "--model", "scripted", "--api-key", "k", "--tts", "none",
            "--mcp-config", str(mcp), "--prompt", "run it", "--approve", "ask", "--audit-log", str(audit),
            stdin=stdin, timeout_s=60,
        )

    code, err = await run("echo covered", b"")  # nothing typed: the rule answers
    assert code == 0, err
    assert "[tool] run_command auto-approved" in err and "Approve?" not in err
    code, err = await run("echo covered; rm -f /nonexistent-file-for-this-test", b"n\n")
    assert code == 0, err
    assert "Approve?" in err  # the chained part is not covered: asked

    assert [(e["decision"], e["decided_by"]) for e in read_jsonl(audit)] == [
        ("approved", "always_allow"), ("rejected", "user"),
    ]


@pytest.mark.integration
@pytest.mark.npm
async def test_a_headless_run_answers_a_trusted_servers_read_only_tool(
    tmp_path: Path, server: ScriptedLLMServer
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"trusted_read_only_servers": ["everything"]}))
    mcp = tmp_path / "mcp.json"
    entry = {"command": "node", "args": [str(everything.everything_js()), "stdio"]}
    mcp.write_text(json.dumps({"mcpServers": {"everything": entry}}))
    audit = tmp_path / "audit.jsonl"
    server.set_script([PLAN, tool_reply("echo", {"message": "hi"}), text_reply("It said hi.")])

    code, err = await run_cli(
        home, "--base-url", server.base_url, "--model", "scripted", "--api-key", "k", "--tts", "none",
        "--mcp-config", str(mcp), "--prompt", "echo hi", "--approve", "ask", "--audit-log", str(audit),
        stdin=b"", timeout_s=90,
    )

    assert code == 0, err
    assert "[tool] echo auto-approved (read-only, allowed by your setting)" in err and "Approve?" not in err
    assert [(e["tool_name"], e["decided_by"]) for e in read_jsonl(audit)] == [("echo", "read_only_setting")]
