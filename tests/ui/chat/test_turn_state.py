"""The system messages that say why a turn stopped (interrupted, rejected,
approval timed out), each shown once."""

from __future__ import annotations

from desktop_agent.ui.chat.turn_state import TurnTracker


def test_user_interrupt_says_conversation_interrupted() -> None:
    tracker = TurnTracker()
    tracker.interrupt_clicked()
    assert [tracker.on_interrupted("user"), tracker.on_interrupted("user")] == [
        "sys_interrupted",
        None,
    ]


def test_reject_says_conversation_interrupted_at_the_click_only() -> None:
    tracker = TurnTracker()
    assert tracker.reject_clicked() == "sys_interrupted"
    assert tracker.reject_clicked() is None
    assert tracker.on_interrupted("rejected") is None


def test_an_approval_timeout_says_so() -> None:
    tracker = TurnTracker()
    assert tracker.on_interrupted("approval_timeout") == "sys_approval_timeout"


def test_an_error_adds_no_system_message() -> None:
    assert TurnTracker().on_interrupted("error") is None


def test_a_rejection_not_clicked_here_still_says_session_interrupted() -> None:
    assert TurnTracker().on_interrupted("rejected") == "sys_interrupted"


def test_rejecting_after_interrupting_adds_nothing() -> None:
    tracker = TurnTracker()
    tracker.interrupt_clicked()
    assert tracker.reject_clicked() is None
    assert tracker.on_interrupted("user") == "sys_interrupted"
