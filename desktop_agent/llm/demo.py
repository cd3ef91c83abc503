"""The offline demo model: deterministic, no network.

It follows the same protocol a real model is asked to follow (planning
round with an intent tag, ``<voice>`` spans, real tool calls), so a new user
sees the whole flow — approval, cards, forms, speech — before connecting a
real model. It answers in Chinese when the user writes Chinese.

It stands where a server stands: it reads each request as the OpenAI JSON
messages the agent sends (``core/wire.py`` made them from the typed working
list), not the app's typed items, so it sees what a real model would.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence, Set
from dataclasses import dataclass
from typing import Any

from desktop_agent.core import prompts
from desktop_agent.core.hooks import is_hook
from desktop_agent.core.ports import LLMDelta, TextDelta, ToolCallDelta, ToolChoice
from desktop_agent.llm import demo_skills, demo_words

DEMO_MODEL_NAME = "demo"
CONNECT_HINT = (
    "This is the offline demo model. To connect a real model, open Settings and enter an "
    "OpenAI-compatible endpoint, model and API key (or run with --base-url URL --model NAME "
    "--api-key KEY, or set OPENAI_BASE_URL and OPENAI_API_KEY)."
)
CONNECT_HINT_ZH = (
    "这是离线演示模型。要连接真实模型，请在设置中填写兼容 OpenAI 的接口地址、模型和 API 密钥"
    "（或使用 --base-url、--model、--api-key 参数，或设置 OPENAI_BASE_URL 与 OPENAI_API_KEY）。"
)

_USUAL_TOOLS = frozenset({"get_current_time", "run_command", "show_card", "ask_user_question"})
_CJK = re.compile(r"[\u3400-\u9fff]")
_SUB_AGENT = "sub_agent"
_NOT_FOR_SUB_AGENTS = frozenset({_SUB_AGENT, "ask_user_question", "show_card"})
_BACKTICKED = re.compile(r"`([^`]+)`")
_DELEGATE_PREFIX = re.compile(r"^\s*(please\s+)?(delegate|sub[-_ ]?agent|委托|子代理)[^:：]*[:：]\s*", re.I)


@dataclass(frozen=True)
class _Step:
    tool: str
    arguments: dict[str, Any]
    say: str


def _zh(text: str) -> bool:
    return bool(_CJK.search(text))


def _has(text: str, *words: str) -> bool:
    lowered = text.lower()
    return any(w in lowered for w in words)


class DemoModel:
    """An :class:`~desktop_agent.core.ports.LLMProvider` that needs nothing."""

    def __init__(self, *, delay_s: float = 0.0, chunk_chars: int = 4) -> None:
        self._delay_s = delay_s
        self._chunk = chunk_chars
        self._calls = 0

    @property
    def model(self) -> str:
        return DEMO_MODEL_NAME

    @property
    def is_demo(self) -> bool:
        return True

    def set_limits(self, max_tokens: int | None, timeout_s: float) -> None:
        """Nothing to limit: the demo's replies are canned and make no requests."""

    async def stream(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: ToolChoice = "auto",
        on_finish: Callable[[str], None] | None = None,
    ) -> AsyncGenerator[LLMDelta, None]:
        # Tools it must not call are as good as none: the script reads their
        # presence as "this is the tool round".
        text, call = self._reply(messages, tools if tool_choice == "auto" else None)
        for i in range(0, len(text), self._chunk):
            if self._delay_s:
                await asyncio.sleep(self._delay_s)
            yield TextDelta(text[i : i + self._chunk])
        if call is not None:
            self._calls += 1
            args = json.dumps(call.arguments, ensure_ascii=False)
            yield ToolCallDelta(0, f"demo_call_{self._calls}", call.tool, "")
            half = len(args) // 2
            yield ToolCallDelta(0, None, None, args[:half])
            yield ToolCallDelta(0, None, None, args[half:])
        if on_finish is not None:
            on_finish("stop" if call is None else "tool_calls")

    # ------------------------------------------------------------ the script

    def _reply(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None
    ) -> tuple[str, _Step | None]:
        user_index = max(
            (i for i, m in enumerate(messages)
             if m.get("role") == "user" and m.get("content") != prompts.CONTINUE_MESSAGE
             and not is_hook(m)),  # a user-role prompt hook is not what the user said
            default=-1,
        )
        user = str(messages[user_index].get("content") or "") if user_index >= 0 else ""
        zh = _zh(user)
        last = messages[-1] if messages else {}
        tool_names = {str(t["function"]["name"]) for t in tools or ()}
        names, invoked = demo_skills.offered_skills(messages)
        skill = demo_skills.named_skill(user, names, invoked)
        done = [m for m in messages[user_index + 1 :] if m.get("role") == "tool"]
        if last.get("role") == "system" and last.get("content") == prompts.PLANNING_PROMPT:
            # The planning round gets no tools: plan as if all the usual ones exist.
            usual = _USUAL_TOOLS | {"get_skill", _SUB_AGENT}
            return self._planning(zh, self._plan(user, zh, usual, skill, invoked, done)), None
        plan = self._plan(user, zh, tool_names, skill, invoked, done)
        final = demo_skills.closing(skill, done, zh) if skill is not None else None
        if last.get("role") == "system" and last.get("content") == prompts.CONTINUATION_PROMPT:
            return final or self._chat(user, zh), None
        step = _next_step(plan, messages[user_index + 1 :])
        if step is not None and not any(_rejected(m) for m in done):
            return step.say, step
        return final or demo_words.say(demo_words.read_results(messages[user_index + 1 :], zh), zh), None

    @staticmethod
    def _plan(
        user: str, zh: bool, tools: Set[str], skill: str | None = None,
        invoked: Set[str] = frozenset(), done: Sequence[Mapping[str, Any]] = (),
    ) -> list[_Step]:
        if skill is not None:
            return _skill_plan(user, zh, tools, skill, invoked, done)
        if _has(user, "delegate", "sub-agent", "sub_agent", "subagent", "委托", "子代理") and _SUB_AGENT in tools:
            return [_delegation(user, zh, tools)]
        steps: list[_Step] = []
        tour = _has(user, "demo", "tour", "演示", "展示")
        wants_command = _has(user, "run", "command", "shell", "命令", "运行")
        # "Run `date`" asks for a command, not the time: a time word only
        # counts when the user is not asking to run something.
        wants_time = _has(user, "time", "date", "clock", "几点", "时间", "日期") and not wants_command
        if (tour or wants_time) and "get_current_time" in tools:
            steps.append(_Step("get_current_time", {"timezone": "UTC"},
                               "我用时间工具查一下。" if zh else "Let me ask the time server. "))
        if (tour or wants_command) and "run_command" in tools:
            command = "date" if tour else _quoted_command(user)
            steps.append(_Step("run_command", {"command": command},
                               f"我来运行 {command} 命令，需要你批准。" if zh
                               else f"I'll run `{command}`; it needs your approval. "))
        if (tour or _has(user, "card", "卡片")) and "show_card" in tools:
            steps.append(_Step("show_card", {
                "title": "演示卡片" if zh else "Demo card",
                "body": ("这是 **show_card** 工具推送的卡片，无需审批。" if zh
                         else "This card came from the **show_card** tool; it needs no approval."),
                "fields": [{"label": "model", "value": DEMO_MODEL_NAME}],
            }, "给你看一张卡片。" if zh else "Here is a card. "))
        if (tour or _has(user, "ask me", "question", "form", "问我", "表单", "问题")) and "ask_user_question" in tools:
            steps.append(_Step("ask_user_question", {
                "title": "演示表单" if zh else "Demo form",
                "questions": [
                    {"id": "name", "question": "怎么称呼你？" if zh else "What should I call you?",
                     "type": "text", "required": False},
                    {"id": "color", "question": "最喜欢的颜色？" if zh else "Favourite colour?",
                     "type": "choice", "options": ["红", "绿", "蓝"] if zh else ["red", "green", "blue"]},
                ],
            }, "我有两个问题。" if zh else "I have two questions for you. "))
        return steps

    @staticmethod
    def _planning(zh: bool, plan: list[_Step]) -> str:
        if plan:
            return ("<voice>好的，我来帮你处理。</voice><need_tool>" if zh
                    else "<voice>Sure, I'll take care of that.</voice><need_tool>")
        return ("<voice>你好，我是离线演示模型。</voice><no_tool>" if zh
                else "<voice>Hello, I'm the offline demo model.</voice><no_tool>")

    @staticmethod
    def _chat(user: str, zh: bool) -> str:
        if zh:
            return (f"<voice>你说的是：{user.strip()[:60]}。</voice>\n\n"
                    "试试说「演示」，看看审批、卡片、表单和语音如何工作。\n\n" + CONNECT_HINT_ZH)
        return (f"<voice>You said: {user.strip()[:60]}.</voice>\n\n"
                "Try typing **demo** to see approvals, cards, forms and speech at work.\n\n" + CONNECT_HINT)


def _skill_plan(
    user: str, zh: bool, tools: Set[str], skill: str, invoked: Set[str], done: Sequence[Mapping[str, Any]]
) -> list[_Step]:
    """Read the skill (unless invoked with /name), then follow it."""
    steps: list[_Step] = []
    if skill not in invoked and "get_skill" in tools:
        steps.append(_Step("get_skill", {"name": skill},
                           f"我先读取技能 {skill}。" if zh else f"Let me read the {skill} skill first. "))
    if skill == "daily-briefing":
        if "get_current_time" in tools:
            steps.append(_Step("get_current_time", {"timezone": "UTC"},
                               "我查一下现在的时间。" if zh else "Now the time. "))
        if "show_card" in tools:
            steps.append(_Step("show_card", demo_skills.briefing_card(done, zh),
                               "这是你的简报。" if zh else "Here is your briefing. "))
    elif skill == "explain-command" and "run_command" in tools:
        command = demo_skills.command_in(user)
        steps.append(_Step("run_command", {"command": command}, demo_skills.explanation(command, zh)))
    return steps


def _next_step(plan: Sequence[_Step], since_user: Sequence[Mapping[str, Any]]) -> _Step | None:
    """The first step of ``plan`` not yet called this turn (a tool planned
    twice counts twice). By name, not position: a tool that joins mid-turn
    (an MCP server that finished starting) is called then, and nothing
    already done is called again."""
    called = Counter(
        str((call.get("function") or {}).get("name"))
        for message in since_user if message.get("role") == "assistant"
        for call in message.get("tool_calls") or ()
    )
    if not called:  # results without the calls that asked for them: go by position
        answered = sum(1 for message in since_user if message.get("role") == "tool")
        return plan[answered] if answered < len(plan) else None
    planned: Counter[str] = Counter()
    for step in plan:
        planned[step.tool] += 1
        if planned[step.tool] > called[step.tool]:
            return step
    return None


def _quoted_command(user: str) -> str:
    """The command in backticks (the welcome panel's "Run `date`"), else
    ``date``, a harmless one that prints something."""
    quoted = _BACKTICKED.search(user)
    return (quoted.group(1).strip() if quoted else "") or "date"


def _rejected(message: Mapping[str, Any]) -> bool:
    content = str(message.get("content") or "")
    return content.startswith("Error:")


def _delegation(user: str, zh: bool, tools: Set[str]) -> _Step:
    """Hand the request (after ``delegate:``) to a sub-agent, with the tools
    the demo would use for it itself (contracts §9)."""
    task = _DELEGATE_PREFIX.sub("", user).strip() or user.strip()
    inner = DemoModel._plan(task, zh, set(tools) - _NOT_FOR_SUB_AGENTS)
    allowed = list(dict.fromkeys(step.tool for step in inner))
    say = "我把这件事交给一个子代理。" if zh else "I'll hand this to a sub-agent. "
    return _Step(_SUB_AGENT, {"task": task, "allowed_tools": allowed}, say)
