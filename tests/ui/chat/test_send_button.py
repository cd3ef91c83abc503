"""Send ↔ Interrupt ↔ Interrupting… with the fallback timer."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop_agent.texts import ENGLISH
from desktop_agent.ui.chat.send_button import INTERRUPT_FALLBACK_MS, SendButton
from desktop_agent.ui.chat.turn_state import ButtonPhase


def make(qtbot: QtBot, fallback_ms: int = INTERRUPT_FALLBACK_MS) -> SendButton:
    button = SendButton(ENGLISH, fallback_ms=fallback_ms)
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
    button = make(qtbot, fallback_ms=30)
    button.set_phase(ButtonPhase.INTERRUPTING)
    with qtbot.wait_signal(button.fallback_fired, timeout=5000):
        pass
    assert (button.phase, button.isEnabled()) == ("send", True)


def test_interrupted_arriving_in_time_cancels_the_fallback(qtbot: QtBot) -> None:
    button = make(qtbot, fallback_ms=30)
    button.set_phase(ButtonPhase.INTERRUPTING)
    button.set_phase(ButtonPhase.SEND)
    with qtbot.assert_not_emitted(button.fallback_fired, wait=120):
        pass
    assert button.phase == "send"
