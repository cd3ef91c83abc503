"""Message actions: Copy on a message, Regenerate the last reply,
Edit and resend the user's last message. The real window over the scripted
LLM server: what the server is asked and what the history keeps."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QToolButton
from pytestqt.qtbot import QtBot

from desktop_agent.storage.history_json import history_json
from desktop_agent.testing.scripted_server import text_reply
from desktop_agent.testing.window_rig import WindowRig, run_on_qasync, scripted_window
from desktop_agent.texts import CHINESE, ENGLISH
from desktop_agent.ui.chat.action_row import ActionRow
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.turn_deps import ConversationKeeper

SCRIPT = [text_reply("Sure.<no_tool>"), text_reply("Five."), text_reply("Sure.<no_tool>"), text_reply("Four.")]


def bubbles(rig: WindowRig) -> list[tuple[str, str]]:
    return [(w.role, w.text()) for w in rig.window.chat.items() if isinstance(w, MessageBubble)]


def last(rig: WindowRig, role: str) -> MessageBubble:
    return next(w for w in reversed(rig.window.chat.items()) if isinstance(w, MessageBubble) and w.role == role)


def row(bubble: MessageBubble) -> ActionRow:
    assert bubble.action_row is not None
    return bubble.action_row


def offered(bubble: MessageBubble) -> list[str]:
    """The actions a bubble's row offers now."""
    r = row(bubble)
    buttons = (r.copy_button, r.regenerate_button, r.edit_button)
    return [b.text() for b in buttons if not b.isHidden()]


def users_asked(rig: WindowRig) -> list[str]:
    """The user's words in each planning request the server got (the wire
    folds the planning prompt into that message, after them)."""
    return [str([m for m in r["messages"] if m["role"] == "user"][-1]["content"]).split("\n\n[system instruction]")[0]
            for r in rig.server.requests[0::2]]


def history(rig: WindowRig) -> list[dict[str, Any]]:
    controller = rig.window.controller
    assert controller is not None
    return history_json(controller.conversation.history)



def assert_one_exchange_asking_2_plus_2(rig: WindowRig) -> None:
    """The last exchange was replaced, not added to: history and bubbles hold one question and its answer."""
    assert history(rig) == [
        {"role": "user", "content": "what is 2+2?"},
        {"role": "assistant", "content": "Sure."},
        {"role": "assistant", "content": "Four."},
    ]
    assert bubbles(rig) == [("user", "what is 2+2?"), ("assistant", "Sure.\n\nFour.")]


def test_regenerate_asks_the_last_message_again_and_keeps_one_exchange(qtbot: QtBot) -> None:
    async def main() -> None:
        async with scripted_window(SCRIPT) as rig:
            assert await rig.turn("what is 2+2?") == "completed"
            reply, user = last(rig, "assistant"), last(rig, "user")
            assert (offered(reply), offered(user)) == (["Copy", "Regenerate"], ["Copy", "Edit"])
            assert row(reply).isVisibleTo(reply)  # the last reply's actions are in sight

            row(reply).regenerate_button.click()
            # A turn runs: nothing may be redone now.
            assert offered(last(rig, "user")) == ["Copy"]
            (status,) = await rig.turns.wait_for(timeout=10)

            assert status == "completed"
            assert users_asked(rig) == ["what is 2+2?", "what is 2+2?"]
            assert_one_exchange_asking_2_plus_2(rig)

    run_on_qasync(main, timeout=60)


def test_edit_puts_the_message_back_and_sending_replaces_the_last_exchange(qtbot: QtBot) -> None:
    async def main() -> None:
        async with scripted_window(SCRIPT) as rig:
            assert await rig.turn("what is 2+3?") == "completed"
            window = rig.window
            row(last(rig, "user")).edit_button.click()
            assert window.input.toPlainText() == "what is 2+3?"
            assert window.chat_actions is not None and window.chat_actions.editing
            assert offered(last(rig, "user")) == ["Copy", "Cancel edit"]

            window.input.setPlainText("what is 2+2?")
            QTest.keyClick(window.input, Qt.Key.Key_Return)
            (status,) = await rig.turns.wait_for(timeout=10)

            assert status == "completed" and window.input.toPlainText() == ""
            assert users_asked(rig) == ["what is 2+3?", "what is 2+2?"]
            assert_one_exchange_asking_2_plus_2(rig)

    run_on_qasync(main, timeout=60)


def test_escape_cancels_an_edit_and_the_next_message_is_a_new_turn(qtbot: QtBot) -> None:
    async def main() -> None:
        async with scripted_window(SCRIPT) as rig:
            assert await rig.turn("what is 2+3?") == "completed"
            window = rig.window
            row(last(rig, "user")).edit_button.click()
            QTest.keyClick(window.input, Qt.Key.Key_Escape)
            assert window.chat_actions is not None and not window.chat_actions.editing
            assert window.input.toPlainText() == ""

            assert await rig.turn("and 2+2?") == "completed"
            assert [m["content"] for m in history(rig) if m["role"] == "user"] == ["what is 2+3?", "and 2+2?"]

    run_on_qasync(main, timeout=60)


def test_copy_puts_the_messages_text_on_the_clipboard(qtbot: QtBot) -> None:
    async def main() -> None:
        async with scripted_window(SCRIPT) as rig:
            assert await rig.turn("what is 2+3?") == "completed"
            row(last(rig, "assistant")).copy_button.click()
            assert QApplication.clipboard().text() == "Sure.\n\nFive."
            assert row(last(rig, "assistant")).copy_button.text() == "Copied"
            row(last(rig, "user")).copy_button.click()
            assert QApplication.clipboard().text() == "what is 2+3?"

    run_on_qasync(main, timeout=60)


def test_a_new_conversation_ends_an_edit(qtbot: QtBot) -> None:
    from dataclasses import replace

    from desktop_agent.core.conversation import Conversation
    from desktop_agent.testing.window_rig import SignalLog, offline_deps
    from desktop_agent.ui.shell.main_window import MainWindow

    async def main() -> None:
        window = MainWindow(tray=False)
        qtbot.add_widget(window)
        window.attach(replace(offline_deps(), keeper=ConversationKeeper(lambda old: Conversation(old.agent))))
        turns = SignalLog(window.turn_finished)
        try:
            assert window.send_text("hello")
            assert await turns.wait_for(timeout=10) == ("completed",)
            user = window.chat.last_user_bubble()
            assert user is not None
            row(user).edit_button.click()
            assert window.chat_actions is not None and window.chat_actions.editing
            assert window.new_conversation()
            assert not window.chat_actions.editing
            assert window.send_text("hi there")
            assert await turns.wait_for(timeout=10) == ("completed",)
            controller = window.controller
            assert controller is not None
            assert [m["content"] for m in history_json(controller.conversation.history) if m["role"] == "user"] == ["hi there"]
        finally:
            await window.shutdown()

    run_on_qasync(main, timeout=60)


def test_a_rows_texts_follow_an_edit_a_copy_and_a_language_switch(qtbot: QtBot) -> None:
    from desktop_agent.texts import Language, text_in

    def texts(r: ActionRow) -> list[str]:
        return [t for b in (r.copy_button, r.regenerate_button, r.edit_button) for t in (b.text(), b.toolTip())]

    def expected(lang: Language, copy: str = "msg_copy", edit: str = "msg_edit") -> list[str]:
        keys = (copy, "msg_copy_tip", "msg_regenerate", "msg_regenerate_tip", edit, "msg_edit_tip")
        return [text_in(lang, key) for key in keys]

    r = ActionRow(lambda: "hello", ENGLISH)
    qtbot.add_widget(r)
    assert texts(r) == expected("en")  # as created
    r.offer(regenerate=True, edit=True, editing=True)
    assert texts(r) == expected("en", edit="msg_cancel_edit")
    r.copy()
    assert texts(r) == expected("en", copy="copied", edit="msg_cancel_edit")
    r.retranslate(CHINESE)  # while "Copied" shows and an edit is under way
    assert texts(r) == expected("zh", copy="copied", edit="msg_cancel_edit")
    r.offer(regenerate=True, edit=True)
    assert r._copied.isActive()  # "Copied" shows for a moment...
    r._copied.stop()
    r._copied.timeout.emit()  # ...and the moment is over (the row's own timer, not waited for)
    assert texts(r) == expected("zh")  # "Copied" went back to Copy, in the row's language


def test_offering_a_row_what_it_offers_already_touches_none_of_its_buttons(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every message of the user's is offered Edit again as each turn
    starts and ends (250 rows in a long conversation): a row whose offer
    does not change sets no text and shows or hides nothing."""
    row = ActionRow(lambda: "hello", ENGLISH)
    qtbot.add_widget(row)
    row.offer(regenerate=False, edit=True)
    touched: list[str] = []
    for name in ("setText", "setVisible"):
        original = getattr(QToolButton, name)

        def spy(button: QToolButton, value: Any, _name: str = name, _original: Any = original) -> None:
            touched.append(_name)
            _original(button, value)

        monkeypatch.setattr(QToolButton, name, spy)
    for _ in range(3):
        row.offer(regenerate=False, edit=True)
    assert touched == []
    row.offer(regenerate=False, edit=True, editing=True)  # a change still shows
    assert row.edit_button.text() == ENGLISH.tr("msg_cancel_edit") and not row.edit_button.isHidden()
    row.offer(regenerate=True, edit=False)
    assert row.edit_button.isHidden() and not row.regenerate_button.isHidden()
    assert row.edit_button.text() == ENGLISH.tr("msg_edit")
