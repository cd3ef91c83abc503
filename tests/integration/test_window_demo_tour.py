"""The demo tour in the real window, as a new user first sees it: the offline
demo model, the default MCP configuration (the real ``mcp-server-time``),
the real built-in tools. Every narration must sit directly above the card
of the call it announces, in English and in Chinese; the
screenshots go to tests/artifacts/demo_tour_{en,zh}.png."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QRadioButton, QWidget

from desktop_agent.testing.window_rig import SignalLog, run_on_qasync
from desktop_agent.texts import Language, Texts
from desktop_agent.ui.cards.tool_card import ToolCardWidget
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.shell.main_window import MainWindow

pytestmark = pytest.mark.integration

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
NARRATION = {
    "en": {
        "get_current_time": "Let me ask the time server.",
        "run_command": "I'll run `date`; it needs your approval.",
        "show_card": "Here is a card.",
        "ask_user_question": "I have two questions for you.",
    },
    "zh": {
        "get_current_time": "我用时间工具查一下。",
        "run_command": "我来运行 date 命令，需要你批准。",
        "show_card": "给你看一张卡片。",
        "ask_user_question": "我有两个问题。",
    },
}


@pytest.fixture(params=["en", "zh"])
def language(request: pytest.FixtureRequest) -> Language:
    lang: Language = request.param
    return lang


@dataclass(frozen=True)
class Row:
    """One item of the chat, read while the window is alive."""

    kind: str
    text: str = ""
    tool: str = ""
    phase: str = ""
    is_error: bool = False
    server: str = ""
    summary: str = ""


def _row(widget: QWidget) -> Row:
    if isinstance(widget, ToolCardWidget):
        state = widget.state
        return Row("card", "", state.tool_name, state.phase, state.is_error, widget.server.text(),
                   widget.badge.text())
    if isinstance(widget, MessageBubble):
        return Row(widget.role, widget.text())
    return Row(type(widget).__name__)


async def _tour(language: Language) -> list[Row]:
    from desktop_agent.app import window_deps
    from desktop_agent.services import build_services

    services = await build_services(model="demo", tts="none")
    window = MainWindow(tray=False, texts=Texts(language))
    try:
        window.attach(window_deps(services, None))
        window.resize(900, 1500)  # the whole tour in one picture
        window.show()
        turns, waiting = SignalLog(window.turn_finished), SignalLog(window.waiting_for_user)
        assert window.send_text("演示" if language == "zh" else "demo")
        # The tour stops for the user: two approvals (the MCP time tool and
        # run_command), then the form.
        view = window.view
        assert view is not None
        for expected in ("approval", "approval", "form"):
            kind, ident = await waiting.wait_for(timeout=30)
            assert kind == expected
            if kind == "approval":
                view.cards[ident].approve_button.click()
            else:
                form = view.forms[ident]
                next(b for b in form.findChildren(QRadioButton)).setChecked(True)
                form.submit_button.click()
        assert await turns.wait_for(timeout=60) == ("completed",)
        for _ in range(5):  # new rows measure and lay out over a few passes
            QApplication.processEvents()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        assert window.grab().save(str(ARTIFACTS / f"demo_tour_{language}.png"))
        return [_row(w) for w in window.chat.items()]
    finally:
        window.close()
        await window.shutdown()
        await services.aclose()
        window.deleteLater()


def test_every_narration_of_the_demo_tour_sits_above_its_card(
    qapp: QApplication, language: Language
) -> None:
    items = run_on_qasync(lambda: _tour(language), timeout=120)

    cards = [row for row in items if row.kind == "card"]
    assert [c.tool for c in cards] == list(NARRATION[language])
    assert all(c.phase == "done" and not c.is_error for c in cards), cards
    for card in cards:
        above = items[items.index(card) - 1]
        # The narration ends the assistant bubble right above the card.
        assert above.kind == "assistant", items
        assert above.text.rstrip().endswith(NARRATION[language][card.tool]), items
    time_card = cards[0]
    assert time_card.server == Texts(language).tr("card_from_server", server="time")
    assert time_card.summary == "timezone: UTC"
    assert {c.server for c in cards[1:]} == {""}  # built-in tools name no server
