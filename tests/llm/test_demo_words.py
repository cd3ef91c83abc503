"""The demo model reads its tool results back in words: a
sentence in the user's language for each built-in tool, never raw JSON."""

from __future__ import annotations

import json

from desktop_agent.core.ports import TextDelta
from desktop_agent.llm.demo import DemoModel
from desktop_agent.llm.demo_words import Reading, read_result

TIME = json.dumps({"timezone": "UTC", "datetime": "2026-11-30T20:21:07+00:00", "day_of_week": "Monday",
                   "is_dst": False}, indent=2)
TOOLS = [{"type": "function", "function": {"name": n, "parameters": {}}}
         for n in ("get_current_time", "run_command", "show_card", "ask_user_question")]


async def final_reply(user: str, results: list[str]) -> str:
    """The demo's last reply after its plan's calls got ``results``, in order."""
    messages: list[dict[str, object]] = [{"role": "user", "content": user}]
    for result in results:
        calls = []
        async for delta in DemoModel().stream(messages, tools=TOOLS):
            if not isinstance(delta, TextDelta):
                calls.append(delta)
        name = next(c.name for c in calls if c.name)
        arguments = "".join(c.arguments for c in calls)
        messages += [{"role": "assistant", "content": "", "tool_calls": [
                         {"id": f"c{len(messages)}", "type": "function",
                          "function": {"name": name, "arguments": arguments}}]},
                     {"role": "tool", "tool_call_id": f"c{len(messages)}", "content": result}]
    text = ""
    async for delta in DemoModel().stream(messages, tools=TOOLS):
        assert isinstance(delta, TextDelta)
        text += delta.text
    return text


async def test_the_time_is_said_as_a_sentence_in_english_and_chinese() -> None:
    assert await final_reply("what time is it", [TIME]) == "<voice>It is 20:21 UTC, Monday.</voice>"
    assert await final_reply("现在几点", [TIME]) == "<voice>现在是 UTC 20:21，星期一。</voice>"


async def test_the_tour_reads_every_result_as_a_person_would() -> None:
    results = [TIME, "exit code 0\n--- stdout ---\nMon Nov 30 20:21:07 UTC 2026", "Card shown.",
               json.dumps({"answers": {"name": "Ann", "color": "green"}})]
    assert await final_reply("demo", results) == (
        "<voice>It is 20:21 UTC, Monday. `date` printed: Mon Nov 30 20:21:07 UTC 2026. "
        "The card is shown above. Nice to meet you, Ann! Green is a fine colour.</voice>"
    )
    zh = ["exit code 0\n--- stdout ---\n2026年 11月 30日", "Card shown.", "The user declined to answer the form."]
    assert await final_reply("演示", [TIME, *zh]) == (
        "<voice>现在是 UTC 20:21，星期一。`date` 输出：2026年 11月 30日。卡片已经显示在上面。你跳过了这些问题，没关系。</voice>"
    )


def test_a_long_output_is_quoted_by_its_first_lines_and_never_spoken() -> None:
    output = "\n".join(f"line {i}" for i in range(1, 9))
    reading = read_result("run_command", {"command": "ls"}, f"exit code 0\n--- stdout ---\n{output}", zh=False)
    assert reading == Reading("`ls` printed 8 lines; the first 5:",
                              "```\nline 1\nline 2\nline 3\nline 4\nline 5\n```")


def test_failures_say_what_went_wrong() -> None:
    failed = "exit code 2\n--- stderr ---\nls: cannot access 'x': No such file or directory"
    assert read_result("run_command", {"command": "ls x"}, failed, zh=False).sentence == (
        "`ls x` failed (exit code 2): ls: cannot access 'x': No such file or directory."
    )
    assert read_result("run_command", {"command": "true"}, "exit code 0\n(no output)", zh=True).sentence == (
        "`true` 运行成功，没有输出。"
    )
    assert read_result("get_current_time", {}, "Error: unknown timezone", zh=False).sentence == (
        "get_current_time did not work: unknown timezone."
    )


async def test_nothing_in_the_reply_is_json() -> None:
    text = await final_reply("what time is it", [TIME])
    assert "{" not in text and "datetime" not in text
