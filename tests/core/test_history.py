"""History from consumed bus messages (contracts §6), as typed items, and truncation before sending."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from desktop_agent.core.history import (
    TRUNCATION_MARK,
    HistoryError,
    HistoryRecorder,
    check_history,
    truncate_for_send,
)
from desktop_agent.core.history_items import (
    AssistantMessage,
    HistoryItem,
    ToolAnswer,
    ToolCall,
    UserMessage,
)
from desktop_agent.core.messages import (
    BusMessage,
    InterruptedMessage,
    RoundEndMessage,
    TextMessage,
    ToolCallMessage,
    ToolCallState,
    ToolRejectedMessage,
    TurnEndMessage,
)
from desktop_agent.core.stream_parser import StreamParser, strip_tags
from desktop_agent.core.wire import TOOL_ERROR_PREFIX, tool_answer


def text(raw: str, seg: int = 1) -> TextMessage:
    return TextMessage(seg, strip_tags(raw), raw, False)


def call(state: ToolCallState, cid: str = "c1", args: dict[str, Any] | None = None, **kw: Any) -> ToolCallMessage:
    return ToolCallMessage(state, cid, "run_command", args, **kw)


def record(*messages: BusMessage) -> list[HistoryItem]:
    recorder = HistoryRecorder()
    for m in messages:
        recorder.consume(m)
    return recorder.messages


def test_rounds_become_separate_assistant_messages_and_tools_merge_text() -> None:
    history = record(
        text("Let me check.<need_tool>"),
        RoundEndMessage(0, "planning"),
        text(" Running it now."),
        call("start"), call("approval_required", args={"command": "date"}, task_id="t1"),
        call("executing", args={"command": "date"}),
        call("result", args={"command": "date"}, result="Mon", is_error=False),
        RoundEndMessage(1, "tools"),
        text("<voice>It is Monday.</voice>"),
        RoundEndMessage(2, "tools"),
        TurnEndMessage(),
    )
    assert history == [
        AssistantMessage("Let me check."),
        AssistantMessage(" Running it now.", (ToolCall("c1", "run_command", '{"command": "date"}'),)),
        ToolAnswer("c1", "Mon"),
        AssistantMessage("<voice>It is Monday.</voice>"),
    ]
    check_history(history)


def test_rejected_call_becomes_tool_message_with_partial_result_first() -> None:
    history = record(
        call("start"), call("approval_required", args={"command": "yes"}, task_id="t1"),
        call("executing", args={"command": "yes"}),
        ToolRejectedMessage("c1", "run_command", {"command": "yes"}, "The tool call was interrupted by the user.",
                            {"stdout": "y\ny\n"}),
        InterruptedMessage("user"),
        TurnEndMessage(),
    )
    assert history == [
        AssistantMessage(None, (ToolCall("c1", "run_command", '{"command": "yes"}'),)),
        ToolAnswer("c1", '{"stdout": "y\\ny\\n"}\nThe tool call was interrupted by the user.'),
    ]


def test_call_interrupted_before_arguments_leaves_no_tool_calls() -> None:
    history = record(text("Hmm."), call("start"), InterruptedMessage("user"), TurnEndMessage())
    assert history == [AssistantMessage("Hmm.")]
    check_history(history)


def test_truncation_cuts_tool_context_except_whitelisted_tools() -> None:
    long = "x" * 500
    messages: list[HistoryItem] = [
        UserMessage("hi"),
        AssistantMessage(None, (ToolCall("a", "run_command", long), ToolCall("b", "get_skill", long))),
        ToolAnswer("a", long),
        ToolAnswer("b", long),
    ]
    out = truncate_for_send(messages)
    assert arguments_of(out[1], 0) == "x" * 300 + TRUNCATION_MARK  # not JSON: cut as text
    assert arguments_of(out[1], 1) == long
    assert out[2] == ToolAnswer("a", "x" * 300 + TRUNCATION_MARK)
    assert out[3] == ToolAnswer("b", long)
    assert messages[2] == ToolAnswer("a", long)  # the original is untouched


def test_truncation_cuts_long_string_values_inside_the_arguments_and_keeps_them_json() -> None:
    arguments = {"path": "/tmp/x", "body": "b" * 500, "lines": ["l" * 400, 7], "opts": {"note": "n" * 301}}
    messages: list[HistoryItem] = [
        AssistantMessage(None, (ToolCall("a", "write", json.dumps(arguments)),)), ToolAnswer("a", "ok"),
    ]
    cut = json.loads(str(arguments_of(truncate_for_send(messages)[0], 0)))
    assert cut == {
        "path": "/tmp/x",
        "body": "b" * 300 + TRUNCATION_MARK,
        "lines": ["l" * 300 + TRUNCATION_MARK, 7],
        "opts": {"note": "n" * 300 + TRUNCATION_MARK},
    }


def test_arguments_with_nothing_to_cut_keep_their_exact_text() -> None:
    text = '{ "command" : "ls -l" }'
    messages: list[HistoryItem] = [AssistantMessage(None, (ToolCall("a", "run_command", text),))]
    assert arguments_of(truncate_for_send(messages)[0], 0) == text


def test_a_failed_result_is_marked_as_an_error_for_the_model() -> None:
    history = record(
        call("start"), call("executing", args={"command": "false"}),
        call("result", args={"command": "false"}, result="exit code 1", is_error=True), TurnEndMessage(),
    )
    assert history[-1] == ToolAnswer("c1", f"{TOOL_ERROR_PREFIX}exit code 1")
    assert tool_answer("Error: bad JSON", is_error=True) == "Error: bad JSON"  # marked once
    assert tool_answer("fine", is_error=False) == "fine"
    assert tool_answer("", is_error=True) == "Error: the tool failed without a message"


@pytest.mark.parametrize(
    "messages",
    [
        [AssistantMessage(None, (ToolCall("a", "t", "{}"),))],
        [AssistantMessage(None, (ToolCall("a", "t", "{}"),)), UserMessage("x")],
        [ToolAnswer("z", "")],
        [AssistantMessage(None, (ToolCall("a", "t", "{}"),)), ToolAnswer("a", ""), ToolAnswer("a", "")],
        [AssistantMessage(None, (ToolCall("a", "t", "{}"), ToolCall("a", "t", "{}"))), ToolAnswer("a", "")],
    ],
)
def test_check_history_rejects_unanswered_or_doubly_answered_calls(messages: list[HistoryItem]) -> None:
    with pytest.raises(HistoryError):
        check_history(messages)


def test_a_list_after_a_spoken_sentence_keeps_its_line_break_in_history() -> None:
    parser = StreamParser()
    segments = parser.feed("<voice>All done.</voice>\n- one\n- two") + parser.flush()
    history = record(*(TextMessage(i, s.text, s.raw_text, s.voice) for i, s in enumerate(segments, 1)),
                     TurnEndMessage())
    assert history == [AssistantMessage("<voice>All done.</voice>\n- one\n- two")]


_PIECES = st.one_of(
    st.text(alphabet="ab 你好。！？!?.,，\n-#`*", min_size=1, max_size=10),
    st.sampled_from(["<voice>", "</voice>", "<no_tool>", "<need_tool>", "\n- item\n", "\n\n## Head\n", "  "]),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_PIECES, min_size=1, max_size=12), st.lists(st.integers(0, 200), max_size=8))
@example(pieces=[" ", "<voice>"], cuts=[])  # blank text and a tag: no assistant message
def test_history_keeps_every_character_of_the_reply_under_any_chunking(pieces: list[str], cuts: list[int]) -> None:
    reply = "".join(pieces)
    bounds = sorted({0, len(reply), *(c % (len(reply) + 1) for c in cuts)})
    parser = StreamParser()
    segments = [s for a, b in itertools.pairwise(bounds) for s in parser.feed(reply[a:b])] + parser.flush()
    # What the chat handler pushes: every segment with something in its text.
    shown = [TextMessage(i, s.text, s.raw_text, s.voice) for i, s in enumerate(segments, 1) if s.text]
    history = record(*shown, RoundEndMessage(1, "continuation"))
    assert all(isinstance(item, AssistantMessage) for item in history)
    content = history[0].content if history and isinstance(history[0], AssistantMessage) else None
    visible = strip_tags(reply)
    if not visible.strip():
        assert content is None
        return
    assert isinstance(content, str)
    assert strip_tags(content) == visible  # every space and newline kept
    assert "<no_tool>" not in content and "<need_tool>" not in content


def test_messages_with_nothing_to_cut_are_passed_on_not_copied() -> None:
    short = AssistantMessage(None, (ToolCall("a", "run_command", '{"command": "ls"}'),))
    long = AssistantMessage(None, (ToolCall("b", "run_command", "x" * 500),))
    messages: list[HistoryItem] = [
        UserMessage("hi"), short, ToolAnswer("a", "ok"), long, ToolAnswer("b", "y" * 500),
    ]
    out = truncate_for_send(messages)
    assert [a is b for a, b in zip(out, messages, strict=True)] == [True, True, True, False, False]
    assert long.tool_calls[0].arguments == "x" * 500  # the original is untouched
    assert messages[4] == ToolAnswer("b", "y" * 500)


def test_arguments_nested_too_deeply_in_a_saved_history_are_cut_as_text_not_walked() -> None:
    deep = '{"a": ' * 600 + '"' + "x" * 400 + '"' + "}" * 600  # json.loads accepts it; a recursive walk did not
    messages: list[HistoryItem] = [AssistantMessage(None, (ToolCall("a", "t", deep),)), ToolAnswer("a", "ok")]
    assert arguments_of(truncate_for_send(messages)[0], 0) == deep[:300] + TRUNCATION_MARK


def arguments_of(item: HistoryItem, index: int) -> str:
    """The arguments text of ``item``'s tool call number ``index``."""
    assert isinstance(item, AssistantMessage)
    return item.tool_calls[index].arguments
