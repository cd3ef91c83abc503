"""The window's keyboard during a turn: Esc stops generation, a running tool
and speech from wherever the keyboard is, without taking Esc from those that
use it; Enter while a reply runs says so, and while only its last words are
spoken stops them and sends. The real window over the scripted LLM server;
speech goes through the real pipeline into a fake TTS and a fake speaker."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialog, QLineEdit, QWidget
from pytestqt.qtbot import QtBot

from desktop_agent.conversation_library import ConversationLibrary
from desktop_agent.core.agent import AgentClient
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.llm.demo import DemoModel
from desktop_agent.storage.conversation_events import items_of
from desktop_agent.storage.conversations import ConversationStore
from desktop_agent.storage.history_json import history_json
from desktop_agent.testing.fake_sink import FakeAudioSink
from desktop_agent.testing.fake_tts import FakeTTS
from desktop_agent.testing.procs import live_processes
from desktop_agent.testing.scripted_server import Reply, text_reply, tool_reply
from desktop_agent.testing.window_rig import SignalLog, WindowRig, offline_deps, scripted_window
from desktop_agent.texts import ENGLISH
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.system_message import SystemMessage
from desktop_agent.ui.conversations.feature import ConversationsFeature
from desktop_agent.ui.shell.main_window import MainWindow
from desktop_agent.voice import SpeechPipeline

pytestmark = pytest.mark.usefixtures("keep_loop_on_close")

PLAN = text_reply("Let me check.\n<need_tool>")
SLOW = text_reply("".join(f"Sentence {n}. " for n in range(40)) + "<no_tool>", delay_s=0.05)
"""A planning round that streams sentence by sentence for about 6 s: long
enough to be stopped while the text is shown."""


@asynccontextmanager
async def speaking_window(script: list[Reply]) -> AsyncIterator[tuple[WindowRig, FakeAudioSink]]:
    """The scripted window with speech: voice text is synthesised by a fake
    engine and played by a fake speaker that holds each clip until told."""
    sink = FakeAudioSink()
    async with scripted_window(script, voice={"sink": sink}) as rig:
        tts = FakeTTS()
        rig.conversation.speech_factory = lambda bus: SpeechPipeline(tts, bus)
        yield rig, sink


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


def press(window: MainWindow, key: Qt.Key, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    """A key where the keyboard is now (the window itself when nothing has focus)."""
    target: QWidget = QApplication.focusWidget() or window
    QTest.keyClick(target, key, modifier)


def phase(window: MainWindow) -> str:
    """The Send button's phase, read afresh (mypy would narrow the attribute)."""
    return window.send_button.phase


def system_lines(window: MainWindow) -> list[str]:
    return [w.text() for w in window.chat.items() if isinstance(w, SystemMessage)]


def bubbles(window: MainWindow) -> list[str]:
    return [w.text() for w in window.chat.items() if isinstance(w, MessageBubble)]


def user_messages(request: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in request["messages"] if m["role"] == "user"]


async def test_esc_in_the_input_stops_the_reply_being_generated() -> None:
    async with scripted_window([SLOW, text_reply("never")]) as rig:
        window = rig.window
        assert window.send_text("tell me a long story")
        await until(lambda: any(text.startswith("Sentence 0.") for text in bubbles(window)))
        window.input.setFocus()
        press(window, Qt.Key.Key_Escape)
        assert window.send_button.phase == "interrupting"
        assert await rig.turns.wait_for(timeout=10) == ("user",)
        assert system_lines(window) == [ENGLISH.tr("sys_interrupted")]
        assert len(rig.server.requests) == 1  # nothing more was asked of the model


async def test_esc_from_elsewhere_in_the_window_stops_the_running_command_and_kills_it() -> None:
    marker = "sleep 47.52"
    script = [PLAN, tool_reply("run_command", {"command": f"exec {marker}"}), text_reply("never")]
    async with scripted_window(script) as rig:
        window = rig.window
        window.send_text("wait a while")
        _, call_id = await rig.waiting.wait_for()
        view = window.view
        assert view is not None
        card = view.cards[call_id]
        card.approve_button.click()
        await rig.card_phase("executing", call_id)
        await until(lambda: live_processes(marker) != [])
        window.settings_button.setFocus()  # the keyboard anywhere in the window, not in the input
        press(window, Qt.Key.Key_Escape)
        assert await rig.turns.wait_for(timeout=10) == ("user",)
        assert live_processes(marker) == []
        assert [phase for cid, phase in rig.cards.events if cid == call_id] == [
            "preparing", "approval", "executing", "invalidated"
        ]
        assert "interrupted" in str(history_json(rig.conversation.history)[-1]["content"])
        assert len(rig.server.requests) == 2


async def test_esc_stops_the_last_words_being_spoken_after_the_reply_ended() -> None:
    script = [text_reply("<voice>One. Two. Three.</voice><no_tool>"), text_reply("")]
    async with speaking_window(script) as (rig, sink):
        window = rig.window
        window.send_text("count")
        async with asyncio.timeout(10):
            await sink.wait_for_plays(1)
        await until(lambda: not rig.conversation.replying)  # only the speech is left
        assert window.send_button.phase == "interrupt"
        window.chat.setFocus()
        press(window, Qt.Key.Key_Escape)
        assert await rig.turns.wait_for(timeout=10) == ("completed",)
        assert sink.log == [("play", FakeTTS.audio_for("One."), "audio/wav"), ("stop",), ("stopped", 0)]
        assert system_lines(window) == [ENGLISH.tr("sys_speech_stopped")]
        assert phase(window) == "send"


async def test_esc_in_an_open_dialog_closes_the_dialog_and_the_reply_goes_on() -> None:
    async with scripted_window([SLOW, text_reply("The end.")]) as rig:
        window = rig.window
        window.send_text("tell me a long story")
        await until(lambda: len(rig.server.requests) == 1)
        dialog = window.open_settings()
        assert dialog is not None
        await until(lambda: QApplication.activeWindow() is dialog)
        press(window, Qt.Key.Key_Escape)
        await until(lambda: not dialog.isVisible())
        assert dialog.result() == QDialog.DialogCode.Rejected
        assert window.send_button.phase == "interrupt"  # the reply was not stopped
        assert await rig.turns.wait_for(timeout=20) == ("completed",)
        assert system_lines(window) == []


async def test_esc_in_the_search_field_empties_it_first_and_then_stops_the_reply(
    qtbot: QtBot, tmp_path: Path
) -> None:
    store = ConversationStore(tmp_path / "c.sqlite3")
    agent = AgentClient(DemoModel(delay_s=0.2), ToolRouter([]))  # a reply that takes seconds

    def open_stored(conversation_id: str) -> Conversation:
        stored = store.load(conversation_id)
        assert stored is not None
        events = items_of(stored.events)
        return Conversation(agent, conversation_id=stored.id, history=stored.messages, events=events)

    library = ConversationLibrary(store, open_stored)
    deps = replace(offline_deps(), conversation=Conversation(agent),
                   conversations=ConversationsFeature(library, lambda _old, conversation_id: library.open(conversation_id)))
    window = MainWindow(tray=False)
    qtbot.add_widget(window)
    window.attach(deps)
    window.show()
    window.activateWindow()
    await until(lambda: QApplication.activeWindow() is window)
    turns = SignalLog(window.turn_finished)
    try:
        assert window.send_text("hello")
        controller = window.controller
        assert controller is not None
        await until(lambda: controller.conversation.replying)
        search = next(e for e in window.findChildren(QLineEdit) if e.isClearButtonEnabled())
        search.setFocus()
        QTest.keyClicks(search, "old")
        press(window, Qt.Key.Key_Escape)
        assert search.text() == "" and window.send_button.phase == "interrupt"
        press(window, Qt.Key.Key_Escape)
        assert await turns.wait_for(timeout=10) == ("user",)
    finally:
        window.close()
        await window.shutdown()
        store.close()


async def test_esc_is_left_to_push_to_talk_while_it_records() -> None:
    async with scripted_window([SLOW, text_reply("The end.")]) as rig:
        window = rig.window
        window.send_text("tell me a long story")
        await until(lambda: len(rig.server.requests) == 1)
        real = window.voice
        window.voice = cast(Any, SimpleNamespace(hearing=True))  # the voice adapter says it records
        try:
            window.send_button.setFocus()
            press(window, Qt.Key.Key_Escape)
            assert window.send_button.phase == "interrupt"
        finally:
            window.voice = real
        press(window, Qt.Key.Key_Escape)
        assert await rig.turns.wait_for(timeout=10) == ("user",)


async def test_enter_while_a_reply_is_generated_says_so_once_and_keeps_the_text() -> None:
    async with scripted_window([SLOW, text_reply("never")]) as rig:
        window = rig.window
        window.send_text("tell me a long story")
        await until(lambda: len(rig.server.requests) == 1)
        window.input.setFocus()
        QTest.keyClicks(window.input, "and then?")
        press(window, Qt.Key.Key_Return)
        press(window, Qt.Key.Key_Return)
        assert system_lines(window) == [ENGLISH.tr("reply_running")]
        assert ENGLISH.tr("reply_running") == "A reply is still running — press Esc to stop it, then send your message"
        assert window.input.toPlainText() == "and then?"
        press(window, Qt.Key.Key_Escape)
        assert await rig.turns.wait_for(timeout=10) == ("user",)
        assert window.input.toPlainText() == "and then?"  # still there, to send now


async def test_enter_while_the_last_words_are_spoken_stops_them_and_sends() -> None:
    script = [
        text_reply("<voice>One. Two. Three.</voice><no_tool>"),
        text_reply(""),
        text_reply("Sure.<no_tool>"),
        text_reply("Here it is."),
    ]
    async with speaking_window(script) as (rig, sink):
        window = rig.window
        window.send_text("count")
        async with asyncio.timeout(10):
            await sink.wait_for_plays(1)
        await until(lambda: not rig.conversation.replying)
        window.input.setFocus()
        QTest.keyClicks(window.input, "next question")
        press(window, Qt.Key.Key_Return)
        assert window.input.toPlainText() == ""
        assert await rig.turns.wait_for(timeout=10) == ("completed",)  # the spoken turn
        assert await rig.turns.wait_for(timeout=10) == ("completed",)  # the new one
        assert sink.log == [("play", FakeTTS.audio_for("One."), "audio/wav"), ("stop",), ("stopped", 0)]
        assert "next question" in user_messages(rig.server.requests[2])[-1]
        assert bubbles(window) == ["count", "One.", "next question", "Sure.\n\nHere it is."]
        assert system_lines(window) == [ENGLISH.tr("sys_speech_stopped")]


async def test_the_skip_button_and_shift_esc_skip_one_sentence_and_the_reply_goes_on() -> None:
    script = [text_reply("<voice>One. Two. Three.</voice><no_tool>"), text_reply("<voice>Four.</voice>")]
    async with speaking_window(script) as (rig, sink):
        window = rig.window
        skip = window.audio.skip_button
        assert not skip.isEnabled()  # nothing is spoken yet
        assert skip.toolTip() == "Skip this sentence (Shift+Esc)"
        window.send_text("count")
        async with asyncio.timeout(10):
            await sink.wait_for_plays(1)
        await until(skip.isEnabled)
        skip.click()
        async with asyncio.timeout(10):
            await sink.wait_for_plays(2)
        window.input.setFocus()
        press(window, Qt.Key.Key_Escape, Qt.KeyboardModifier.ShiftModifier)
        async with asyncio.timeout(10):
            await sink.wait_for_plays(3)
        sink.finish()
        async with asyncio.timeout(10):
            await sink.wait_for_plays(4)
        sink.finish()
        assert await rig.turns.wait_for(timeout=10) == ("completed",)
        assert not skip.isEnabled()
        audio = FakeTTS.audio_for
        assert sink.log == [
            ("play", audio("One."), "audio/wav"), ("stop",), ("stopped", 0),
            ("play", audio("Two."), "audio/wav"), ("stop",), ("stopped", 1),
            ("play", audio("Three."), "audio/wav"), ("end", 2),
            ("play", audio("Four."), "audio/wav"), ("end", 3),
        ]
        assert bubbles(window) == ["count", "One. Two. Three.\n\nFour."]  # skipped, not dropped
        assert system_lines(window) == []  # nothing was interrupted
        spoken = [m["content"] for m in history_json(rig.conversation.history) if m["role"] == "assistant"]
        assert spoken == ["<voice>One. Two. Three.</voice>", "<voice>Four.</voice>"]  # what the model hears next


async def test_skipping_a_long_narration_reaches_the_approval_behind_it_at_once() -> None:
    narration = "<voice>I will look at your documents folder now. It may take a moment. Then I will list it.</voice>"
    script = [text_reply(narration + "<need_tool>"), tool_reply("run_command", {"command": "echo hi"}),
              text_reply("Done.")]
    async with speaking_window(script) as (rig, sink):
        window = rig.window
        window.send_text("list my documents")
        for played in (1, 2, 3):
            async with asyncio.timeout(10):
                await sink.wait_for_plays(played)
            assert rig.waiting.events == []  # the card waits behind the speech
            press(window, Qt.Key.Key_Escape, Qt.KeyboardModifier.ShiftModifier)
        kind, _call_id = await rig.waiting.wait_for(timeout=10)
        assert kind == "approval"
        assert [entry[0] for entry in sink.log].count("stopped") == 3
        assert window.send_button.phase == "interrupt" and system_lines(window) == []
        press(window, Qt.Key.Key_A, Qt.KeyboardModifier.AltModifier)
        assert await rig.turns.wait_for(timeout=10) == ("completed",)
