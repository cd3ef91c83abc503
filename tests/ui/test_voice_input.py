"""VoiceInput driven by WAV files (no microphone exists here) and a
scripted recogniser; the real WebRTC VAD cuts the utterances."""

from __future__ import annotations

from pathlib import Path

from desktop_agent.core.ports import STTError
from desktop_agent.testing.fake_recognizer import ScriptedRecognizer
from desktop_agent.testing.wav_input import WavAudioInput
from desktop_agent.testing.window_rig import SignalLog
from desktop_agent.ui.voice_input import VoiceInput
from desktop_agent.voice.pcm import silence16
from desktop_agent.voice.vad import WebRtcVad

DATA = Path(__file__).parents[1] / "voice" / "data"


def voice(audio: WavAudioInput, recognizer: ScriptedRecognizer, **kwargs: object) -> VoiceInput:
    return VoiceInput(audio, recognizer, vad=WebRtcVad, **kwargs)  # type: ignore[arg-type]


async def test_push_to_talk_recognises_the_held_recording() -> None:
    audio = WavAudioInput([DATA / "what_time.wav"], speed=0, tail_s=0.3)
    recognizer = ScriptedRecognizer(["what time is it"])
    vi = voice(audio, recognizer)
    states, texts = SignalLog(vi.state_changed), SignalLog(vi.transcript)
    assert vi.start_talk()
    assert vi.state == "listening"
    await audio.finished.wait()
    vi.end_talk()
    assert await texts.wait_for(timeout=5) == ("what time is it", True)
    assert [s for s, _r in states.events] == ["listening", "recognising", "idle"]
    assert recognizer.heard and recognizer.heard[0] >= len(silence16(1.0))
    assert not audio.running


async def test_send_at_once_off_leaves_the_text_to_edit() -> None:
    audio = WavAudioInput([DATA / "yes.wav"], speed=0, tail_s=0)
    vi = voice(audio, ScriptedRecognizer(["yes"]), send_at_once=False)
    texts = SignalLog(vi.transcript)
    vi.start_talk()
    await audio.finished.wait()
    vi.end_talk()
    assert await texts.wait_for(timeout=5) == ("yes", False)


async def test_escape_cancels_the_recording_and_nothing_is_recognised() -> None:
    audio = WavAudioInput([DATA / "yes.wav"], speed=1)
    recognizer = ScriptedRecognizer(["yes"])
    vi = voice(audio, recognizer)
    vi.start_talk()
    vi.cancel()
    assert vi.state == "idle" and not audio.running and recognizer.heard == []


async def test_a_missing_microphone_disables_speech_input_with_one_line() -> None:
    vi = voice(WavAudioInput(error="no microphone found"), ScriptedRecognizer())
    notices, states = SignalLog(vi.notice), SignalLog(vi.state_changed)
    assert not vi.start_talk()
    assert states.events == [("unavailable", "no microphone found")]
    assert notices.events == [("warning", "Speech input unavailable: no microphone found")]
    assert not vi.available


def test_without_a_recogniser_the_reason_is_given() -> None:
    vi = VoiceInput(WavAudioInput(), None)
    assert vi.state == "unavailable"
    assert vi.reason == "no speech recogniser is set up (Settings)"


async def test_a_recogniser_error_is_said_and_input_stays_usable() -> None:
    audio = WavAudioInput([DATA / "yes.wav"], speed=0, tail_s=0)
    vi = voice(audio, ScriptedRecognizer([STTError("endpoint down")]))
    notices = SignalLog(vi.notice)
    vi.start_talk()
    await audio.finished.wait()
    vi.end_talk()
    assert await notices.wait_for(timeout=5) == ("warning", "Speech recognition failed: endpoint down")
    assert vi.state == "idle" and vi.available


async def test_hands_free_sends_each_utterance_and_pauses_while_busy() -> None:
    audio = WavAudioInput([DATA / "what_time.wav", DATA / "maybe.wav"], speed=0, tail_s=1.5)
    recognizer = ScriptedRecognizer(["what time is it", "maybe later"])
    vi = voice(audio, recognizer)
    texts = SignalLog(vi.transcript)
    vi.transcript.connect(lambda _text, _send: vi.set_busy(True))  # the window sends it: a turn runs
    vi.set_hands_free(True)
    assert vi.state == "listening"
    assert await texts.wait_for(timeout=5) == ("what time is it", True)
    assert vi.mode == "off" and not audio.running
    vi.set_busy(False)  # the reply (and its speech) ended
    assert vi.mode == "utterance"  # type: ignore[comparison-overlap]  # changed by set_busy
    assert await texts.wait_for(timeout=5) == ("maybe later", True)
    assert audio.starts == 2


async def test_barge_in_fires_on_sustained_speech_while_busy() -> None:
    audio = WavAudioInput([DATA / "what_time.wav"], speed=0, tail_s=0.5)
    vi = voice(audio, ScriptedRecognizer())
    vi.barge_in_ms = 300
    barge = SignalLog(vi.barge_in)
    vi.set_busy(True)
    vi.set_hands_free(True)
    assert vi.mode == "barge"
    await barge.wait_for(timeout=5)
    assert not audio.running


async def test_no_barge_in_by_default_nothing_is_heard_while_busy() -> None:
    audio = WavAudioInput([DATA / "what_time.wav"], speed=0)
    vi = voice(audio, ScriptedRecognizer())
    vi.set_busy(True)
    vi.set_hands_free(True)
    assert vi.mode == "off" and audio.starts == 0


async def test_a_clear_spoken_yes_approves() -> None:
    audio = WavAudioInput([DATA / "yes.wav"], speed=0, tail_s=1.5)
    vi = voice(audio, ScriptedRecognizer(["Yes."]))
    answers, notices = SignalLog(vi.approval_answer), SignalLog(vi.notice)
    vi.set_busy(True)
    vi.set_hands_free(True)
    assert vi.ask_approval("call_1", "run_command")
    assert await answers.wait_for(timeout=5) == ("call_1", True)
    assert notices.events == [("system", "run_command needs your approval: say yes or no")]


async def test_a_clear_no_rejects() -> None:
    audio = WavAudioInput([DATA / "no.wav"], speed=0, tail_s=1.5)
    vi = voice(audio, ScriptedRecognizer(["no"]))
    answers = SignalLog(vi.approval_answer)
    vi.set_hands_free(True)
    vi.set_busy(True)
    vi.ask_approval("call_1", "run_command")
    assert await answers.wait_for(timeout=5) == ("call_1", False)


async def test_unclear_answers_ask_once_more_then_leave_the_card_to_the_mouse() -> None:
    audio = WavAudioInput([DATA / "maybe.wav", DATA / "maybe.wav"], speed=0, tail_s=1.5)
    recognizer = ScriptedRecognizer(["maybe later", "yes and no"])
    vi = voice(audio, recognizer)
    answers, notices = SignalLog(vi.approval_answer), SignalLog(vi.notice)
    vi.set_busy(True)
    vi.set_hands_free(True)
    vi.ask_approval("call_1", "run_command")
    await notices.wait_for(lambda _l, text: text == "Not understood; answer on the card", timeout=8)
    assert answers.events == []
    assert [t for _l, t in notices.events] == [
        "run_command needs your approval: say yes or no",
        "Please say yes or no",
        "Not understood; answer on the card",
    ]
    assert vi.mode == "off" and len(recognizer.heard) == 2


async def test_approval_is_not_asked_by_voice_without_hands_free() -> None:
    vi = voice(WavAudioInput([DATA / "yes.wav"]), ScriptedRecognizer(["yes"]))
    assert not vi.ask_approval("call_1", "run_command")


async def test_the_question_is_said_before_listening_for_the_answer() -> None:
    import asyncio

    audio = WavAudioInput([DATA / "yes.wav"], speed=0, tail_s=1.5)
    said: list[str] = []
    release = asyncio.Event()

    async def speak(text: str) -> None:
        said.append(text)
        await release.wait()

    vi = voice(audio, ScriptedRecognizer(["yes"]), speak=speak)
    answers = SignalLog(vi.approval_answer)
    vi.set_busy(True)
    vi.set_hands_free(True)
    vi.ask_approval("call_1", "run_command")
    await asyncio.sleep(0.05)
    assert said == ["run_command needs your approval: say yes or no"]
    assert not audio.running  # the microphone would hear the question
    release.set()
    assert await answers.wait_for(timeout=5) == ("call_1", True)


async def test_a_click_while_the_question_is_said_stops_asking() -> None:
    import asyncio

    audio = WavAudioInput([DATA / "yes.wav"], speed=0)
    vi = voice(audio, ScriptedRecognizer(["yes"]), speak=lambda _t: asyncio.sleep(10))
    vi.set_busy(True)
    vi.set_hands_free(True)
    vi.ask_approval("call_1", "run_command")
    vi.drop_approval("call_1")
    await asyncio.sleep(0.05)
    assert audio.starts == 0 and vi.mode == "off"


async def test_closing_releases_the_microphone() -> None:
    audio = WavAudioInput([DATA / "what_time.wav"], speed=1)
    vi = voice(audio, ScriptedRecognizer())
    vi.set_hands_free(True)
    assert audio.running
    vi.close()
    assert not audio.running and not vi.hands_free
