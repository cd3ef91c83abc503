"""Send ↔ Interrupt ↔ Interrupting… with the fallback timer."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop_agent.testing.fake_clock import FakeClock
from desktop_agent.texts import ENGLISH
from desktop_agent.ui.chat.send_button import INTERRUPT_FALLBACK_MS, SendButton
from desktop_agent.ui.chat.turn_state import ButtonPhase


def make(qtbot: QtBot, fallback_ms: int = INTERRUPT_FALLBACK_MS, timers: FakeClock | None = None) -> SendButton:
    button = SendButton(ENGLISH, fallback_ms=fallback_ms, timers=timers)
    qtbot.add_widget(button)
    return button


def test_the_default_fallback_is_fifteen_seconds(qtbot: QtBot) -> None:
    assert make(qtbot).fallback_ms == 15_000


def test_each_phase_has_its_text_and_enabled_state(qtbot: QtBot) -> None:
    button = make(qtbot)
    seen = []
    for phase in ("send", "interrupt", "interrupting", "send"):
        button.set_phase(phase)  # type: ignore[arg-type]
        seen.append((button.text(), button.isEnabled(), button.property("phase")))
    assert seen == [
        ("Send", True, "send"),
        ("Interrupt", True, "interrupt"),
        ("Interrupting…", False, "interrupting"),
        ("Send", True, "send"),
    ]


def test_a_click_asks_for_what_the_phase_offers(qtbot: QtBot) -> None:
    button = make(qtbot)
    with qtbot.wait_signal(button.send_requested), qtbot.assert_not_emitted(button.interrupt_requested):
        button.click()
    button.set_phase(ButtonPhase.INTERRUPT)
    with qtbot.wait_signal(button.interrupt_requested), qtbot.assert_not_emitted(button.send_requested):
        button.click()


def test_interrupting_falls_back_to_send_when_interrupted_never_comes(qtbot: QtBot) -> None:
    clock = FakeClock()
    button = make(qtbot, timers=clock)
    fired: list[str] = []
    button.fallback_fired.connect(lambda: fired.append("fired"))
    button.set_phase(ButtonPhase.INTERRUPTING)
    clock.advance(14.9)
    assert (fired, button.phase) == ([], "interrupting")
    clock.advance(0.1)
    assert fired == ["fired"]
    assert (button.phase, button.isEnabled()) == ("send", True)


def test_the_fallback_also_runs_on_qt_timers_without_an_asyncio_loop(qtbot: QtBot) -> None:
    button = make(qtbot, fallback_ms=30)
    button.set_phase(ButtonPhase.INTERRUPTING)
    with qtbot.wait_signal(button.fallback_fired, timeout=5000):
        pass
    assert (button.phase, button.isEnabled()) == ("send", True)


def test_interrupted_arriving_in_time_cancels_the_fallback(qtbot: QtBot) -> None:
    clock = FakeClock()
    button = make(qtbot, timers=clock)
    fired: list[str] = []
    button.fallback_fired.connect(lambda: fired.append("fired"))
    button.set_phase(ButtonPhase.INTERRUPTING)
    button.set_phase(ButtonPhase.SEND)
    assert clock.pending == []
    clock.advance(60)
    assert fired == [] and button.phase == "send"
