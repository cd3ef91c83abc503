"""The demo model's skills (contracts §9): when the user's message names a
skill of the catalogue it is offered ("daily briefing", "explain-command"),
the demo calls ``get_skill`` first — unless the user invoked it with
``/<skill-name>``, which already put the skill in the request — and then
follows the bundled skill the way its SKILL.md says, with the real tools.

It reads only what a real model would: the catalogue block, the invocation
block and the tool results in the messages.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping, Sequence, Set
from typing import Any

from desktop_agent.skills_engine.catalogue import catalogue_names

_INVOKED = re.compile(r'<skill name="([a-z0-9-]+)"')


def offered_skills(messages: Sequence[Mapping[str, Any]]) -> tuple[list[str], set[str]]:
    """(skills the catalogue lists, skills invoked with ``/<name>`` this turn)."""
    names: list[str] = []
    invoked: set[str] = set()
    for message in messages:
        content = message.get("content")
        if message.get("role") != "system" or not isinstance(content, str):
            continue
        names.extend(catalogue_names(content))
        if content.startswith("The user invoked the skill"):
            invoked.update(_INVOKED.findall(content))
    return names, invoked


def named_skill(user: str, names: Sequence[str], invoked: Set[str]) -> str | None:
    """The skill the user's message asks for, if any."""
    lowered = user.lower()
    for name in names:
        if name in invoked or name in lowered or name.replace("-", " ") in lowered:
            return name
    return next(iter(sorted(invoked)), None)


def command_in(user: str) -> str:
    """The command the user wants explained: in backticks, else after the
    skill's name, else a harmless example."""
    quoted = re.search(r"`([^`]+)`", user)
    if quoted:
        return quoted.group(1).strip()
    rest = re.sub(r"^/?explain[- ]command\s*:?", "", user.strip(), flags=re.IGNORECASE).strip()
    return rest or "ls -la"


def explanation(command: str, zh: bool) -> str:
    """A part-by-part explanation of ``command``, as the skill asks."""
    try:
        parts = shlex.split(command)
    except ValueError:
        parts = command.split()
    if not parts:
        parts = ["ls"]
    lines = [f"`{command}`", ""]
    program, *arguments = parts
    lines.append(f"- `{program}` — " + ("要运行的程序" if zh else "the program that runs"))
    for argument in arguments:
        if argument.startswith("-"):
            lines.append(f"- `{argument}` — " + ("一个选项，改变它的行为" if zh else "an option that changes what it does"))
        elif argument in ("|", ">", ">>", "&&", ";"):
            lines.append(f"- `{argument}` — " + ("连接或重定向" if zh else "a pipe, chain or redirection"))
        else:
            lines.append(f"- `{argument}` — " + ("一个参数（文件、文字或路径）" if zh else "an argument (a file, text or path)"))
    risky = any(p in ("rm", "sudo", "dd", "mkfs", ">") for p in parts)
    if zh:
        lines.append("\n它**会修改**文件，请先确认。" if risky else "\n它只读取信息，不会修改任何东西。")
        lines.append("<voice>我来运行它，需要你批准。</voice>")
    else:
        lines.append("\nIt **changes files**: check it first." if risky else "\nIt only reads; it changes nothing.")
        lines.append("<voice>I'll run it now; it needs your approval.</voice>")
    return "\n".join(lines) + " "


def time_result(done: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The time server's answer among the turn's tool results, parsed."""
    for message in done:
        try:
            value = json.loads(str(message.get("content") or ""))
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict) and "datetime" in value:
            return value
    return {}


def briefing_card(done: Sequence[Mapping[str, Any]], zh: bool) -> dict[str, Any]:
    now = time_result(done)
    stamp = str(now.get("datetime") or "")
    day = str(now.get("day_of_week") or "")
    date, _, clock = stamp.partition("T")
    zone = str(now.get("timezone") or "UTC")
    fields = [
        {"label": "日期" if zh else "Date", "value": date or "?"},
        {"label": "时间" if zh else "Time", "value": f"{clock[:5]} {zone}" if clock else "?"},
    ]
    if day:
        fields.insert(0, {"label": "星期" if zh else "Day", "value": day})
    return {
        "title": ("每日简报" if zh else "Daily briefing") + (f" — {day}" if day else ""),
        "body": _briefing_body(clock, day, zh),
        "fields": fields,
    }


_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def _briefing_body(clock: str, day: str, zh: bool) -> str:
    """A greeting for the time of day and the days left until the weekend."""
    hour = int(clock[:2]) if clock[:2].isdigit() else 9
    if zh:
        greeting = "早上好！" if hour < 12 else "下午好！" if hour < 18 else "晚上好！"
    else:
        greeting = "Good morning!" if hour < 12 else "Good afternoon!" if hour < 18 else "Good evening!"
    if day not in _WEEKDAYS:
        return greeting
    left = max(0, 5 - _WEEKDAYS.index(day))
    if left == 0:
        return greeting + (" 今天是周末。" if zh else " It's the weekend.")
    return greeting + (f" 距离周末还有 {left} 天。" if zh else f" {left} day{'s' if left > 1 else ''} until the weekend.")


def closing(skill: str, done: Sequence[Mapping[str, Any]], zh: bool) -> str | None:
    """The final reply after the skill's steps; None: the demo's usual summary."""
    if skill == "daily-briefing":
        day = str(time_result(done).get("day_of_week") or "")
        if zh:
            return f"<voice>你好！今天是{day or '新的一天'}，简报卡片在上面。</voice>"
        return f"<voice>Hello! Today is {day or 'a new day'}; your briefing card is above.</voice>"
    if skill == "bilingual-reply":
        return ("<voice>你好！我是离线演示模型，这是一个中英双语的回答。</voice>\n\n"
                "**English:** Hello! I'm the offline demo model, and this is a bilingual answer.")
    return None
