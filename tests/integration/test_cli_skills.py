"""Headless skills (contracts §9, §10): ``--skills all|none|NAME[,NAME…]`` and
the demo model following a bundled skill end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration


def headless(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    events = tmp_path / "events.jsonl"
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(tmp_path / "home")}
    mcp = tmp_path / "mcp.json"
    mcp.write_text('{"mcpServers": {}}')
    proc = subprocess.run(
        [sys.executable, "-m", "desktop_agent", "--cli", "--model", "demo", "--approve", "all", "--tts", "none",
         "--mcp-config", str(mcp), "--events-jsonl", str(events), *args],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, env=env, check=False,
    )
    lines = events.read_text().splitlines() if events.exists() else []
    return proc, [json.loads(line) for line in lines]


def calls(events: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """The tool calls that ran: (name, arguments)."""
    return [(e["tool_name"], e["arguments"]) for e in events
            if e["type"] == "tool_call" and e["state"] == "executing"]


def test_the_demo_reads_and_follows_a_named_skill(tmp_path: Path) -> None:
    proc, events = headless(tmp_path, "--skills", "all", "--prompt", "daily briefing")
    assert proc.returncode == 0, proc.stderr
    assert [name for name, _args in calls(events)] == ["get_skill", "show_card"]  # no time server here
    result = next(e for e in events if e.get("state") == "result" and e["tool_name"] == "get_skill")
    assert result["is_error"] is False and "# Daily briefing" in result["result"]
    assert any(e["type"] == "card" for e in events)


def test_skills_none_offers_no_skill(tmp_path: Path) -> None:
    proc, events = headless(tmp_path, "--skills", "none", "--prompt", "daily briefing")
    assert proc.returncode == 0, proc.stderr
    assert calls(events) == []


def test_skills_names_enable_only_those(tmp_path: Path) -> None:
    proc, events = headless(tmp_path, "--skills", "explain-command,nope", "--prompt", "daily briefing")
    assert proc.returncode == 0, proc.stderr
    assert "warning: --skills: no skill is named 'nope'" in proc.stderr
    assert calls(events) == []  # daily-briefing is not enabled


def test_without_the_flag_the_setting_decides(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"enabled_skills": ["bilingual-reply"]}))
    proc, events = headless(tmp_path, "--prompt", "daily briefing")
    assert proc.returncode == 0, proc.stderr
    assert calls(events) == []
    proc, events = headless(tmp_path, "--prompt", "a bilingual reply please")
    assert [name for name, _args in calls(events)] == ["get_skill"]


def test_a_broken_user_skill_is_one_warning_and_the_others_still_work(tmp_path: Path) -> None:
    broken = tmp_path / "home" / "skills" / "broken"
    broken.mkdir(parents=True)
    (broken / "SKILL.md").write_text("---\nname: broken\n---\nbody\n")
    proc, events = headless(tmp_path, "--prompt", "daily briefing")
    assert proc.returncode == 0, proc.stderr
    assert [line for line in proc.stderr.splitlines() if "broken" in line] == [
        f"warning: skill {broken / 'SKILL.md'}: description is missing; the skill is skipped"
    ]
    assert [name for name, _args in calls(events)][:1] == ["get_skill"]


def test_an_empty_skills_flag_is_a_configuration_error(tmp_path: Path) -> None:
    proc, _events = headless(tmp_path, "--skills", ",", "--prompt", "hi")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == "error: --skills must be all, none or NAME[,NAME...]"
