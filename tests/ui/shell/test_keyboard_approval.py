"""Approvals from the keyboard, in the real window over the scripted LLM
server: the newest waiting card takes the keyboard (unless the user is
typing) with a focus ring, Tab from the input reaches it before anything
older, Alt+A / Alt+R answer it from wherever the keyboard is (the buttons
say so), and the keyboard goes back to the input once it is answered.
Screenshots: tests/artifacts/keyboard_approval_en.png and _zh.png."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QImage
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from desktop_agent.testing.audit_sink import RecordingAuditSink
from desktop_agent.testing.fake_clock import FakeClock
from desktop_agent.testing.scripted_server import Reply, ToolCallScript, text_reply, tool_reply
from desktop_agent.testing.window_rig import WindowRig, laid_out, scripted_window
from desktop_agent.texts import CHINESE, ENGLISH, Texts
from desktop_agent.ui.cards.tool_card import ToolCardWidget
from desktop_agent.ui.common.theme import LIGHT
from desktop_agent.ui.shell.main_window import MainWindow

pytestmark = pytest.mark.usefixtures("keep_loop_on_close")

PLAN = text_reply("Let me check.\n<need_tool>")
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"


def one_command(command: str = "echo hi") -> list[Reply]:
    return [PLAN, tool_reply("run_command", {"command": command}), text_reply("Done.")]


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


async def shown(rig: WindowRig) -> MainWindow:
    window = rig.window
    window.resize(860, 720)
    window.activateWindow()
    await until(lambda: QApplication.activeWindow() is window)
    window.input.setFocus()
    return window


async def waiting_card(rig: WindowRig) -> ToolCardWidget:
    kind, call_id = await rig.waiting.wait_for()
    assert kind == "approval"
    view = rig.window.view
    assert view is not None
    return view.cards[call_id]


def press(window: MainWindow, key: Qt.Key, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    target: QWidget = QApplication.focusWidget() or window
    QTest.keyClick(target, key, modifier)


def edge_colour(image: QImage, widget: QWidget) -> str:
    """The commonest colour along the widget's left edge (its border)."""
    rect = QRect(widget.mapTo(widget.window(), QPoint(0, 0)), widget.size())
    counts = Counter(
        image.pixelColor(rect.left() + dx, y).name() for dx in (0, 1, 2) for y in range(rect.top() + 10, rect.bottom() - 10)
    )
    return counts.most_common(1)[0][0]


async def check_focus_ring_screenshot(
    name: str, words: tuple[str, str], approve: str, reject: str, texts: Texts = ENGLISH
) -> None:
    """The window (in ``texts``' language) as a waiting card took the keyboard; ``words``: the
    user's and the reply's."""
    asked, plan = words
    script = [text_reply(plan + "\n<need_tool>"), tool_reply("run_command", {"command": "ls -la ~/Documents"}),
              text_reply("Done.")]
    async with scripted_window(script) as rig:
        window = await shown(rig)
        window.retranslate(texts)
        assert window.send_text(asked)
        card = await waiting_card(rig)
        assert QApplication.focusWidget() is card
        await until(lambda: card.isVisible() and card.height() > 60)
        await laid_out(window)  # the card's slot takes its new height a pass later
        image = window.grab().toImage()
        ARTIFACTS.mkdir(exist_ok=True)
        assert image.save(str(ARTIFACTS / f"{name}.png"))
        assert (card.approve_button.text(), card.reject_button.text()) == (approve, reject)
        assert edge_colour(image, card) == LIGHT.accent  # the focus ring, over the red of a destructive tool
        assert card.accessibleDescription() == texts.tr("card_keys_description", approve="Alt+A", reject="Alt+R")
        press(window, Qt.Key.Key_A, Qt.KeyboardModifier.AltModifier)
        assert await rig.turns.wait_for() == ("completed",)
        assert QApplication.focusWidget() is window.input  # back to writing


async def test_the_waiting_card_takes_the_keyboard_with_a_focus_ring_and_key_hints() -> None:
    await check_focus_ring_screenshot(
        "keyboard_approval_en", ("List my documents", "Let me look."), "Approve (Alt+A)", "Reject (Alt+R)"
    )


async def test_the_waiting_card_takes_the_keyboard_in_chinese_too() -> None:
    await check_focus_ring_screenshot(
        "keyboard_approval_zh", ("列出我的文档", "我来看看。"), "批准（Alt+A）", "拒绝（Alt+R）", CHINESE
    )


async def test_a_card_never_takes_the_keyboard_from_a_message_being_written() -> None:
    async with scripted_window(one_command() * 2) as rig:
        window = await shown(rig)
        clock = FakeClock()
        window.keys.clock = clock.time
        QTest.keyClicks(window.input, "x")
        QTest.keyClick(window.input, Qt.Key.Key_Backspace)  # an empty input, but a key just now
        assert window.send_text("first")
        card = await waiting_card(rig)
        assert QApplication.focusWidget() is window.input
        assert card.focusPolicy() == Qt.FocusPolicy.StrongFocus  # Tab still reaches it
        press(window, Qt.Key.Key_A, Qt.KeyboardModifier.AltModifier)  # its key works from the input
        assert await rig.turns.wait_for() == ("completed",)
        assert window.input.toPlainText() == ""

        clock.advance(2.5)  # a pause: no longer typing
        QTest.keyClicks(window.input, "a draft")  # ...but a draft in the input
        clock.advance(2.5)
        assert window.send_text("second")
        card = await waiting_card(rig)
        assert QApplication.focusWidget() is window.input
        assert window.input.toPlainText() == "a draft"
        press(window, Qt.Key.Key_R, Qt.KeyboardModifier.AltModifier)
        assert await rig.turns.wait_for() == ("rejected",)
        assert window.input.toPlainText() == "a draft"


async def test_tab_from_the_input_reaches_the_waiting_card_before_an_older_cards_details() -> None:
    first = tool_reply("run_command", {"command": "echo one"})
    second = tool_reply("run_command", {"command": "echo two"})
    async with scripted_window([PLAN, first, second, text_reply("Done.")]) as rig:
        window = await shown(rig)
        assert window.send_text("run two things")
        older = await waiting_card(rig)
        older.approve_button.click()
        newest = await waiting_card(rig)
        assert older.state.phase == "done" and older.toggle.isVisible()  # its Details can take Tab
        window.input.setFocus()
        reached: list[QWidget] = []
        for _ in range(40):
            press(window, Qt.Key.Key_Tab)
            focused = QApplication.focusWidget()
            assert focused is not None
            reached.append(focused)
            if focused in (older.toggle, newest.reject_button):
                break
        assert reached == [newest, newest.approve_button, newest.reject_button]
        press(window, Qt.Key.Key_Space)  # Reject, from the keyboard
        assert await rig.turns.wait_for() == ("rejected",)


async def test_alt_a_and_alt_r_answer_from_anywhere_in_the_window_and_are_audited() -> None:
    script = [PLAN, tool_reply("run_command", {"command": "echo from-the-keys"}), text_reply("It printed it."),
              *one_command("rm -rf /tmp/nothing-here")]
    async with scripted_window(script) as rig:
        window = await shown(rig)
        assert window.controller is not None
        audit = window.controller.conversation.approvals.audit = RecordingAuditSink()
        window.send_text("print something")
        card = await waiting_card(rig)
        window.settings_button.setFocus()  # the keyboard elsewhere in the window
        press(window, Qt.Key.Key_A, Qt.KeyboardModifier.AltModifier)
        assert await rig.turns.wait_for() == ("completed",)
        assert card.state.phase == "done" and "from-the-keys" in (card.state.result or "")
        tool_results = [m for m in rig.server.requests[2]["messages"] if m["role"] == "tool"]
        assert len(tool_results) == 1 and "from-the-keys" in tool_results[0]["content"]  # what the model got

        window.send_text("clean up")
        card = await waiting_card(rig)
        window.chat.setFocus()
        press(window, Qt.Key.Key_R, Qt.KeyboardModifier.AltModifier)
        assert await rig.turns.wait_for() == ("rejected",)
        assert card.state.outcome == "rejected"
        assert audit.decisions() == [("run_command", "approved", "user"), ("run_command", "rejected", "user")]
        assert len(rig.server.requests) == 5  # nothing more asked after the rejection


async def test_alt_a_with_no_card_waiting_types_as_before() -> None:
    async with scripted_window([]) as rig:
        window = await shown(rig)
        assert not window.keys.approve_shortcut.isEnabled()
        QTest.keyClick(window.input, Qt.Key.Key_A, Qt.KeyboardModifier.AltModifier)
        assert window.input.toPlainText() == "a"


async def test_a_sub_agents_waiting_card_is_the_one_the_keys_answer() -> None:
    task = {"task": "Print hello", "allowed_tools": ["run_command"]}
    script = [
        PLAN,
        Reply(tool_calls=(ToolCallScript("sub_agent", json.dumps(task)),)),
        tool_reply("run_command", {"command": "echo nested"}),
        text_reply("It printed nested."),
        text_reply("The sub-agent printed it."),
    ]
    async with scripted_window(script, sub_agent=True) as rig:
        window = await shown(rig)
        window.send_text("delegate")
        parent = await waiting_card(rig)
        press(window, Qt.Key.Key_A, Qt.KeyboardModifier.AltModifier)
        nested = await waiting_card(rig)
        assert nested.state.parent_tool_call_id == parent.state.tool_call_id
        assert QApplication.focusWidget() is nested
        press(window, Qt.Key.Key_A, Qt.KeyboardModifier.AltModifier)
        assert await rig.turns.wait_for(timeout=20) == ("completed",)
        assert nested.state.phase == "done" and "nested" in (nested.state.result or "")
