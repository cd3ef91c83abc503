"""benchmarks/skills_trigger.py, run as a script against the scripted server:
it sends the catalogue, stops at the first get_skill call and scores
precision and recall."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.core import prompts
from desktop_agent.testing.scripted_replies import Reply
from desktop_agent.testing.scripted_server import ScriptedLLMServer, text_reply, tool_reply

pytestmark = pytest.mark.integration

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "skills_trigger.py"
CASES = [
    {"prompt": "daily briefing please", "skill": "daily-briefing"},       # right
    {"prompt": "explain `ls -la`", "skill": "explain-command"},           # wrong skill called
    {"prompt": "answer in Chinese and English", "skill": "bilingual-reply"},  # no call
    {"prompt": "what is 2+2?", "skill": None},                            # right: no call
    {"prompt": "tell me a joke", "skill": None},                          # a call that should not be
]
CHOICE = {"daily": "daily-briefing", "explain": "daily-briefing", "joke": "bilingual-reply"}


def model(request: dict[str, Any]) -> Reply:
    """Plans a tool round, then calls get_skill by keyword — with mistakes."""
    messages = request["messages"]
    # On the wire the catalogue is folded into the one leading system message (contracts §2a).
    assert messages[0]["role"] == "system" and "\n\n# Skills\n" in messages[0]["content"]
    user = next(m["content"] for m in messages if m["role"] == "user")
    if request.get("tool_choice") == "none":  # the planning round (contracts §2a)
        assert prompts.PLANNING_PROMPT in user
        return text_reply("Let me see.<need_tool>")
    for word, skill in CHOICE.items():
        if word in user:
            return tool_reply("get_skill", {"name": skill})
    return text_reply("Here is the answer.")


async def test_the_benchmark_reports_precision_and_recall(tmp_path: Path) -> None:
    cases, results = tmp_path / "cases.json", tmp_path / "results.json"
    cases.write_text(json.dumps(CASES))
    async with ScriptedLLMServer(model) as server:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, str(SCRIPT), "--base-url", server.base_url, "--model", "scripted",
            "--api-key", "k", "--cases", str(cases), "--json", str(results),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )
        async with asyncio.timeout(60):
            out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    data = json.loads(results.read_text())
    assert [(o["expected"], o["called"]) for o in data["outcomes"]] == [
        ("daily-briefing", "daily-briefing"),
        ("explain-command", "daily-briefing"),
        ("bilingual-reply", None),
        (None, None),
        (None, "bilingual-reply"),
    ]
    assert data["scores"] == {"cases": 5, "true_positives": 1, "get_skill_calls": 3, "expected_calls": 3,
                              "precision": 1 / 3, "recall": 1 / 3, "errors": 0}
    assert out.decode().splitlines()[-1] == (
        "precision 0.33  recall 0.33  (1 right of 3 get_skill calls, 3 expected; 0 errors)"
    )
