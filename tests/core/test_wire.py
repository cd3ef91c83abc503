"""The wire normalizer (contracts §2a): one test per rule, then a property test
over random canonical histories that checks every rule at once."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_agent.core import prompts
from desktop_agent.core.json_types import JSONMapping, as_list, as_object
from desktop_agent.core.wire import (
    ARGUMENTS_NOTE,
    INSTRUCTION_LABEL,
    RAW_ARGUMENTS_MAX,
    STANDARD,
    STRICT,
    TOOL_BRIDGE,
    WireProfile,
    assistant_tool_calls,
    normalize,
    profile_named,
)
from desktop_agent.testing.json_dict import JSONDict
from desktop_agent.testing.wire_contract import wire_problems

SYSTEM = {"role": "system", "content": "You are desktop-agent."}
PLANNING = {"role": "system", "content": prompts.PLANNING_PROMPT}


def user(text: str, **kw: Any) -> JSONDict:
    return {"role": "user", "content": text, **kw}


def assistant(text: str | None, **kw: Any) -> JSONDict:
    return {"role": "assistant", "content": text, **kw}


def tool(call_id: str, text: str) -> JSONDict:
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def calls(*specs: tuple[str, str, str], text: str | None = None) -> JSONDict:
    return assistant_tool_calls(text, specs)


def wire_id(messages: list[JSONDict], n: int, call: int = 0) -> str:
    return str(messages[n]["tool_calls"][call]["id"])


# ------------------------------------------------------------------ system


def test_leading_and_middle_system_messages_join_the_one_at_index_0() -> None:
    catalogue = {"role": "system", "content": "Skills: pdf"}
    hook = {"role": "system", "content": "Be brief.", "_hook": "brief"}
    out = normalize([SYSTEM, catalogue, user("hi"), assistant("Hello."), hook, user("again")])
    assert out == [
        {"role": "system", "content": "You are desktop-agent.\n\nSkills: pdf\n\nBe brief."},
        user("hi"),
        assistant("Hello."),
        user("again"),
    ]


def test_the_temporary_prompt_at_the_end_is_appended_to_the_last_user_message() -> None:
    out = normalize([SYSTEM, user("What is 2+2?"), PLANNING])
    assert out == [SYSTEM, user(f"What is 2+2?\n\n{INSTRUCTION_LABEL}\n{prompts.PLANNING_PROMPT}")]


def test_the_continuation_prompt_follows_the_continue_message() -> None:
    continuation = {"role": "system", "content": prompts.CONTINUATION_PROMPT}
    working = [SYSTEM, user("hi"), assistant("Sure."), user(prompts.CONTINUE_MESSAGE), continuation]
    out = normalize(working)
    assert out[-1] == user(f"{prompts.CONTINUE_MESSAGE}\n\n{INSTRUCTION_LABEL}\n{prompts.CONTINUATION_PROMPT}")
    # The prefix is the same in every round: only the end changes.
    assert out[:3] == normalize([SYSTEM, user("hi"), assistant("Sure."), user("x")])[:3]


def test_a_trailing_prompt_after_a_tool_result_joins_the_system_message() -> None:
    hook = {"role": "system", "content": "Check the result."}
    out = normalize([SYSTEM, user("go"), calls(("call_1", "echo", "{}")), tool("call_1", "done"), hook])
    assert out[0] == {"role": "system", "content": "You are desktop-agent.\n\nCheck the result."}
    assert out[-1]["role"] == "tool"


def test_the_strict_profile_sends_no_system_message_and_leads_the_first_user_message_with_it() -> None:
    out = normalize([SYSTEM, user("hi"), assistant("Hello."), user("more"), PLANNING], STRICT)
    assert out == [
        user("You are desktop-agent.\n\nhi"),
        assistant("Hello."),
        user(f"more\n\n{INSTRUCTION_LABEL}\n{prompts.PLANNING_PROMPT}"),
    ]


def test_system_messages_alone_get_a_user_message() -> None:
    assert normalize([SYSTEM]) == [SYSTEM, user(prompts.CONTINUE_MESSAGE)]
    assert normalize([SYSTEM], STRICT) == [user(f"You are desktop-agent.\n\n{prompts.CONTINUE_MESSAGE}")]
    assert normalize([]) == []


# ------------------------------------------------------------------ alternation


def test_the_planning_reply_and_its_continuation_become_one_assistant_message() -> None:
    history = [user("List fruit"), assistant("Sure, here they are. "), assistant("- apple\n- pear\n"), user("ok")]
    assert normalize(history) == [user("List fruit"), assistant("Sure, here they are. \n\n- apple\n- pear\n"), user("ok")]


def test_consecutive_user_messages_are_merged() -> None:
    hook = user("Remember the house rules.", _hook="rules")
    assert normalize([user("hi"), hook]) == [user("hi\n\nRemember the house rules.")]


def test_assistant_text_before_a_tool_call_message_joins_it() -> None:
    out = normalize([user("go"), assistant("Let me check."), calls(("c", "echo", "{}"), text="Running."), tool("c", "ok")])
    assert out[1]["content"] == "Let me check.\n\nRunning."
    assert [m["role"] for m in out] == ["user", "assistant", "tool"]


def test_assistant_messages_with_nothing_visible_are_dropped() -> None:
    assert normalize([user("a"), assistant(""), assistant("  \n"), user("b")]) == [user("a\n\nb")]


def test_a_conversation_ending_with_the_assistant_gets_a_continue_message() -> None:
    assert normalize([user("hi"), assistant("Hello.")]) == [
        user("hi"), assistant("Hello."), user(prompts.CONTINUE_MESSAGE)
    ]


def test_a_conversation_starting_with_the_assistant_gets_a_user_message_first() -> None:
    assert normalize([assistant("Welcome back."), user("hi")]) == [
        user(prompts.CONTINUE_MESSAGE), assistant("Welcome back."), user("hi")
    ]


def test_a_user_message_after_a_tool_result_gets_an_assistant_bridge() -> None:
    out = normalize([user("go"), calls(("c", "echo", "{}")), tool("c", "The user rejected this tool call."), user("why?")])
    assert [m["role"] for m in out] == ["user", "assistant", "tool", "assistant", "user"]
    assert out[3] == assistant(TOOL_BRIDGE)


# ------------------------------------------------------------------ tool calls


def test_answers_follow_their_calls_in_call_order_each_id_once() -> None:
    two = calls(("a", "echo", '{"n": 1}'), ("b", "echo", '{"n": 2}'))
    out = normalize([user("go"), two, tool("b", "two"), tool("a", "one"), tool("a", "again"), tool("z", "stray")])
    a, b = wire_id(out, 1, 0), wire_id(out, 1, 1)
    assert out[2:] == [tool(a, "one"), tool(b, "two")]


def test_unanswered_calls_and_answers_without_a_call_are_dropped() -> None:
    out = normalize([user("go"), tool("x", "early"), calls(("a", "echo", "{}"), ("b", "echo", "{}")), tool("a", "one")])
    assert [as_object(c["function"])["arguments"] for c in _calls(out[1])] == ["{}"]
    assert out[2] == tool(wire_id(out, 1), "one") and len(out) == 3


def test_a_call_message_whose_calls_all_went_unanswered_keeps_its_text() -> None:
    out = normalize([user("go"), calls(("a", "echo", "{}"), text="Trying."), user("hello?")])
    assert out == [user("go"), assistant("Trying."), user("hello?")]


def test_call_ids_are_nine_alphanumerics_stable_from_one_request_to_the_next() -> None:
    turn = [user("go"), calls(("call_1", "echo", "{}")), tool("call_1", "ok"), assistant("Done.")]
    first = normalize([*turn, user("next")])
    again = normalize([*turn, user("next"), assistant("Sure."), user("more")])
    assert wire_id(first, 1) == wire_id(again, 1) and len(wire_id(first, 1)) == 9
    assert _calls(normalize([user("go"), calls(("abcDEF123", "echo", "{}")), tool("abcDEF123", "ok")])[1])[0]["id"] == "abcDEF123"


def test_an_id_used_again_in_a_later_turn_gets_its_own_wire_id() -> None:
    turn = [user("go"), calls(("call_0", "echo", "{}")), tool("call_0", "ok"), assistant("Done.")]
    out = normalize([*turn, *turn])
    assert wire_id(out, 1) != wire_id(out, 5)
    assert [m["tool_call_id"] for m in out if m["role"] == "tool"] == [wire_id(out, 1), wire_id(out, 5)]


@pytest.mark.parametrize("raw", ['{"text": ', "[1, 2]", '"text"', '{"x": NaN}', "not json"])
def test_arguments_that_are_not_a_json_object_are_replayed_as_empty_with_the_original_in_the_answer(
    raw: str,
) -> None:
    out = normalize([user("go"), calls(("c", "echo", raw)), tool("c", "Error: the arguments are not valid JSON")])
    assert _calls(out[1])[0]["function"] == {"name": "echo", "arguments": "{}"}
    assert out[2]["content"] == f"Error: the arguments are not valid JSON\n\n{ARGUMENTS_NOTE.format(raw=raw)}"


def test_valid_arguments_keep_their_exact_text_and_missing_ones_become_empty() -> None:
    out = normalize([user("go"), calls(("a", "echo", '{ "text" : "x"}'), ("b", "echo", "")), tool("a", "1"), tool("b", "2")])
    assert [as_object(c["function"])["arguments"] for c in _calls(out[1])] == ['{ "text" : "x"}', "{}"]
    assert out[3]["content"] == "2"


def test_the_strict_profile_replays_tool_history_as_text() -> None:
    turn = [SYSTEM, user("go"), calls(("c", "echo", '{"text": "x"}'), text="Running."), tool("c", "echo: x"),
            assistant("It said x.")]
    out = normalize([*turn, user("thanks")], STRICT)
    assert out == [
        user("You are desktop-agent.\n\ngo"),
        assistant('Running.\n\n[called echo with {"text": "x"}]'),
        user("[result of echo]\necho: x"),
        assistant("It said x."),
        user("thanks"),
    ]


# ------------------------------------------------------------------ keys and text


def test_only_the_wire_keys_are_sent() -> None:
    hook = user("rules", _hook="rules", metadata={"a": 1})
    out = normalize([user("hi", name="ann"), assistant("Hello.", reasoning_content="hmm", _hook="x"), hook])
    assert out == [user("hi", name="ann"), assistant("Hello."), user("rules")]


def test_text_keeps_its_exact_characters() -> None:
    markdown = "# Title\n\n- one\n- two  \n\n```py\nx = 1\n```\n"
    out = normalize([user(" spaced \n"), assistant(markdown), user("ok")])
    assert out[0]["content"] == " spaced \n" and out[1]["content"] == markdown


def test_the_canonical_messages_are_not_changed() -> None:
    history = [SYSTEM, user("hi", _hook="h"), assistant("a"), assistant("b"), calls(("c", "echo", "{")),
               tool("c", "bad"), user("x"), PLANNING]
    before = copy.deepcopy(history)
    normalize(history)
    normalize(history, STRICT)
    assert history == before


def test_profile_named_falls_back_to_standard() -> None:
    assert (profile_named("strict"), profile_named("standard"), profile_named(None), profile_named("odd")) == (
        STRICT, STANDARD, STANDARD, STANDARD
    )


# ------------------------------------------------------------------ property

_text = st.text(st.characters(codec="utf-8"), max_size=12)
_ids = st.sampled_from(["call_1", "call_2", "abcDEF123", "", "call_1 "])
_arguments = st.one_of(
    st.sampled_from(["", "{}", '{"a": 1}', '{"a": ', "[1]", "null", '{"x": NaN}']),
    st.dictionaries(st.text(max_size=4), st.text(max_size=8), max_size=3).map(json.dumps),
)


@st.composite
def _tool_round(draw: st.DrawFn) -> list[JSONDict]:
    specs = draw(st.lists(st.tuples(_ids, st.sampled_from(["echo", "get_skill"]), _arguments), min_size=1, max_size=3))
    message = assistant_tool_calls(draw(st.one_of(st.none(), _text)), specs)
    answers = [tool(call_id, draw(_text)) for call_id, _, _ in specs]
    answers = draw(st.permutations(answers))
    return [message, *draw(st.lists(st.sampled_from(answers), max_size=4) if answers else st.just([]))]


_message = st.one_of(
    st.builds(lambda t: [{"role": "system", "content": t}], _text),
    st.builds(lambda t, hook: [user(t, _hook="h") if hook else user(t)], _text, st.booleans()),
    st.builds(lambda t, hook: [assistant(t, _hook="h") if hook else assistant(t)], _text, st.booleans()),
    st.builds(lambda i, t: [tool(i, t)], _ids, _text),
    _tool_round(),
)
_histories = st.lists(_message, max_size=12).map(lambda parts: [m for part in parts for m in part])


@settings(max_examples=300, deadline=None)
@given(_histories, st.sampled_from([STANDARD, STRICT]))
def test_every_rule_holds_for_any_canonical_history(history: list[JSONDict], profile: WireProfile) -> None:
    out = normalize(history, profile)
    assert wire_problems(out, system_role=profile.system_role) == []
    sent = [str(m["content"]) for m in out if m["content"]]
    for message in history:
        text = message["content"]
        if message["role"] in ("system", "user", "assistant") and text and text.strip():
            assert any(text in content for content in sent), text
    if any(m["role"] == "user" or (m["role"] == "system" and m["content"]) for m in history):
        assert out != []


def test_the_contract_check_finds_what_the_canonical_form_breaks() -> None:
    canonical = [SYSTEM, user("go"), assistant("Ok."), calls(("call_1", "echo", '{"a": ')),
                 tool("call_1", "bad"), user("next", _hook="h"), PLANNING]
    assert sorted(wire_problems(canonical)) == sorted([
        "#5: key '_hook'",
        "#6: system message",
        "#3: tool call id 'call_1' is not nine letters or digits",
        "#3: arguments are not JSON: '{\"a\": '",
        "the last message is 'system'",
        "#3: assistant right after assistant",
        "#5: user right after tool",
    ])


@pytest.mark.parametrize("depth", [65, 600])
def test_arguments_nested_deeper_than_tool_arguments_may_be_are_replayed_as_empty_with_their_start(depth: int) -> None:
    raw = '{"a": ' * depth + "1" + "}" * depth
    out = normalize([user("go"), calls(("c", "echo", raw)), tool("c", "Error: nested too deeply")])
    assert _calls(out[1])[0]["function"] == {"name": "echo", "arguments": "{}"}
    shown = raw[:RAW_ARGUMENTS_MAX] + "…"
    assert out[2]["content"] == f"Error: nested too deeply\n\n{ARGUMENTS_NOTE.format(raw=shown)}"


def test_a_deep_mapping_as_arguments_is_replayed_as_empty_without_being_walked() -> None:
    value: dict[str, Any] = {}
    for _ in range(5000):
        value = {"a": value}
    message: JSONDict = {"role": "assistant", "content": None,
                         "tool_calls": [{"id": "c", "type": "function", "function": {"name": "echo", "arguments": value}}]}
    out = normalize([user("go"), message, tool("c", "x")])
    assert as_object(_calls(out[1])[0]["function"])["arguments"] == "{}"
    assert out[2]["content"] == f"x\n\n{ARGUMENTS_NOTE.format(raw='an object nested more than 64 levels deep')}"


def _calls(message: JSONMapping) -> list[JSONMapping]:
    """A wire message's tool calls, each an object."""
    return [as_object(call) for call in as_list(message["tool_calls"])]
