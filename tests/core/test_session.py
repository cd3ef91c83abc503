"""SessionManager: cancel runs callbacks once and remembers why."""

from __future__ import annotations

from desktop_agent.core.session import SessionManager


def test_cancel_runs_global_and_session_callbacks_once() -> None:
    sessions = SessionManager()
    seen: list[tuple[str, str, str]] = []
    sessions.on_cancel(lambda sid, reason: seen.append(("global", sid, reason)))
    sessions.start("a")
    sessions.add_callback("a", lambda sid, reason: seen.append(("own", sid, reason)))
    assert sessions.cancel("a", "rejected") is True
    assert sessions.cancel("a", "user") is False
    assert seen == [("global", "a", "rejected"), ("own", "a", "rejected")]
    assert sessions.cancel_reason("a") == "rejected"


def test_cancel_of_unknown_or_finished_session_is_false() -> None:
    sessions = SessionManager()
    assert sessions.cancel("x") is False
    sessions.start("x")
    sessions.finish("x")
    assert sessions.cancel("x") is False
    assert not sessions.is_active("x")


def test_a_failing_callback_does_not_stop_the_others() -> None:
    sessions = SessionManager()
    seen: list[str] = []

    def broken(sid: str, reason: str) -> None:
        raise RuntimeError("boom")

    sessions.start("a")
    sessions.add_callback("a", broken)
    sessions.add_callback("a", lambda sid, reason: seen.append(sid))
    sessions.cancel("a")
    assert seen == ["a"]
