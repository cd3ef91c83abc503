"""The tool-card reducer (pure): which state follows which bus message."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_agent.core.budget import Budget, cut_result
from desktop_agent.core.chat_handler import (
    REASON_INTERRUPTED,
    REASON_NOT_RUN,
    REASON_REJECTED,
    REASON_TIMEOUT,
)
from desktop_agent.core.messages import (
    ImageContent,
    ToolCallMessage,
    ToolCallState,
    ToolOutputMessage,
    ToolProgressMessage,
)
from desktop_agent.testing.window_rig import rejected_item, tool_item
from desktop_agent.texts import CHINESE, ENGLISH
from desktop_agent.ui.cards.phase import CardPhase
from desktop_agent.ui.cards.state import (
    OUTPUT_MAX_CHARS,
    CardUpdate,
    Progress,
    ToolCardState,
    answered,
    apply_message,
    auto_approved,
    invalidate,
    new_card,
)
from desktop_agent.ui.cards.wording import (
    arguments_summary,
    arguments_text,
    cut_note,
    elapsed_caption,
    format_elapsed,
    format_eta,
    outcome_text,
    output_tail,
    output_text,
    partial_text,
    progress_caption,
    title_for,
)

ARGS = {"command": "ls"}


def call(state: ToolCallState, **fields: Any) -> ToolCallMessage:
    return tool_item(state, "c1", "run_command", **fields)


def run_through(*messages: CardUpdate) -> list[str]:
    card = new_card(messages[0])
    seen: list[str] = [card.phase]
    for m in messages:
        card = apply_message(card, m)
        seen.append(card.phase)
    return seen


def test_a_call_that_needs_approval_goes_through_every_state() -> None:
    assert run_through(
        call("start", arguments=None),
        call("approval_required", arguments=ARGS, task_id="t1"),
        call("executing", arguments=ARGS),
        call("result", arguments=ARGS, result="ok", is_error=False),
    ) == ["preparing", "preparing", "approval", "executing", "done"]


def test_each_card_phase_equals_its_old_word() -> None:
    # The window's card_changed carries these; listeners and the style
    # sheet's [phase="…"] selectors compare them with the words.
    assert [phase.value for phase in CardPhase] == [
        "preparing", "approval", "executing", "done", "rejected", "invalidated"
    ]
    assert all(phase == phase.value for phase in CardPhase)


def test_a_skip_approval_call_goes_from_preparing_to_executing() -> None:
    assert run_through(call("start"), call("executing", arguments=ARGS), call("result", result="x")) == [
        "preparing",
        "preparing",
        "executing",
        "done",
    ]


def test_an_auto_approved_call_shows_as_executing_without_a_task() -> None:
    card = auto_approved(
        apply_message(new_card(call("start")), call("approval_required", arguments=ARGS, task_id="t1"))
    )
    assert (card.phase, card.task_id, card.auto_approved) == ("executing", None, True)


def test_approval_required_keeps_the_task_id_and_arguments() -> None:
    card = apply_message(new_card(call("start")), call("approval_required", arguments=ARGS, task_id="t7"))
    assert (card.phase, card.task_id, dict(card.arguments or {})) == ("approval", "t7", ARGS)


def test_the_result_carries_text_error_flag_and_images() -> None:
    image = ImageContent("image/png", b"\x89PNG")
    card = apply_message(
        new_card(call("start")), call("result", result="boom", is_error=True, images=(image,))
    )
    assert (card.phase, card.result, card.is_error, card.images) == ("done", "boom", True, (image,))


def test_tool_rejected_keeps_reason_and_partial_result() -> None:
    rejected = rejected_item(REASON_INTERRUPTED, "c1", arguments=ARGS, partial_result={"stdout": "half"})
    card = apply_message(apply_message(new_card(call("start")), call("executing", arguments=ARGS)), rejected)
    assert (card.phase, card.reason, card.outcome, card.partial_result) == (
        "invalidated",
        REASON_INTERRUPTED,
        "stopped",
        {"stdout": "half"},
    )


@pytest.mark.parametrize(
    ("reason", "phase", "outcome", "words"),
    [
        (REASON_REJECTED, "rejected", "rejected", "Rejected by you"),
        (REASON_TIMEOUT, "rejected", "timed_out", "No answer in 300 s — not run"),
        (REASON_INTERRUPTED, "invalidated", "stopped", "Stopped by you"),
        (REASON_NOT_RUN, "invalidated", "not_run", "Not run: the turn was interrupted"),
    ],
)
def test_each_rejection_reason_is_said_in_plain_words(
    reason: str, phase: str, outcome: str, words: str
) -> None:
    card = apply_message(new_card(call("start"), approval_timeout_s=300), rejected_item(reason, "c1"))
    assert (card.phase, card.outcome, outcome_text(ENGLISH, card)) == (phase, outcome, words)


def test_invalidating_says_whether_the_call_ran() -> None:
    preparing = new_card(call("start"))
    running = apply_message(preparing, call("executing", arguments=ARGS))
    assert outcome_text(ENGLISH, invalidate(preparing)) == "Not run: the turn was interrupted"
    assert outcome_text(ENGLISH, invalidate(running, user_stopped=True)) == "Stopped by you"
    assert outcome_text(ENGLISH, invalidate(running)) == "Stopped: the turn ended with an error"


def test_live_output_accumulates_and_keeps_its_end() -> None:
    card = apply_message(new_card(call("start")), call("executing", arguments=ARGS))
    for n in range(1, 6):
        card = apply_message(card, ToolOutputMessage("c1", "stdout", f"line {n}\n"))
    assert card.output == "".join(f"line {n}\n" for n in range(1, 6))
    assert output_tail(card, 2) == "line 4\nline 5"
    assert output_tail(card, 10) == card.output.rstrip("\n")
    big = apply_message(card, ToolOutputMessage("c1", "stderr", "x" * OUTPUT_MAX_CHARS))
    assert len(big.output) == OUTPUT_MAX_CHARS and big.output_cut == len(card.output)
    assert output_text(ENGLISH, big).startswith(f"[… {len(card.output)} earlier characters not kept …]\n")


def test_elapsed_time_wording() -> None:
    assert elapsed_caption(ENGLISH, 12.7, None) == "running · 12 s"
    assert elapsed_caption(ENGLISH, 125, Progress(1500, None, "indexing")) == "running · 2 min 5 s · 1500 · indexing"
    assert format_elapsed(ENGLISH, 3725) == "1 h 2 min"


def test_progress_with_and_without_a_total() -> None:
    card = apply_message(new_card(call("start")), call("executing", arguments=ARGS))
    unknown = apply_message(
        card, ToolProgressMessage("c1", progress=3, total=None, message="working", eta_s=None)
    )
    known = apply_message(card, ToolProgressMessage("c1", progress=1, total=4, message=None, eta_s=9.5))
    assert unknown.progress == Progress(3.0, None, "working", None)
    assert unknown.progress.percent is None
    assert known.progress == Progress(1.0, 4.0, None, 9.5)
    assert known.progress.percent == 25


def test_a_terminal_card_ignores_later_messages() -> None:
    done = apply_message(new_card(call("start")), call("result", result="ok"))
    late = rejected_item("late", "c1")
    assert apply_message(done, late) is done
    assert invalidate(done) is done


def test_invalidate_turns_only_pending_cards_invalid() -> None:
    for phase in (CardPhase.PREPARING, CardPhase.APPROVAL, CardPhase.EXECUTING):
        card = ToolCardState("c", "t", phase, task_id="x")
        assert (invalidate(card).phase, invalidate(card).task_id) == ("invalidated", None)
    for phase in (CardPhase.DONE, CardPhase.REJECTED, CardPhase.INVALIDATED):
        card = ToolCardState("c", "t", phase)
        assert invalidate(card) is card


def test_answering_moves_an_approval_card_to_executing_or_rejected() -> None:
    card = ToolCardState("c", "t", CardPhase.APPROVAL, task_id="t1")
    assert answered(card, True).phase == "executing"
    assert answered(card, False).phase == "rejected"
    other = ToolCardState("c", "t", CardPhase.EXECUTING)
    assert answered(other, False) is other


def test_progress_percent_is_clamped() -> None:
    assert [Progress(p, 10).percent for p in (-1, 0, 5, 10, 12)] == [0, 0, 50, 100, 100]
    assert Progress(5, 0).percent is None


def test_eta_wording() -> None:
    assert [format_eta(ENGLISH, s) for s in (0, 0.2, 12, 59.5, 60, 61, 3599, 3600, 5400)] == [
        "1 s",
        "1 s",
        "12 s",
        "1 min",
        "1 min",
        "2 min",
        "1 h",
        "1 h",
        "1 h 30 min",
    ]


def test_progress_caption_shows_only_what_is_known() -> None:
    assert progress_caption(ENGLISH, Progress(42, 100, "copying", 75)) == "42% · about 2 min left · copying"
    assert progress_caption(ENGLISH, Progress(42, 100)) == "42%"
    assert progress_caption(ENGLISH, Progress(3, None, "step three", 10)) == "3 · step three"
    assert progress_caption(ENGLISH, Progress(0, None, None)) == ""


def test_titles_in_both_languages() -> None:
    card = ToolCardState("c", "run_command", CardPhase.APPROVAL)
    assert title_for(CHINESE, card) == "run_command 需要授权"
    assert title_for(ENGLISH, card) == "run_command needs your approval"
    assert title_for(ENGLISH, ToolCardState("c", "x", CardPhase.DONE, is_error=True)) == "x — failed"


def test_arguments_and_partial_results_as_text() -> None:
    assert arguments_text({"command": "ls -la", "timeout_s": 5, "env": {"A": "1"}}) == (
        'command: ls -la\ntimeout_s: 5\nenv: {"A": "1"}'
    )
    assert arguments_text(None) == ""
    assert partial_text({"stdout": "out\n", "stderr": "", "progress": ["1/3", "2/3"]}) == (
        "[stdout]\nout\n[progress]\n1/3\n2/3"
    )
    assert partial_text("plain") == "plain"
    assert partial_text(None) == ""


def test_a_one_line_summary_names_the_key_arguments() -> None:
    assert arguments_summary({"timezone": "UTC"}) == "timezone: UTC"
    assert arguments_summary({"command": "ls   -la\n~", "timeout_s": 5}) == "command: ls -la ~ · timeout_s: 5"
    assert arguments_summary({"n": [1, 2]}) == "n: [1, 2]"
    assert arguments_summary({"title": "Trip", "questions": [{"id": "q"}], "fields": {}}) == "title: Trip"
    assert arguments_summary({"q": "x" * 80}, limit=10) == "q: xxxxxx…"
    assert arguments_summary(None) == ""


def test_a_sub_agent_whose_step_got_no_answer_says_so_not_rejected_by_you() -> None:
    partial = {"text": "Checking.", "stopped_call": {"tool_call_id": "n1", "tool_name": "run_command",
                                                    "arguments": {}, "reason": "approval_timeout"}}
    card = apply_message(
        new_card(call("start"), approval_timeout_s=300),
        rejected_item(REASON_REJECTED, "c1", "sub_agent", partial_result=partial),
    )
    assert (card.phase, card.outcome, outcome_text(ENGLISH, card)) == (
        "rejected", "step_timed_out", "Stopped: a step got no answer in 300 s"
    )
    rejected = dict(partial, stopped_call={**partial["stopped_call"], "reason": "rejected"})  # type: ignore[dict-item]
    card = apply_message(new_card(call("start")), rejected_item(REASON_REJECTED, "c1", partial_result=rejected))
    assert outcome_text(ENGLISH, card) == "Rejected by you"


def test_a_cut_result_is_said_in_both_languages_only_once_the_call_is_done() -> None:
    result = cut_result("汉字" * 100_000, Budget())
    done = ToolCardState("c1", "read", CardPhase.DONE, {}, result=result)
    assert cut_note(ENGLISH, done).startswith("Result cut to fit the model's context: ")
    assert cut_note(ENGLISH, done).endswith(" characters left out")
    left = cut_note(CHINESE, done).split("省略了 ")[1].split(" 个字符")[0]
    assert cut_note(CHINESE, done) == f"结果过长，为适应模型的上下文已截断：省略了 {left} 个字符"
    assert int(left.replace(",", "")) > 190_000
    assert cut_note(ENGLISH, ToolCardState("c1", "read", CardPhase.DONE, {}, result="whole")) == ""
    assert cut_note(ENGLISH, ToolCardState("c1", "read", CardPhase.REJECTED, {}, result=result)) == ""
