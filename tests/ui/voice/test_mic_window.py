"""Speech input in the window: the mic button's states (screenshots),
push-to-talk with Space, and a tool approved by a spoken yes. The
microphone is a WAV file (none exists here); the recogniser is scripted."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QImage
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from desktop_agent.testing.audit_sink import RecordingAuditSink
from desktop_agent.testing.fake_recognizer import ScriptedRecognizer
from desktop_agent.testing.scripted_server import text_reply, tool_reply
from desktop_agent.testing.wav_input import WavAudioInput
from desktop_agent.testing.window_rig import SignalLog, offline_deps, scripted_window
from desktop_agent.texts import ENGLISH
from desktop_agent.ui.cards.tool_card import ToolCardWidget
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.system_message import SystemMessage
from desktop_agent.ui.shell.main_window import MainWindow
from desktop_agent.ui.voice.feature import VoiceFeature
from desktop_agent.voice.vad import WebRtcVad

pytestmark = pytest.mark.usefixtures("keep_loop_on_close")

DATA = Path(__file__).parents[2] / "voice" / "data"
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"


def voice_window(qtbot: QtBot, audio: WavAudioInput, recognizer: ScriptedRecognizer | None) -> MainWindow:
    window = MainWindow(tray=False)
    qtbot.add_widget(window)
    window.attach(replace(offline_deps(), voice=VoiceFeature(audio, recognizer, vad=WebRtcVad)))
    window.resize(860, 720)
    window.show()
    qtbot.wait_exposed(window)
    return window


def state_of(window: MainWindow) -> str:
    """The mic button's state, read afresh (mypy would narrow the attribute)."""
    return window.mic.state


def save_bottom(window: MainWindow, name: str) -> QImage:
    """The input row, where the mic button sits."""
    bar = window.send_button.geometry()
    top = window.send_button.mapTo(window, bar.topLeft() - bar.topLeft()).y() - 20
    image = window.grab(QRect(0, top, window.width(), bar.height() + 40)).toImage()
    ARTIFACTS.mkdir(exist_ok=True)
    assert image.save(str(ARTIFACTS / name))
    return image


def has_colour(image: QImage, test: object) -> bool:
    check = test  # (r, g, b) -> bool
    for y in range(image.height()):
        for x in range(image.width()):
            c = image.pixelColor(x, y)
            if check(c.red(), c.green(), c.blue()):  # type: ignore[operator]
                return True
    return False


def red(r: int, g: int, b: int) -> bool:
    return r > 180 and g < 110 and b < 110


async def test_mic_button_states_are_drawn_and_explained(qtbot: QtBot) -> None:
    audio = WavAudioInput([DATA / "yes.wav"], speed=1)
    window = voice_window(qtbot, audio, ScriptedRecognizer(["yes"]))
    mic = window.mic
    assert mic.state == "idle" and mic.isEnabled() and mic.toolTip() == ENGLISH.tr("mic_idle")
    save_bottom(window, "mic_idle.png")
    idle = mic.grab().toImage()
    assert not has_colour(idle, red)
    assert has_colour(idle, lambda r, g, b: r + g + b < 150)  # drawn in the text colour, not greyed

    QTest.mousePress(mic, Qt.MouseButton.LeftButton)
    assert state_of(window) == "listening" and audio.running
    assert mic.toolTip() == ENGLISH.tr("mic_listening")
    save_bottom(window, "mic_listening.png")
    assert has_colour(mic.grab().toImage(), red)  # a red, filled microphone
    QTest.keyPress(window.input, Qt.Key.Key_Escape)  # Esc cancels: nothing is recognised
    assert state_of(window) == "idle" and not audio.running
    QTest.mouseRelease(mic, Qt.MouseButton.LeftButton)
    assert window.input.toPlainText() == ""


async def test_a_missing_microphone_says_so_once_and_disables_the_button(qtbot: QtBot) -> None:
    window = voice_window(qtbot, WavAudioInput(error=ENGLISH.tr("mic_none")), ScriptedRecognizer())
    QTest.mouseClick(window.mic, Qt.MouseButton.LeftButton)
    assert window.mic.state == "unavailable" and not window.mic.isEnabled()
    assert window.mic.toolTip() == "Speech input unavailable: no microphone found"
    assert not window.hands_free_button.isEnabled()
    texts = [w.text() for w in window.chat.items() if isinstance(w, MessageBubble)]
    assert texts == ["Speech input unavailable: no microphone found"]  # one line, said once
    QTest.mouseClick(window.hands_free_button, Qt.MouseButton.LeftButton)
    assert len([w for w in window.chat.items() if isinstance(w, MessageBubble)]) == 1
    save_bottom(window, "mic_unavailable.png")


def test_without_a_recogniser_the_button_is_disabled_with_the_reason(qtbot: QtBot) -> None:
    window = voice_window(qtbot, WavAudioInput(), None)
    assert window.mic.state == "unavailable" and not window.mic.isEnabled()
    assert window.mic.toolTip() == ENGLISH.tr("mic_unavailable", reason=ENGLISH.tr("mic_no_recognizer"))


async def test_space_in_an_empty_input_talks_and_the_transcript_is_sent() -> None:
    from desktop_agent.storage.settings import Settings, SettingsStore

    SettingsStore().save(Settings(voice_send="at_once"))  # the countdown: tests/ui/test_voice_window.py
    audio = WavAudioInput([DATA / "what_time.wav"], speed=0, tail_s=0.2)
    recognizer = ScriptedRecognizer(["what time is it"])
    voice = {"audio_input": audio, "recognizer": recognizer, "vad": WebRtcVad}
    async with scripted_window([text_reply("Let me see.<need_tool>"), text_reply("It is noon.")], voice=voice) as rig:
        window = rig.window
        window.input.setFocus()
        QTest.keyPress(window.input, Qt.Key.Key_Space)
        assert window.mic.state == "listening"
        QTest.keyPress(window.input, Qt.Key.Key_Space, Qt.KeyboardModifier.NoModifier, -1)
        await audio.finished.wait()
        QTest.keyRelease(window.input, Qt.Key.Key_Space)
        status = await rig.turns.wait_for(timeout=20)
        texts = [w.text() for w in window.chat.items() if isinstance(w, MessageBubble)]
        assert status == ("completed",), texts
        assert texts[0] == "what time is it" and texts[-1].endswith("It is noon."), texts
        assert window.input.toPlainText() == ""  # no stray space either
        assert state_of(window) == "idle"


async def test_space_with_text_in_the_input_types_a_space() -> None:
    voice = {"audio_input": WavAudioInput(), "recognizer": ScriptedRecognizer(), "vad": WebRtcVad}
    async with scripted_window([], voice=voice) as rig:
        rig.window.input.setPlainText("hi")
        rig.window.input.moveCursor(rig.window.input.textCursor().MoveOperation.End)
        QTest.keyClick(rig.window.input, Qt.Key.Key_Space)
        assert rig.window.input.toPlainText() == "hi " and rig.window.mic.state == "idle"


async def test_a_spoken_yes_approves_the_tool_and_the_card_says_so() -> None:
    script = [
        text_reply("Let me check.\n<need_tool>"),
        tool_reply("run_command", {"command": "echo by-voice"}),
        text_reply("Done."),
    ]
    audio = WavAudioInput([DATA / "what_time.wav", DATA / "yes.wav"], speed=0, tail_s=1.5)
    recognizer = ScriptedRecognizer(["run echo", "yes"])
    voice = {"audio_input": audio, "recognizer": recognizer, "vad": WebRtcVad}
    async with scripted_window(script, voice=voice) as rig:
        window = rig.window
        window.resize(860, 720)
        assert window.controller is not None
        audit = window.controller.conversation.approvals.audit = RecordingAuditSink()
        window.hands_free_button.setChecked(True)  # hears "run echo" and sends it
        assert await rig.turns.wait_for(timeout=20) == ("completed",)
        assert audit.decisions() == [("run_command", "approved", "voice")]  # the audit says: by voice
        glue = window.voice
        assert glue is not None and glue.voice.mode == "utterance"  # listening again after the reply
        window.hands_free_button.setChecked(False)
        cards = [w for w in window.chat.items() if isinstance(w, ToolCardWidget)]
        assert len(cards) == 1
        state = cards[0].state
        assert state.phase == "done" and state.by_voice and "by-voice" in (state.result or "")
        assert ENGLISH.tr("approved_by_voice") in cards[0].title.text()
        lines = [w.text() for w in window.chat.items() if isinstance(w, SystemMessage)]
        assert lines == []  # asked on the line above the input, gone once answered
        assert not glue.line.isVisible()
        ARTIFACTS.mkdir(exist_ok=True)
        assert window.grab().save(str(ARTIFACTS / "window_voice_approved.png"))


async def test_an_unclear_answer_never_approves() -> None:
    script = [text_reply("Let me check.\n<need_tool>"), tool_reply("run_command", {"command": "echo x"})]
    audio = WavAudioInput([DATA / "what_time.wav", DATA / "maybe.wav"], speed=0, tail_s=1.5)
    recognizer = ScriptedRecognizer(["run echo", "maybe later", "perhaps"])
    voice = {"audio_input": audio, "recognizer": recognizer, "vad": WebRtcVad}
    async with scripted_window(script, voice=voice) as rig:
        window = rig.window
        glue = window.voice
        assert glue is not None
        notices = SignalLog(glue.voice.notice)
        window.hands_free_button.setChecked(True)
        _kind, call_id = await rig.waiting.wait_for(timeout=20)
        await notices.wait_for(lambda _l, text: text == ENGLISH.tr("voice_approval_unclear"), timeout=10)
        view = window.view
        assert view is not None
        card_state = view.card_state(call_id)
        assert card_state is not None and card_state.phase == "approval"  # left to the mouse
        window.hands_free_button.setChecked(False)


async def test_barge_in_interrupts_the_turn_like_the_interrupt_button() -> None:
    from desktop_agent.storage.settings import Settings, SettingsStore

    SettingsStore().save(Settings(barge_in=True, barge_in_ms=300))
    audio = WavAudioInput([DATA / "what_time.wav"], speed=1, tail_s=0.5)
    voice = {"audio_input": audio, "recognizer": ScriptedRecognizer(), "vad": WebRtcVad}
    script = [text_reply("A long answer that goes on and on. " * 20, delay_s=0.05)]
    async with scripted_window(script, voice=voice) as rig:
        window = rig.window
        assert window.send_text("tell me a story")
        window.hands_free_button.setChecked(True)  # while it answers: only barge-in listens
        glue = window.voice
        assert glue is not None and glue.voice.mode == "barge"
        assert await rig.turns.wait_for(timeout=20) == ("user",)
        assert ENGLISH.tr("sys_interrupted") in [w.text() for w in window.chat.items() if isinstance(w, SystemMessage)]
        window.hands_free_button.setChecked(False)


async def test_a_spoken_no_heard_by_pocketsphinx_rejects_by_voice() -> None:
    from desktop_agent.voice.stt import PocketsphinxRecognizer

    script = [text_reply("Let me check.\n<need_tool>"), tool_reply("run_command", {"command": "echo x"})]
    audio = WavAudioInput([DATA / "what_time.wav", DATA / "no.wav"], speed=0, tail_s=1.5)
    voice = {
        "audio_input": audio,
        "recognizer": ScriptedRecognizer(["run echo"]),
        "answer_recognizer": PocketsphinxRecognizer("answer"),  # the real engine hears the answer
        "vad": WebRtcVad,
    }
    async with scripted_window(script, voice=voice) as rig:
        window = rig.window
        window.hands_free_button.setChecked(True)
        assert await rig.turns.wait_for(timeout=30) == ("rejected",)
        window.hands_free_button.setChecked(False)
        cards = [w for w in window.chat.items() if isinstance(w, ToolCardWidget)]
        assert cards[0].state.phase == "rejected" and cards[0].state.by_voice
        assert ENGLISH.tr("rejected_by_voice") in cards[0].title.text()
