"""TurnView renders what the playback queue consumed (plain qtbot)."""

from __future__ import annotations

from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from desktop_agent.core.chat_handler import (
    REASON_INTERRUPTED,
    REASON_NO_ANSWER,
    REASON_NOT_RUN,
    REASON_REJECTED,
    REASON_TIMEOUT,
)
from desktop_agent.core.forms import FormQuestion
from desktop_agent.core.messages import (
    Card,
    CardField,
    CardMessage,
    ErrorMessage,
    FormRequestMessage,
    FormSource,
    InterruptedMessage,
    RoundEndMessage,
    TextMessage,
    TurnEndMessage,
    WarningMessage,
)
from desktop_agent.testing.window_rig import form_item, rejected_item, text_item, tool_item
from desktop_agent.texts import ENGLISH
from desktop_agent.ui.cards.form_widget import FormWidget
from desktop_agent.ui.cards.tool_card import ToolCardWidget
from desktop_agent.ui.cards.visual_card import VisualCardWidget
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.chat_view import ChatView
from desktop_agent.ui.chat.system_message import SystemMessage
from desktop_agent.ui.chat.turn_view import TurnView


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def __call__(self, *args: Any) -> None:
        self.calls.append(args)


@pytest.fixture
def chat(qtbot: QtBot) -> ChatView:
    view = ChatView(ENGLISH)
    qtbot.add_widget(view)
    return view


def text(shown: str, segment: int = 1, raw: str | None = None) -> TextMessage:
    """A text segment showing ``shown`` (``raw``: the stream's slice, tags included)."""
    return text_item(shown, segment, raw_text=raw)


def layout(chat: ChatView) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for w in chat.items():
        if isinstance(w, MessageBubble):
            out.append((w.role, w.text()))
        elif isinstance(w, ToolCardWidget):
            out.append(("card", f"{w.state.tool_call_id}:{w.state.phase}"))
        elif isinstance(w, SystemMessage):
            out.append(("system", w.text()))
        elif isinstance(w, FormWidget):
            out.append(("form", w.form_id))
        elif isinstance(w, VisualCardWidget):
            out.append(("visual", w.title.text()))
    return out


def test_text_joins_one_bubble_until_a_card_and_keeps_markdown_newlines(chat: ChatView) -> None:
    view = TurnView(chat)
    view.show_text(text("# Plan\n\n", 1))
    view.show_text(text("- one\n", 2))
    view.show_text(text("Checking.", 3, raw="Checking.<need_tool>"))
    view.tool_event(tool_item("start", "c1"))
    view.show_text(text("After.", 4))
    assert layout(chat) == [
        ("assistant", "# Plan\n\n- one\nChecking."),
        ("card", "c1:preparing"),
        ("assistant", "After."),
    ]


def test_each_tool_call_id_gets_its_own_card(chat: ChatView) -> None:
    view = TurnView(chat)
    for cid in ("c1", "c2"):
        view.tool_event(tool_item("start", cid))
        view.tool_event(tool_item("executing", cid, arguments={"command": cid}))
    view.tool_event(tool_item("result", "c1", arguments={"command": "c1"}, result="one"))
    assert layout(chat) == [("card", "c1:done"), ("card", "c2:executing")]


def test_approval_renders_buttons_and_asks_for_attention(chat: ChatView) -> None:
    attention, cards = Recorder(), Recorder()
    view = TurnView(chat, on_attention=attention, on_card=lambda s: cards(s.tool_call_id, s.phase))
    view.tool_event(tool_item("start", "c1"))
    view.approval_needed(tool_item("approval_required", "c1", arguments={"command": "x"}, task_id="t1"))
    assert view.card_state("c1") is not None and view.card_state("c1").task_id == "t1"  # type: ignore[union-attr]
    assert attention.calls == [("approval", "c1", "run_command is waiting for your approval")]
    assert cards.calls == [("c1", "preparing"), ("c1", "approval")]


def test_card_buttons_reach_the_window_callback(chat: ChatView) -> None:
    answers = Recorder()
    view = TurnView(chat, on_answer=answers)
    view.tool_event(tool_item("start", "c1"))
    view.approval_needed(tool_item("approval_required", "c1", arguments={}, task_id="t1"))
    view.cards["c1"].approve_button.click()
    assert answers.calls == [("c1", True, False)]


def test_a_reject_click_says_rejected_by_you_and_conversation_interrupted_once(chat: ChatView) -> None:
    view = TurnView(chat)
    view.tool_event(tool_item("start", "c1"))
    view.approval_needed(tool_item("approval_required", "c1", arguments={}, task_id="t1"))
    view.mark_answered("c1", False)
    view.tool_event(rejected_item(REASON_REJECTED, "c1"))
    view.interrupted(InterruptedMessage("rejected"))
    assert layout(chat) == [("card", "c1:rejected"), ("system", "Conversation interrupted")]
    assert view.cards["c1"].reason.text() == "Rejected by you"


def test_a_user_interrupt_invalidates_pending_cards_and_forms(chat: ChatView) -> None:
    interrupted = Recorder()
    view = TurnView(chat, on_interrupted=interrupted)
    view.tool_event(tool_item("start", "c1"))
    view.tool_event(tool_item("executing", "c1", arguments={"command": "sleep 9"}))
    view.tool_event(tool_item("start", "c2", "ask_user_question"))
    view.tool_event(tool_item("executing", "c2", "ask_user_question", arguments={"question": "?"}))
    view.tool_event(form_item("c2", "f1", [{"id": "q1", "question": "?", "type": "text"}], title=None))
    view.tool_event(tool_item("start", "c3"))
    view.tracker.interrupt_clicked()
    view.tool_event(rejected_item(REASON_INTERRUPTED, "c2", "ask_user_question"))
    view.interrupted(InterruptedMessage("user"))
    assert layout(chat) == [
        ("card", "c1:invalidated"),
        ("card", "c2:invalidated"),
        ("form", "f1"),
        ("card", "c3:invalidated"),
        ("system", "Conversation interrupted"),
    ]
    # Plain words for what happened: running calls were stopped, a call
    # still being prepared never ran.
    assert [view.cards[c].reason.text() for c in ("c1", "c2", "c3")] == [
        "Stopped by you",
        "Stopped by you",
        "Not run: the turn was interrupted",
    ]
    assert view.forms["f1"].ended == "closed"
    assert interrupted.calls == [("user",)]


def test_an_approval_timeout_rejects_the_card_and_says_so(chat: ChatView) -> None:
    view = TurnView(chat, approval_timeout_s=300)
    view.tool_event(tool_item("start", "c1"))
    view.approval_needed(tool_item("approval_required", "c1", arguments={}, task_id="t1"))
    view.tool_event(rejected_item(REASON_TIMEOUT, "c1"))
    view.interrupted(InterruptedMessage("approval_timeout"))
    assert layout(chat) == [
        ("card", "c1:rejected"),
        ("system", "Tool approval timed out; the call was rejected and the conversation interrupted"),
    ]
    assert view.cards["c1"].reason.text() == "No answer in 300 s — not run"


def test_an_interrupt_while_approval_waits_says_not_run_not_rejected(chat: ChatView) -> None:
    view = TurnView(chat)
    view.tool_event(tool_item("start", "c1"))
    view.approval_needed(tool_item("approval_required", "c1", arguments={}, task_id="t1"))
    view.tracker.interrupt_clicked()
    view.tool_event(rejected_item(REASON_NOT_RUN, "c1"))
    view.interrupted(InterruptedMessage("user"))
    assert layout(chat) == [("card", "c1:invalidated"), ("system", "Conversation interrupted")]
    assert (view.cards["c1"].title.text(), view.cards["c1"].reason.text()) == (
        "run_command — not run",
        "Not run: the turn was interrupted",
    )


def test_a_cancelled_form_leaves_its_card_not_answered(chat: ChatView) -> None:
    cancelled = Recorder()
    view = TurnView(chat, on_form_cancel=cancelled)
    view.tool_event(tool_item("start", "c1", "ask_user_question"))
    view.tool_event(tool_item("executing", "c1", "ask_user_question", arguments={"question": "Name?"}))
    view.tool_event(form_item("c1", "f1", [{"id": "q1", "question": "Name?", "type": "text"}], title=None))
    view.forms["f1"].cancel_button.click()
    view.forms["f1"].finish("cancelled")  # what the window does once core took the cancel
    view.tool_event(
        tool_item("result", "c1", "ask_user_question", result="The user declined to answer the form.")
    )
    card = view.cards["c1"]
    assert cancelled.calls == [("f1",)]
    assert (card.title.text(), card.reason.text()) == ("ask_user_question — not answered", "Not answered")
    assert view.forms["f1"].status.text() == "Not answered"


def test_mcp_cards_name_their_server(chat: ChatView) -> None:
    view = TurnView(chat, server_of={"get_current_time": "time"}.get)
    view.tool_event(tool_item("start", "c1", "get_current_time"))
    view.tool_event(tool_item("start", "c2", "run_command"))
    assert [view.cards[c].server.text() for c in ("c1", "c2")] == ["from time", ""]
    assert view.cards["c1"].server.isVisibleTo(view.cards["c1"])
    assert not view.cards["c2"].server.isVisibleTo(view.cards["c2"])


def test_a_form_follows_its_card_and_its_answers_reach_the_window(chat: ChatView) -> None:
    submitted, attention = Recorder(), Recorder()
    view = TurnView(chat, on_form_submit=submitted, on_attention=attention)
    view.tool_event(tool_item("start", "c1", "ask_user_question"))
    view.tool_event(tool_item("executing", "c1", "ask_user_question", arguments={"question": "Name?"}))
    view.tool_event(form_item("c1", "f1", [{"id": "q1", "question": "Name?", "type": "text"}], title="Hi"))
    assert layout(chat) == [("card", "c1:executing"), ("form", "f1")]
    assert view.cards["c1"].state.form_attached
    view.forms["f1"].questions[0].line.setText("Ada")  # type: ignore[union-attr]
    view.forms["f1"].submit_button.click()
    assert submitted.calls == [("f1", {"q1": "Ada"})]
    assert attention.calls == [("form", "f1", "A form is waiting for your answers")]
    view.tool_event(tool_item("result", "c1", "ask_user_question", result="{}"))
    assert view.forms["f1"].ended == "closed"  # the window had not finished it: the call ended it


def test_a_card_message_shows_a_visual_card(chat: ChatView) -> None:
    view = TurnView(chat)
    view.tool_event(CardMessage("c1", Card("Weather", "Sunny", None, (CardField("Temp", "25"),))))
    (card,) = chat.items()
    assert isinstance(card, VisualCardWidget)
    assert (card.title.text(), card.body.text(), card.fields, card.image) == (
        "Weather",
        "Sunny",
        [("Temp", "25")],
        None,
    )


def test_a_missing_card_image_says_so(chat: ChatView, tmp_path: Any) -> None:
    view = TurnView(chat)
    view.tool_event(CardMessage("c1", Card("T", "", str(tmp_path / "gone.png"))))
    card = chat.items()[0]
    assert isinstance(card, VisualCardWidget) and card.image is not None
    assert card.image.text() == "(image not found)"


def test_notices_become_warning_and_error_bubbles(chat: ChatView) -> None:
    view = TurnView(chat)
    view.notice(WarningMessage("max steps", "max_steps"))
    view.notice(ErrorMessage("connection refused", "connection"))
    assert layout(chat) == [("warning", "**Warning:** max steps"), ("error", "**Error:** connection refused")]


def test_the_turn_end_leaves_nothing_pending(chat: ChatView) -> None:
    view = TurnView(chat)
    view.tool_event(tool_item("start", "c1"))
    view.turn_ended(TurnEndMessage())
    view.show_text(text("next"))
    assert layout(chat) == [("card", "c1:invalidated"), ("assistant", "next")]


def test_the_first_text_after_a_round_end_starts_a_new_paragraph(chat: ChatView) -> None:
    view = TurnView(chat)
    view.show_text(text("Let me check.", 1))
    view.show_text(text(" One moment.", 2))
    view.round_ended(RoundEndMessage(0, "planning"))
    view.show_text(text("It is sunny.", 3))
    view.show_text(text(" Enjoy.", 4))
    assert layout(chat) == [("assistant", "Let me check. One moment.\n\nIt is sunny. Enjoy.")]


def test_an_auto_approved_call_runs_without_buttons_or_attention(chat: ChatView) -> None:
    attention, cards = Recorder(), Recorder()
    view = TurnView(chat, on_attention=attention, on_card=lambda s: cards(s.tool_call_id, s.phase))
    view.tool_event(tool_item("start", "c1"))
    view.auto_approved(tool_item("approval_required", "c1", arguments={"command": "date"}, task_id="t1"))
    state = view.card_state("c1")
    assert state is not None
    assert (state.phase, state.task_id, state.auto_approved, dict(state.arguments or {})) == (
        "executing",
        None,
        True,
        {"command": "date"},
    )
    assert not view.cards["c1"].approval_row.isVisibleTo(view.cards["c1"])
    assert (attention.calls, cards.calls) == ([], [("c1", "preparing"), ("c1", "executing")])


def test_a_form_nobody_answered_says_so_on_the_card_and_in_the_system_line(chat: ChatView) -> None:
    view = TurnView(chat, approval_timeout_s=300)
    view.tool_event(tool_item("start", "c1", "ask_user_question"))
    view.tool_event(tool_item("executing", "c1", "ask_user_question", arguments={"question": "City?"}))
    view.tool_event(form_item("c1", "f1", [{"id": "q1", "question": "City?", "type": "text"}], title=None))
    view.tool_event(rejected_item(REASON_NO_ANSWER, "c1", "ask_user_question"))
    view.interrupted(InterruptedMessage("approval_timeout"))
    card = view.cards["c1"]
    assert (card.title.text(), card.reason.text()) == ("ask_user_question — not answered", "No answer in 300 s")
    assert layout(chat)[-1] == ("system", "Nobody answered the form in time; the conversation was interrupted")
    assert view.forms["f1"].ended == "closed"


def test_a_tool_name_streamed_in_pieces_renames_the_card(chat: ChatView) -> None:
    view = TurnView(chat, server_of={"get_current_time": "time"}.get)
    view.tool_event(tool_item("start", "c1", "get_cur"))
    view.approval_needed(tool_item("approval_required", "c1", "get_current_time", arguments={}, task_id="t1"))
    card = view.cards["c1"]
    assert (card.state.tool_name, card.title.text(), card.server.text()) == (
        "get_current_time",
        "get_current_time needs your approval",
        "from time",
    )


def test_a_servers_form_is_declined_or_cancelled_without_marking_its_call_not_answered(chat: ChatView) -> None:
    declined, cancelled = Recorder(), Recorder()
    view = TurnView(chat, on_form_decline=declined, on_form_cancel=cancelled)
    view.tool_event(tool_item("start", "c1", "trigger-elicitation-request"))
    view.tool_event(tool_item("executing", "c1", "trigger-elicitation-request", arguments={}))
    question = FormQuestion("n", "Name?")
    view.tool_event(FormRequestMessage("c1", "f1", (question,), "Tell me", FormSource("everything")))
    view.tool_event(FormRequestMessage("c1", "f2", (question,), "Again", FormSource("everything")))
    assert layout(chat) == [("card", "c1:executing"), ("form", "f1"), ("form", "f2")]
    assert not view.cards["c1"].state.form_attached  # the card still shows the call
    view.forms["f1"].decline_button.click()
    view.forms["f2"].cancel_button.click()
    assert (declined.calls, cancelled.calls) == ([("f1",)], [("f2",)])
    assert view.cards["c1"].state.outcome is None

    view.form_answered("f1", None, declined=True)  # a restored conversation says how it ended
    view.form_answered("f2", None)
    assert [view.forms[f].status.text() for f in ("f1", "f2")] == ["Declined", "Not answered"]
