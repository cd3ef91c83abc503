"""Each reason a message's MCP prompt or mention is not expanded names the
UI text that words it, so a Chinese window says it in Chinese while the
English line (headless mode, log) stays as it was."""

from __future__ import annotations

import pytest

from desktop_agent.core.mentions import MentionError, PromptCall, parse_mentions
from desktop_agent.mcp_engine.catalog import PromptArgument, PromptInfo
from desktop_agent.mcp_engine.expansion import check_arguments
from desktop_agent.texts import CHINESE, ENGLISH
from desktop_agent.ui.common.error_wording import mention_reason

WEATHER = PromptInfo("ev", "weather", None, "", (PromptArgument("city", "", True), PromptArgument("unit", "", False)))


def refusal(call: PromptCall) -> MentionError:
    with pytest.raises(MentionError) as caught:
        check_arguments(WEATHER, call)
    return caught.value


@pytest.mark.parametrize(
    ("arguments", "english", "chinese"),
    [
        ((), "/mcp__ev__weather: missing city=…", "/mcp__ev__weather：缺少参数 city=…"),
        (
            (("town", "x"),),
            '/mcp__ev__weather: no argument "town" (its arguments: city, unit)',
            "/mcp__ev__weather：没有参数“town”（可用参数：city, unit）",
        ),
        (
            (("city", "a"), ("city", "b")),
            '/mcp__ev__weather: "city" is given twice',
            "/mcp__ev__weather：参数“city”给出了两次",
        ),
    ],
)
def test_prompt_argument_refusals_are_worded_in_chinese(
    arguments: tuple[tuple[str, str], ...], english: str, chinese: str
) -> None:
    exc = refusal(PromptCall("ev", "weather", arguments))
    assert str(exc) == english and mention_reason(ENGLISH, exc) == english
    assert mention_reason(CHINESE, exc) == chinese


@pytest.mark.parametrize(
    ("text", "english", "chinese"),
    [
        ('/mcp__ev__weather city="Paris', "/mcp__ev__weather: a quoted value has no closing quote",
         "/mcp__ev__weather：带引号的值缺少结尾的引号"),
        ("/mcp__ev__weather Paris", '/mcp__ev__weather: "Paris" is not a key=value argument',
         "/mcp__ev__weather：“Paris”不是 键=值 形式的参数"),
        ("/mcp__nope__weather", '"/mcp__nope__weather": no mcp server is called "nope"',
         "“/mcp__nope__weather”：没有名为“nope”的 MCP 服务器"),
        ("/mcp__weather", '"/mcp__weather": a prompt is written /mcp__SERVER__PROMPT',
         "“/mcp__weather”：提示词的写法是 /mcp__服务器__提示词"),
    ],
)
def test_parse_refusals_are_worded_in_chinese(text: str, english: str, chinese: str) -> None:
    with pytest.raises(MentionError) as caught:
        parse_mentions(text, ["ev"])
    assert str(caught.value) == english and mention_reason(CHINESE, caught.value) == chinese


def test_every_key_a_refusal_names_is_a_ui_text_whose_english_is_the_line() -> None:
    for call in (PromptCall("ev", "weather", ()), PromptCall("ev", "weather", (("x", "1"),))):
        exc = refusal(call)
        assert exc.key is not None and ENGLISH.tr(exc.key, **exc.fields) == str(exc)
    assert mention_reason(CHINESE, MentionError("plain line")) == "plain line"
