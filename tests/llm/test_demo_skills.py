"""The demo model and skills (contracts §9): it reads a skill the user names
with get_skill, then follows it; ``/skill-name`` needs no get_skill."""

from __future__ import annotations

import json
from typing import Any

from desktop_agent.core import prompts
from desktop_agent.core.ports import TextDelta, ToolCallDelta
from desktop_agent.llm.demo import DemoModel
from desktop_agent.skills_engine import SkillLibrary

TOOLS = [{"type": "function", "function": {"name": n, "parameters": {}}}
         for n in ("run_command", "show_card", "ask_user_question", "get_current_time", "get_skill")]
NOW = json.dumps({"timezone": "UTC", "datetime": "2026-03-03T08:15:00+00:00", "day_of_week": "Tuesday",
                  "is_dst": False})


async def reply(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = TOOLS) -> tuple[str, str, Any]:
    text, calls = "", []
    async for delta in DemoModel().stream(messages, tools=tools):
        if isinstance(delta, TextDelta):
            text += delta.text
        else:
            assert isinstance(delta, ToolCallDelta)
            calls.append(delta)
    if not calls:
        return text, "", None
    return text, str(calls[0].name), json.loads("".join(c.arguments for c in calls))


def turn(user: str) -> list[dict[str, Any]]:
    library = SkillLibrary.load()
    messages: list[dict[str, Any]] = [{"role": "system", "content": "main"},
                                      {"role": "system", "content": library.catalogue()},
                                      {"role": "user", "content": user}]
    block = library.invoked(user)
    if block is not None:
        messages.append({"role": "system", "content": block})
    return messages


def answered(messages: list[dict[str, Any]], content: str) -> list[dict[str, Any]]:
    return [*messages, {"role": "assistant", "content": None, "tool_calls": []},
            {"role": "tool", "tool_call_id": "x", "content": content}]


async def test_naming_a_skill_plans_a_tool_round_and_reads_the_skill_first() -> None:
    messages = turn("give me my daily briefing")
    planning, _name, _args = await reply([*messages, {"role": "system", "content": prompts.PLANNING_PROMPT}], None)
    assert planning.endswith("<need_tool>")
    _text, name, args = await reply(messages)
    assert (name, args) == ("get_skill", {"name": "daily-briefing"})


async def test_it_then_follows_the_daily_briefing_skill() -> None:
    messages = answered(turn("daily briefing"), "<skill name=\"daily-briefing\">…</skill>")
    _text, name, args = await reply(messages)
    assert (name, args) == ("get_current_time", {"timezone": "UTC"})
    messages = answered(messages, NOW)
    _text, name, args = await reply(messages)
    assert name == "show_card"
    assert args["title"] == "Daily briefing — Tuesday"
    assert args["body"] == "Good morning! 4 days until the weekend."
    assert args["fields"] == [{"label": "Day", "value": "Tuesday"}, {"label": "Date", "value": "2026-03-03"},
                              {"label": "Time", "value": "08:15 UTC"}]
    final, name, _args = await reply(answered(messages, "Card shown."))
    assert name == "" and final == "<voice>Hello! Today is Tuesday; your briefing card is above.</voice>"


async def test_slash_skill_name_skips_get_skill() -> None:
    text, name, args = await reply(turn("/explain-command `rm -rf build`"))
    assert (name, args) == ("run_command", {"command": "rm -rf build"})
    assert "- `rm` — the program that runs" in text and "**changes files**" in text


async def test_without_a_catalogue_the_demo_ignores_skill_names() -> None:
    _text, name, _args = await reply([{"role": "user", "content": "daily briefing"}])
    assert name == ""
