"""``desktop-agent --self-test`` from source, as a user runs it (a
subprocess): one line per check, exit 0 when all hold, 1 when one fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_agent.self_test import CheckResult, _time_result

pytestmark = pytest.mark.integration
CHECKS = ["mcp", "window", "audio", "espeak-ng", "piper", "speech input", "translations"]


def run_self_test(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(tmp_path / "home")}
    return subprocess.run([sys.executable, "-m", "desktop_agent", "--self-test", *extra], env=env,
                          capture_output=True, text=True, timeout=150, check=False)


def checks(stdout: str) -> list[tuple[str, str]]:
    """(status, check name) of every line."""
    return [(line[:4].strip(), line[5:].split(":", 1)[0]) for line in stdout.splitlines()]


def test_self_test_passes_every_check_one_line_each(tmp_path: Path) -> None:
    done = run_self_test(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert checks(done.stdout) == [("ok", name) for name in CHECKS]


def test_a_time_server_that_cannot_start_fails_the_mcp_check_and_the_exit_status(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"time": {"command": str(tmp_path / "no-such-server")}}}))
    done = run_self_test(tmp_path, "--mcp-config", str(config))
    assert done.returncode == 1, done.stdout + done.stderr
    assert checks(done.stdout) == [("FAIL", "mcp"), *(("ok", name) for name in CHECKS[1:])]


def test_the_time_is_read_only_from_a_successful_get_current_time_result(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    result = {"type": "tool_call", "state": "result", "tool_name": "get_current_time"}
    lines = [
        {**result, "is_error": True, "result": json.dumps({"datetime": "wrong"})},
        {**result, "tool_name": "other", "result": json.dumps({"datetime": "wrong"})},
        {**result, "result": "not json"},
        {**result, "result": json.dumps({"datetime": "2026-01-01T00:00:00+00:00"})},
    ]
    events.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert _time_result(events) == "2026-01-01T00:00:00+00:00"
    assert _time_result(tmp_path / "missing.jsonl") is None


def test_a_check_line_says_its_status_name_and_what_was_seen() -> None:
    assert CheckResult("audio", True, "backend ffmpeg").line() == "ok   audio: backend ffmpeg"
    assert CheckResult("mcp", False, "no time").line() == "FAIL mcp: no time"
