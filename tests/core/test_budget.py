"""The request budget: cutting one text to a size, and fitting a request."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_agent.core.budget import (
    CONTEXT_CUT_MARK,
    RESULT_CUT_MARK,
    Budget,
    cut_result,
    cut_text,
    fit_request,
    item_size,
    result_cut,
    utf8_size,
)
from desktop_agent.core.json_types import JSONMapping, JSONObject, as_list, as_object
from desktop_agent.core.prompts import CONTINUE_MESSAGE
from desktop_agent.core.wire import assistant_tool_calls, history_messages, normalize, tool_message
from desktop_agent.storage.history_json import history_item, history_items
from desktop_agent.testing.wire_contract import wire_problems

_TEXT = st.text(alphabet=st.one_of(st.characters(codec="utf-8"), st.sampled_from("汉字。🙂\n\ud800")), max_size=400)


def _parts(cut: str, mark: str = CONTEXT_CUT_MARK) -> tuple[str, int, str]:
    """(head, characters said to be left out, tail) of a cut text."""
    before, after = mark.split("{left}")
    head, rest = cut.split("\n\n" + before, 1)
    count, tail = rest.split(after + "\n\n", 1)
    return head, int(count.replace(",", "")), tail


# ------------------------------------------------------------------ one text


@settings(max_examples=300, deadline=None)
@given(_TEXT, st.integers(min_value=120, max_value=600))
def test_a_cut_text_fits_keeps_a_head_and_a_tail_and_counts_what_it_left_out(text: str, limit: int) -> None:
    cut = cut_text(text, limit)
    assert utf8_size(cut) <= limit
    if utf8_size(text) <= limit:
        assert cut is text
        return
    head, left, tail = _parts(cut)
    assert text.startswith(head) and text.endswith(tail)
    assert left == len(text) - len(head) - len(tail) > 0


def test_chinese_is_cut_between_characters_and_sized_in_bytes() -> None:
    text = "汉字测试结果。" * 1000  # 21,000 bytes, 7,000 characters
    cut = cut_text(text, 3000, RESULT_CUT_MARK)
    head, left, tail = _parts(cut, RESULT_CUT_MARK)
    assert utf8_size(cut) <= 3000 < len(cut) * 3 + 1
    assert head == text[: len(head)] and tail == text[len(text) - len(tail) :]
    assert abs(len(head) - 2 * len(tail)) <= 2  # two thirds of the room before the marker, a third after
    assert left == 7000 - len(head) - len(tail)
    assert result_cut(cut) == f"{left:,}"


def test_a_limit_with_no_room_gives_the_marker_alone() -> None:
    assert cut_text("x" * 1000, 10) == CONTEXT_CUT_MARK.format(left="1,000")


def test_a_result_is_cut_to_a_quarter_of_the_request_and_says_so() -> None:
    budget = Budget(32768)
    assert (budget.reply_tokens, budget.request_bytes, budget.result_bytes) == (4096, 86016, 21504)
    assert Budget(4096).reply_tokens == 1024
    whole = "".join(f"line {n:07d}\n" for n in range(100_000))
    cut = cut_result(whole, budget)
    assert utf8_size(cut) <= budget.result_bytes
    assert result_cut(cut) == f"{_parts(cut, RESULT_CUT_MARK)[1]:,}"
    assert cut_result("short", budget) == "short" and result_cut("short") is None
    assert result_cut(cut_text(whole, 500)) is None  # a request's cut is not a result's


def test_the_tool_schemas_take_their_room_but_never_more_than_three_quarters() -> None:
    budget = Budget(32768)
    tools: list[JSONObject] = [{"type": "function", "function": {"name": "t", "description": "d" * 1000}}]
    assert budget.messages_bytes(None) == budget.request_bytes
    assert budget.messages_bytes(tools) == budget.request_bytes - len(json.dumps(tools))
    assert budget.messages_bytes(tools * 1000) == budget.request_bytes // 4


# ------------------------------------------------------------- one request


def _call_round(call_id: str, result: str, text: str | None = None) -> list[JSONObject]:
    return [assistant_tool_calls(text, [(call_id, "read", json.dumps({"path": "/x" * 50}))]),
            tool_message(call_id, result)]


def _conversation(turns: int, result: str) -> list[JSONObject]:
    messages: list[JSONObject] = [{"role": "system", "content": "You are helpful."}]
    for n in range(turns):
        messages.append({"role": "user", "content": f"question {n} " + "q" * 200})
        messages.extend(_call_round(f"old{n}", result))
        messages.append({"role": "assistant", "content": f"answer {n} " + "a" * 200})
    return messages


def _size(messages: Sequence[JSONMapping]) -> int:
    return sum(map(message_size, messages))


def message_size(message: JSONMapping) -> int:
    """A message's estimated size, as the item it stands for."""
    return item_size(history_item(message))


@dataclass(frozen=True)
class _Fitted:
    messages: list[JSONMapping]
    changed: int


def _fit(messages: Sequence[JSONMapping], limit: int) -> _Fitted:
    """``fit_request`` on the items these messages stand for, the result as messages again."""
    fitted = fit_request(history_items(messages), limit)
    return _Fitted(history_messages(fitted.items), fitted.changed)


def test_a_request_that_fits_is_sent_as_it_is() -> None:
    messages = _conversation(2, "small")
    items = history_items(messages)
    fitted = fit_request(items, 100_000)
    assert fitted.changed == 0 and history_messages(fitted.items) == messages
    assert all(a is b for a, b in zip(fitted.items, items, strict=True))


def test_earlier_tool_results_go_first_then_the_request_fits() -> None:
    messages: list[JSONObject] = [*_conversation(3, "r" * 2000), {"role": "user", "content": "now this"}]
    limit = _size(messages) - 3000
    before = [dict(m) for m in messages]
    fitted = _fit(messages, limit)
    assert messages == before  # never changed in place
    assert _size(fitted.messages) <= limit
    answers = [m["content"] for m in fitted.messages if m["role"] == "tool"]
    assert answers == [CONTEXT_CUT_MARK.format(left="2,000"), CONTEXT_CUT_MARK.format(left="2,000"), "r" * 2000]
    assert [m for m in fitted.messages if m["role"] != "tool"] == [m for m in messages if m["role"] != "tool"]


def test_the_system_prompt_the_users_message_and_the_current_round_are_kept_while_older_text_goes() -> None:
    current = _call_round("now", "fresh result " * 50)
    turn: JSONObject = {"role": "user", "content": "the user's question " * 20}
    messages: list[JSONObject] = [*_conversation(4, "r" * 100), turn, {"role": "assistant", "content": "<voice>On it.</voice>"},
                {"role": "user", "content": CONTINUE_MESSAGE}, *current]
    protected = [messages[0], turn, *current]
    limit = sum(message_size(m) for m in protected) + 600
    fitted = _fit(messages, limit)
    assert _size(fitted.messages) <= limit
    assert fitted.messages[0] == messages[0] and turn in fitted.messages
    assert fitted.messages[-2:] == current
    assert fitted.changed > 0


def test_whole_exchanges_are_dropped_oldest_first_when_markers_are_still_too_much() -> None:
    messages: list[JSONObject] = [*_conversation(60, "r"), {"role": "user", "content": "last"}]
    limit = 3000
    fitted = _fit(messages, limit)
    assert _size(fitted.messages) <= limit
    roles = [m["role"] for m in fitted.messages]
    assert roles[0] == "system" and roles[1] == "user" and fitted.messages[-1] == {"role": "user", "content": "last"}
    kept_ids = [as_object(c)["id"] for m in fitted.messages for c in as_list(m.get("tool_calls"))]
    answered = [m["tool_call_id"] for m in fitted.messages if m["role"] == "tool"]
    assert kept_ids == answered and kept_ids  # calls and answers went together
    assert kept_ids[-1] == "old59"  # the newest stay


def test_the_last_resort_cuts_the_largest_texts_to_one_length() -> None:
    skill = "skill step. " * 20_000  # 240 KB
    messages: list[JSONObject] = [
        {"role": "system", "content": "prompt"},
        {"role": "user", "content": "/huge go"},
        {"role": "system", "content": skill},
        *_call_round("c1", "result " * 5000),
    ]
    limit = 20_000
    fitted = _fit(messages, limit)
    assert _size(fitted.messages) <= limit
    texts = [m["content"] for m in fitted.messages]
    assert texts[:2] == ["prompt", "/huge go"] and texts[3] is None
    assert utf8_size(str(texts[2])) == utf8_size(str(texts[4]))  # both cut to one length
    assert limit - 2 <= _size(fitted.messages)  # the largest that fits: the room is used
    head, _, tail = _parts(str(texts[2]))
    assert skill.startswith(head) and skill.endswith(tail)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3000), st.integers(0, 3), st.integers(0, 3000)), min_size=1, max_size=8),
    st.integers(0, 4000), st.integers(1500, 30_000),
)
def test_any_fitted_request_keeps_the_wire_rules_and_fits(
    turns: list[tuple[int, int, int]], last: int, limit: int
) -> None:
    messages: list[JSONObject] = [{"role": "system", "content": "s" * 300}]
    for n, (asked, calls, answered) in enumerate(turns):
        messages.append({"role": "user", "content": "汉" * asked})
        for k in range(calls):
            messages.extend(_call_round(f"c{n}_{k}", "r" * answered, "t" * (answered // 3)))
        messages.append({"role": "assistant", "content": "a" * answered})
    messages.append({"role": "user", "content": "u" * last})
    fitted = _fit(messages, limit).messages
    assert _size(fitted) <= limit
    assert wire_problems(normalize(fitted)) == []
