"""History from consumed bus messages (DESIGN §6) and truncation before sending."""

from __future__ import annotations

import pytest

from desktop_agent.core.history import (
    TRUNCATION_MARK,
    HistoryError,
    HistoryRecorder,
    check_history,
    truncate_for_send,
)


def text(raw: str, seg: int = 1) -> dict[str, object]:
    return {"type": "text", "segment_id": seg, "text": raw, "raw_text": raw, "voice": False}


def call(state: str, cid: str = "c1", args: object = None, **kw: object) -> dict[str, object]:
    return {"type": "tool_call", "state": state, "tool_call_id": cid, "tool_name": "run_command",
            "arguments": args, **kw}


def record(*messages: dict[str, object]) -> list[dict[str, object]]:
    recorder = HistoryRecorder()
    for m in messages:
        recorder.consume(m)
    return recorder.messages


def test_rounds_become_separate_assistant_messages_and_tools_merge_text() -> None:
    history = record(
        text("Let me check.<need_tool>"),
        {"type": "round_end", "round": 0, "kind": "planning"},
        text(" Running it now."),
        call("start"), call("approval_required", args={"command": "date"}, task_id="t1"),
        call("executing", args={"command": "date"}),
        call("result", args={"command": "date"}, result="Mon", is_error=False),
        {"type": "round_end", "round": 1, "kind": "tools"},
        text("<voice>It is Monday.</voice>"),
        {"type": "round_end", "round": 2, "kind": "tools"},
        {"type": "turn_end"},
    )
    assert history == [
        {"role": "assistant", "content": "Let me check."},
        {"role": "assistant", "content": "Running it now.", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "run_command", "arguments": '{"command": "date"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "Mon"},
        {"role": "assistant", "content": "<voice>It is Monday.</voice>"},
    ]
    check_history(history)


def test_rejected_call_becomes_tool_message_with_partial_result_first() -> None:
    history = record(
        call("start"), call("approval_required", args={"command": "yes"}, task_id="t1"),
        call("executing", args={"command": "yes"}),
        {"type": "tool_rejected", "tool_call_id": "c1", "tool_name": "run_command", "arguments": {"command": "yes"},
         "reason": "The tool call was interrupted by the user.", "partial_result": {"stdout": "y\ny\n"}},
        {"type": "interrupted", "reason": "user"},
        {"type": "turn_end"},
    )
    assert history == [
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "run_command", "arguments": '{"command": "yes"}'}}]},
        {"role": "tool", "tool_call_id": "c1",
         "content": '{"stdout": "y\\ny\\n"}\nThe tool call was interrupted by the user.'},
    ]


def test_call_interrupted_before_arguments_leaves_no_tool_calls() -> None:
    history = record(text("Hmm."), call("start"), {"type": "interrupted", "reason": "user"}, {"type": "turn_end"})
    assert history == [{"role": "assistant", "content": "Hmm."}]
    check_history(history)


def test_truncation_cuts_tool_context_except_whitelisted_tools() -> None:
    long = "x" * 500
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "run_command", "arguments": long}},
            {"id": "b", "type": "function", "function": {"name": "get_skill", "arguments": long}}]},
        {"role": "tool", "tool_call_id": "a", "content": long},
        {"role": "tool", "tool_call_id": "b", "content": long},
    ]
    out = truncate_for_send(messages)
    assert out[1]["tool_calls"][0]["function"]["arguments"] == "x" * 300 + TRUNCATION_MARK
    assert out[1]["tool_calls"][1]["function"]["arguments"] == long
    assert out[2]["content"] == "x" * 300 + TRUNCATION_MARK
    assert out[3]["content"] == long
    assert messages[2]["content"] == long  # the original is untouched


@pytest.mark.parametrize(
    "messages",
    [
        [{"role": "assistant", "tool_calls": [{"id": "a"}]}],
        [{"role": "assistant", "tool_calls": [{"id": "a"}]}, {"role": "user", "content": "x"}],
        [{"role": "tool", "tool_call_id": "z", "content": ""}],
        [{"role": "assistant", "tool_calls": [{"id": "a"}]}, {"role": "tool", "tool_call_id": "a"},
         {"role": "tool", "tool_call_id": "a"}],
    ],
)
def test_check_history_rejects_unanswered_or_doubly_answered_calls(messages: list[dict[str, object]]) -> None:
    with pytest.raises(HistoryError):
        check_history(messages)
