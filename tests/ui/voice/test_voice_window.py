"""Approval by voice and the preview countdown in the real window.

The approval defect: hands-free with barge-in on, the card's question being
said, a quick spoken "yes" was taken for a barge-in — the card said "not
run: the turn was interrupted" and the audit log ``interrupted`` — and so
was a "no". Now speech while a card waits is an answer: yes approves, no
rejects (``tool_rejected`` with reason ``rejected``, audited as ``voice``),
and the hint above the input goes once it is answered, by voice or click.

The countdown: push-to-talk puts the transcript in the input and sends it
after 2 s (a FakeClock's) that any key or click in the input stops.
Screenshots: ``voice_approval_<en|zh>.png``, ``voice_countdown_<en|zh>.png``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtTest import QTest

from desktop_agent.core.rejection import REASON_REJECTED
from desktop_agent.core.voice_output import OutputTap
from desktop_agent.storage.conversation_events import SavedEvents
from desktop_agent.storage.settings import Settings, SettingsStore
from desktop_agent.testing.audit_sink import RecordingAuditSink
from desktop_agent.testing.fake_clock import FakeClock
from desktop_agent.testing.fake_recognizer import ScriptedRecognizer
from desktop_agent.testing.fake_sink import FakeAudioSink
from desktop_agent.testing.live_mic import LiveMicrophone
from desktop_agent.testing.scripted_server import text_reply, tool_reply
from desktop_agent.testing.wav_input import WavAudioInput
from desktop_agent.testing.window_rig import WindowRig, scripted_window
from desktop_agent.texts import Texts
from desktop_agent.ui.cards.tool_card import ToolCardWidget
from desktop_agent.ui.shell.main_window import MainWindow
from desktop_agent.ui.voice.glue import VoiceGlue
from desktop_agent.voice.pcm import read_wav16
from desktop_agent.voice.vad import WebRtcVad
from desktop_agent.voice.wav import silent_wav

pytestmark = pytest.mark.usefixtures("keep_loop_on_close")

DATA = Path(__file__).parents[2] / "voice" / "data"
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
NOON = [text_reply("Let me see.<need_tool>"), text_reply("It is noon.")]
TOOL_SCRIPT = [
    text_reply("Let me check.\n<need_tool>"),
    tool_reply("run_command", {"command": "echo by-voice"}),
    text_reply("Done."),
]


def cards(window: MainWindow) -> list[ToolCardWidget]:
    return [w for w in window.chat.items() if isinstance(w, ToolCardWidget)]


async def _card_waiting(rig: WindowRig, mic: LiveMicrophone) -> str:
    """Hands-free hears "run echo", the turn asks for approval: the card's id."""
    rig.window.hands_free_button.setChecked(True)
    mic.say(read_wav16(DATA / "what_time.wav"))
    _kind, call_id = await rig.waiting.wait_for(timeout=20)
    return str(call_id)


def _spoken_question_voice(mic: LiveMicrophone, answer: str) -> dict[str, object]:
    """The question is said through the speaker for 2 s (silently: the
    assistant's voice is not what this is about) while the user answers."""
    speaker = OutputTap(FakeAudioSink(auto_finish_s=2.0))

    async def say(_text: str) -> None:
        await speaker.play(silent_wav(2.0), "audio/wav")

    return {"audio_input": mic, "recognizer": ScriptedRecognizer(["run echo", answer]), "vad": WebRtcVad,
            "sink": speaker, "say": say}


@pytest.mark.parametrize(("answer", "status", "decision"), [("Yes.", "completed", "approved"),
                                                             ("No.", "rejected", "rejected")])
async def test_a_quick_spoken_answer_while_the_question_is_said_answers_the_card(
    answer: str, status: str, decision: str
) -> None:
    SettingsStore().save(Settings(barge_in=True))
    mic = LiveMicrophone()
    async with scripted_window(TOOL_SCRIPT, voice=_spoken_question_voice(mic, answer)) as rig:
        window = rig.window
        assert window.controller is not None
        audit = window.controller.conversation.approvals.audit = RecordingAuditSink()
        await _card_waiting(rig, mic)
        await asyncio.sleep(0.3)  # a second after the card appeared, the question still being said
        mic.say(read_wav16(DATA / ("yes.wav" if answer == "Yes." else "no.wav")))
        assert await rig.turns.wait_for(timeout=20) == (status,)
        window.hands_free_button.setChecked(False)
        mic.close()
        assert audit.decisions() == [("run_command", decision, "voice")]
        (card,) = cards(window)
        assert card.state.phase == ("done" if decision == "approved" else "rejected") and card.state.by_voice
        saved = SavedEvents(rig.conversation.events)
        ended = [(e["type"], e["reason"]) for e in saved if e.get("type") in ("tool_rejected", "interrupted")]
        assert ended == ([] if decision == "approved" else [("tool_rejected", REASON_REJECTED), ("interrupted", "rejected")])
        glue = window.voice
        assert glue is not None and not glue.line.isVisible()  # the hint went with the answer


@pytest.mark.parametrize("language", ["en", "zh"])
async def test_the_hint_shows_while_a_card_waits_and_goes_when_it_is_clicked(language: str) -> None:
    texts = Texts(language)  # type: ignore[arg-type]
    mic = LiveMicrophone()
    voice = {"audio_input": mic, "recognizer": ScriptedRecognizer(["run echo"]), "vad": WebRtcVad}
    async with scripted_window(TOOL_SCRIPT, voice=voice) as rig:
        window = rig.window
        window.retranslate(texts)
        window.resize(860, 720)
        await _card_waiting(rig, mic)
        glue = window.voice
        assert glue is not None
        assert glue.line.isVisible() and glue.line.label.text() == texts.tr("voice_hint", tool="run_command")
        assert glue.voice.mode == "approval"  # listening for the answer
        await asyncio.sleep(0)  # the layout the hint line asked for runs before the shot
        ARTIFACTS.mkdir(exist_ok=True)
        assert window.grab().save(str(ARTIFACTS / f"voice_approval_{language}.png"))
        (card,) = cards(window)
        QTest.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)
        assert not glue.line.isVisible() and glue.voice.mode != "approval"
        assert await rig.turns.wait_for(timeout=20) == ("completed",)
        window.hands_free_button.setChecked(False)
        mic.close()


async def _talk(rig: WindowRig, clock: FakeClock) -> VoiceGlue:
    """Space held in the empty input over "what time is it"; the transcript
    is in the input and the countdown runs."""
    window = rig.window
    glue = window.voice
    assert glue is not None
    window.input.setFocus()
    QTest.keyPress(window.input, Qt.Key.Key_Space)
    audio = glue.voice._audio  # the rig's WavAudioInput
    assert isinstance(audio, WavAudioInput)
    await audio.finished.wait()
    QTest.keyRelease(window.input, Qt.Key.Key_Space)
    async with asyncio.timeout(10):
        while not glue.line.counting:
            await asyncio.sleep(0.01)
    return glue


def _voice() -> dict[str, object]:
    return {"audio_input": WavAudioInput([DATA / "what_time.wav"], speed=0, tail_s=0.2),
            "recognizer": ScriptedRecognizer(["what time is it"]), "vad": WebRtcVad}


@pytest.mark.parametrize("language", ["en", "zh"])
async def test_push_to_talk_shows_the_transcript_and_sends_it_after_the_countdown(
    language: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = FakeClock()
    monkeypatch.setattr(VoiceGlue, "clock", clock.now)
    texts = Texts(language)  # type: ignore[arg-type]
    async with scripted_window(NOON, voice=_voice()) as rig:
        window = rig.window
        window.retranslate(texts)
        window.resize(860, 720)
        glue = await _talk(rig, clock)
        assert window.input.toPlainText() == "what time is it"
        assert glue.line.label.text() == texts.tr("voice_countdown", seconds=2) and glue.line.bar.isVisible()
        assert window.controller is not None and not window.controller.busy  # not sent yet
        bar = window.send_button.geometry()
        top = window.send_button.mapTo(window, bar.topLeft() - bar.topLeft()).y() - 60
        ARTIFACTS.mkdir(exist_ok=True)
        shot = window.grab(QRect(0, top, window.width(), bar.height() + 80))
        assert shot.save(str(ARTIFACTS / f"voice_countdown_{language}.png"))
        clock.advance(1.2)
        glue.voice.tick()
        assert glue.line.label.text() == texts.tr("voice_countdown", seconds=1)
        clock.advance(0.8)
        glue.voice.tick()
        assert await rig.turns.wait_for(timeout=20) == ("completed",)
        assert window.input.toPlainText() == "" and not glue.line.isVisible()


async def test_any_key_stops_the_countdown_and_the_text_stays_to_edit(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    monkeypatch.setattr(VoiceGlue, "clock", clock.now)
    async with scripted_window(NOON, voice=_voice()) as rig:
        window = rig.window
        glue = await _talk(rig, clock)
        QTest.keyClick(window.input, Qt.Key.Key_Question)
        assert not glue.line.isVisible()
        clock.advance(5)
        glue.voice.tick()  # the countdown would have ended by now: a send would be decided here, at once
        await asyncio.sleep(0)
        assert window.input.toPlainText() == "what time is it?"  # kept, and the key typed
        assert window.controller is not None and not window.controller.busy
        QTest.keyClick(window.input, Qt.Key.Key_Return)  # sent when the user says so
        assert await rig.turns.wait_for(timeout=20) == ("completed",)


async def test_a_click_in_the_input_stops_the_countdown(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    monkeypatch.setattr(VoiceGlue, "clock", clock.now)
    async with scripted_window([], voice=_voice()) as rig:
        window = rig.window
        glue = await _talk(rig, clock)
        QTest.mouseClick(window.input.viewport(), Qt.MouseButton.LeftButton)
        assert not glue.line.isVisible()
        clock.advance(5)
        glue.voice.tick()
        assert window.input.toPlainText() == "what time is it"
        assert window.controller is not None and not window.controller.busy
