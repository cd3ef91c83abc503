"""How the demo model reads its tool results back to the user: in words, the
way a person would ("It is 20:21 UTC, Monday."), never the raw JSON or the
``exit code 0 / --- stdout ---`` text the tools hand the model.

It reads only what a real model reads: the turn's assistant ``tool_calls``
(which tool, which arguments) and the ``tool`` messages answering them.
Each reading is a short sentence (spoken) and, for command output worth
seeing, a quote of its first lines (shown, not spoken).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

QUOTED_LINES = 5
"""A command's output is quoted up to this many lines."""
_WEEKDAYS_ZH = {
    "Monday": "星期一", "Tuesday": "星期二", "Wednesday": "星期三", "Thursday": "星期四",
    "Friday": "星期五", "Saturday": "星期六", "Sunday": "星期日",
}
_ERROR = "Error: "
_STOPS = (".", "!", "?", "。", "！", "？")
_EXIT = re.compile(r"^exit code (-?\d+)$")


@dataclass(frozen=True, slots=True)
class Reading:
    """One tool result, said in words."""

    sentence: str
    """What the reply says (and speaks) about it."""
    quote: str | None = None
    """Lines worth showing as they are (a command's output); never spoken."""


def read_results(turn: Sequence[Mapping[str, Any]], zh: bool) -> list[Reading]:
    """One reading per ``tool`` message of ``turn`` (the messages after the
    user's), in order, naming each by the call it answers."""
    calls: dict[str, tuple[str, Mapping[str, Any]]] = {}
    readings: list[Reading] = []
    for message in turn:
        for call in message.get("tool_calls") or ():
            function = call.get("function") or {}
            calls[str(call.get("id"))] = (str(function.get("name") or ""), _arguments(function.get("arguments")))
        if message.get("role") == "tool":
            name, arguments = calls.get(str(message.get("tool_call_id")), ("", {}))
            readings.append(read_result(name, arguments, str(message.get("content") or ""), zh))
    return readings


def say(readings: Sequence[Reading], zh: bool) -> str:
    """The final reply: the sentences spoken as one paragraph, then the quotes."""
    if not readings:
        return "<voice>完成了。</voice>" if zh else "<voice>All done.</voice>"
    sentences = ("" if zh else " ").join(r.sentence for r in readings)
    quotes = [r.quote for r in readings if r.quote]
    return f"<voice>{sentences}</voice>" + "".join(f"\n\n{quote}" for quote in quotes)


def read_result(name: str, arguments: Mapping[str, Any], content: str, zh: bool) -> Reading:
    """``content`` (what the tool returned) said in words."""
    if content.startswith(_ERROR):
        problem = _first_line(content.removeprefix(_ERROR))
        return Reading(f"{name} 没有成功：{problem}。" if zh else f"{name} did not work: {problem}.")
    if name == "get_current_time":
        return _time(content, zh)
    if name == "run_command":
        return _command(str(arguments.get("command") or ""), content, zh)
    if name == "show_card":
        return Reading("卡片已经显示在上面。" if zh else "The card is shown above.")
    if name == "ask_user_question":
        return _answers(arguments, content, zh)
    if name == "get_skill":
        skill = str(arguments.get("name") or "")
        return Reading(f"我读了技能 {skill}。" if zh else f"I read the {skill} skill.")
    if name == "sub_agent":
        answer = _first_line(content)
        return Reading(f"子代理的回答：{answer}" if zh else f"The sub-agent says: {answer}")
    line = _first_line(content)
    return Reading(f"{name} 返回：{line}" if zh else f"{name} answered: {line}")


def _time(content: str, zh: bool) -> Reading:
    try:
        value = json.loads(content)
    except json.JSONDecodeError:
        value = None
    if not isinstance(value, dict) or "datetime" not in value:
        line = _first_line(content)
        return Reading(f"时间工具说：{line}" if zh else f"The time server says: {line}")
    clock = str(value["datetime"]).partition("T")[2][:5]
    zone = str(value.get("timezone") or "UTC")
    day = str(value.get("day_of_week") or "")
    if zh:
        return Reading(f"现在是 {zone} {clock}，{_WEEKDAYS_ZH.get(day, day)}。" if day else f"现在是 {zone} {clock}。")
    return Reading(f"It is {clock} {zone}, {day}." if day else f"It is {clock} {zone}.")


def _command(command: str, content: str, zh: bool) -> Reading:
    """run_command's text (``exit code N``, then ``--- stdout ---`` and its
    lines, ``--- stderr ---``…) as what the command printed."""
    status, streams = _streams(content)
    shown = f"`{command}`" if command else ("命令" if zh else "The command")
    exit_code = _EXIT.match(status)
    output = streams.get("stdout") or streams.get("stderr") or []
    if exit_code is None:  # timed out, or killed by a signal
        return Reading(f"{shown} 没有完成：{status}。" if zh else f"{shown} did not finish: {status}.")
    if exit_code.group(1) != "0":
        problem = _stop((streams.get("stderr") or output or [""])[0], zh)
        if zh:
            return Reading(f"{shown} 失败了（退出码 {exit_code.group(1)}）" + (f"：{problem}" if problem else "。"))
        return Reading(f"{shown} failed (exit code {exit_code.group(1)})" + (f": {problem}" if problem else "."))
    if not output:
        return Reading(f"{shown} 运行成功，没有输出。" if zh else f"{shown} ran and printed nothing.")
    if len(output) == 1:
        line = _stop(output[0], zh)
        return Reading(f"{shown} 输出：{line}" if zh else f"{shown} printed: {line}")
    first = output[:QUOTED_LINES]
    if len(output) > QUOTED_LINES:
        head = (f"{shown} 输出了 {len(output)} 行，前 {QUOTED_LINES} 行如下：" if zh
                else f"{shown} printed {len(output)} lines; the first {QUOTED_LINES}:")
    else:
        head = f"{shown} 输出：" if zh else f"{shown} printed:"
    return Reading(head, "```\n" + "\n".join(first) + "\n```")


def _streams(content: str) -> tuple[str, dict[str, list[str]]]:
    """(status line, stream name → its non-blank lines)."""
    lines = content.splitlines()
    status = lines[0].strip() if lines else ""
    streams: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in lines[1:]:
        marker = re.fullmatch(r"--- (stdout|stderr) ---", line.strip())
        if marker is not None:
            current = streams.setdefault(marker.group(1), [])
        elif current is not None and line.strip() and not line.startswith("[… "):
            current.append(line.rstrip())
    return status, streams


def _answers(arguments: Mapping[str, Any], content: str, zh: bool) -> Reading:
    try:
        value = json.loads(content)
    except json.JSONDecodeError:
        value = None
    answers = value.get("answers") if isinstance(value, dict) else None
    if not isinstance(answers, dict):
        return Reading("你跳过了这些问题，没关系。" if zh else "You skipped the questions; that's fine.")
    if not answers:
        return Reading("你没有填写任何答案，没关系。" if zh else "You left every answer empty; that's fine.")
    said: list[str] = []
    name, colour = answers.get("name"), answers.get("color")
    if isinstance(name, str) and name.strip():
        said.append(f"很高兴认识你，{name.strip()}！" if zh else f"Nice to meet you, {name.strip()}!")
    if isinstance(colour, str):
        said.append(f"{colour}色，好选择。" if zh else f"{colour.capitalize()} is a fine colour.")
    rest = {k: v for k, v in answers.items() if k not in ("name", "color")}
    if rest:
        questions = {str(q.get("id")): str(q.get("question") or q.get("id"))
                     for q in arguments.get("questions") or () if isinstance(q, dict)}
        parts = [f"{questions.get(k, k)} {_value(v, zh)}" for k, v in rest.items()]
        said.append(("你的回答：" if zh else "Your answers: ") + ("；" if zh else "; ").join(parts)
                    + ("。" if zh else "."))
    return Reading(("" if zh else " ").join(said))


def _value(value: object, zh: bool) -> str:
    if isinstance(value, list):
        return ("、" if zh else ", ").join(str(v) for v in value)
    return str(value)


def _arguments(raw: object) -> Mapping[str, Any]:
    if isinstance(raw, Mapping):
        return raw
    try:
        value = json.loads(str(raw or "{}"))
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def _stop(line: str, zh: bool) -> str:
    """``line`` ending a sentence."""
    if not line or line.endswith(_STOPS):
        return line
    return line + ("。" if zh else ".")


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")
