"""parse_answer: a spoken approval answer as yes, no or unclear — never yes
on an unclear answer."""

from __future__ import annotations

import pytest

from desktop_agent.core.voice_answer import VOICE_APPROVAL_PROMPT, parse_answer

YES = ["yes", "Yes.", "YES!", "yeah", "yep", "approve", "Approved", "go ahead", "Go ahead, please.", "okay",
       "ok go ahead", "sure", "yes please", "Yes, thank you.", "yes do it",
       "是", "是的", "可以", "可以的", "同意", "批准", "好的", "行", "可以，执行吧。"]
NO = ["no", "No.", "nope", "reject", "Rejected!", "stop", "Stop that.", "cancel", "don't", "no thanks",
      "No, don't do that.", "do not run it", "not", "deny",
      "不", "不行", "不要", "拒绝", "不可以", "不同意", "不是", "别", "停", "算了", "不行，取消吧"]
UNCLEAR = ["", "   ", "...", "maybe", "what time is it", "yes no", "no yes", "yes, but not now", "not sure",
           "I'm not sure", "no problem", "no worries", "why not", "go", "oh", "um", "yes I think so",
           "hello there", "approve and reject", "可以吗", "是不是", "也许", "好不好", "不知道怎么说可以"]


@pytest.mark.parametrize("text", YES)
def test_a_clear_yes_is_yes(text: str) -> None:
    assert parse_answer(text) == "yes"


@pytest.mark.parametrize("text", NO)
def test_a_clear_no_is_no(text: str) -> None:
    assert parse_answer(text) == "no"


@pytest.mark.parametrize("text", UNCLEAR)
def test_an_unclear_answer_is_neither(text: str) -> None:
    assert parse_answer(text) is None


def test_the_spoken_prompt_names_the_tool_in_both_languages() -> None:
    assert VOICE_APPROVAL_PROMPT["en"].format(tool="run_command") == "run_command needs your approval: say yes or no"
    assert VOICE_APPROVAL_PROMPT["zh"].format(tool="run_command") == "run_command 需要你的批准：请说可以或不行"
