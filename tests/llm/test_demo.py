"""The offline demo model: planning tags, language, real tool calls."""

from __future__ import annotations

from desktop_agent.core import prompts
from desktop_agent.core.ports import TextDelta, ToolCallDelta
from desktop_agent.llm.demo import DemoModel

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
