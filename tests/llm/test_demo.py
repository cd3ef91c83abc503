"""The offline demo model: planning tags, language, real tool calls."""

from __future__ import annotations

import json

import pytest

from desktop_agent.core import prompts
from desktop_agent.core.ports import TextDelta, ToolCallDelta
from desktop_agent.llm.demo import DemoModel
from desktop_agent.texts import Language, text_in
from desktop_agent.ui.shell.welcome import PROMPT_KEYS

TOOLS: list[dict[str, object]] = [{"type": "function", "function": {"name": n, "parameters": {}}}
         for n in ("run_command", "show_card", "ask_user_question", "get_current_time")]


async def reply(messages: list[dict[str, object]], tools: list[dict[str, object]] | None = None) -> tuple[str, list[ToolCallDelta]]:
    text, calls = "", []
    async for delta in DemoModel().stream(messages, tools=tools):
        if isinstance(delta, TextDelta):
            text += delta.text
        else:
            calls.append(delta)
    return text, calls


async def test_planning_round_uses_voice_and_an_intent_tag_in_the_users_language() -> None:
    en, _ = await reply([{"role": "user", "content": "hello"}, {"role": "system", "content": prompts.PLANNING_PROMPT}])
    zh, _ = await reply([{"role": "user", "content": "请运行命令"}, {"role": "system", "content": prompts.PLANNING_PROMPT}])
    assert en.endswith("<no_tool>") and "<voice>" in en
    assert zh.endswith("<need_tool>") and "好的" in zh


async def test_tool_round_calls_run_command_then_summarises() -> None:
    messages: list[dict[str, object]] = [{"role": "user", "content": "run a command"}]
    text, calls = await reply(messages, TOOLS)
    assert calls[0].name == "run_command" and calls[0].id
    args = "".join(c.arguments for c in calls)
    assert args == '{"command": "date"}'
    call = {"id": calls[0].id, "type": "function", "function": {"name": "run_command", "arguments": args}}
    messages += [{"role": "assistant", "content": text, "tool_calls": [call]},
                 {"role": "tool", "tool_call_id": calls[0].id, "content": "exit code 0\n--- stdout ---\nMon"}]
    final, more = await reply(messages, TOOLS)
    assert (more, final) == ([], "<voice>`date` printed: Mon.</voice>")


async def test_demo_tour_uses_every_builtin_and_the_time_server() -> None:
    messages: list[dict[str, object]] = [{"role": "user", "content": "demo"}]
    names = []
    for _ in range(5):
        _text, calls = await reply(messages, TOOLS)
        if not calls:
            break
        names.append(calls[0].name)
        messages.append({"role": "tool", "tool_call_id": calls[0].id, "content": "ok"})
    assert names == ["get_current_time", "run_command", "show_card", "ask_user_question"]


async def turn_calls(user: str) -> list[tuple[str, dict[str, object]]]:
    """Every tool call of one turn on ``user``, each answered with ``ok``."""
    messages: list[dict[str, object]] = [{"role": "user", "content": user}]
    made: list[tuple[str, dict[str, object]]] = []
    for _ in range(6):
        _text, calls = await reply(messages, TOOLS)
        if not calls:
            return made
        assert calls[0].name is not None
        made.append((calls[0].name, json.loads("".join(c.arguments for c in calls))))
        messages.append({"role": "tool", "tool_call_id": calls[0].id, "content": "ok"})
    raise AssertionError(f"the turn on {user!r} did not end: {made}")


WELCOME_TOOLS = {
    "welcome_prompt_tour": ["get_current_time", "run_command", "show_card", "ask_user_question"],
    "welcome_prompt_time": ["get_current_time"],
    "welcome_prompt_date": ["run_command"],
    "welcome_prompt_ask": ["ask_user_question"],
}


def test_every_welcome_prompt_has_an_expected_plan() -> None:
    assert set(WELCOME_TOOLS) == set(PROMPT_KEYS)


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("key", PROMPT_KEYS)
async def test_each_welcome_prompt_calls_just_the_tools_it_names(key: str, language: Language) -> None:
    calls = await turn_calls(text_in(language, key))
    assert [name for name, _args in calls] == WELCOME_TOOLS[key]


@pytest.mark.parametrize("language", ["en", "zh"])
async def test_run_date_runs_the_command_without_asking_the_time_first(language: Language) -> None:
    assert await turn_calls(text_in(language, "welcome_prompt_date")) == [("run_command", {"command": "date"})]


async def test_a_command_in_backticks_is_the_one_run() -> None:
    assert await turn_calls("please run `uname -a`") == [("run_command", {"command": "uname -a"})]


async def test_time_words_without_a_run_request_still_ask_the_time_server() -> None:
    assert [name for name, _ in await turn_calls("what's the date today?")] == ["get_current_time"]


async def test_a_tool_that_joins_mid_turn_is_called_then_and_nothing_done_is_called_again() -> None:
    # The time server finished starting after the tour's first request
    # (a quick click on "Take the tour"): its step comes next, once.
    messages: list[dict[str, object]] = [{"role": "user", "content": "demo"}]
    without_time = [t for t in TOOLS if t["function"] != {"name": "get_current_time", "parameters": {}}]
    names = []
    for round_index in range(6):
        text, calls = await reply(messages, without_time if round_index == 0 else TOOLS)
        if not calls:
            break
        name, args = calls[0].name, "".join(c.arguments for c in calls)
        names.append(name)
        call = {"id": calls[0].id, "type": "function", "function": {"name": name, "arguments": args}}
        messages += [{"role": "assistant", "content": text, "tool_calls": [call]},
                     {"role": "tool", "tool_call_id": calls[0].id, "content": "ok"}]
    assert names == ["run_command", "get_current_time", "show_card", "ask_user_question"]
