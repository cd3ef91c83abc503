"""VoiceInput, the adapter, driven by real speech (WAV fixtures) through the
real WebRTC VAD and a scripted recogniser: what reaches the window (its
signals) for push-to-talk, hands-free, barge-in and approval by voice. The
rules themselves are tested row by row in tests/core/test_voice_session*."""

from __future__ import annotations

import asyncio
from pathlib import Path

from desktop_agent.core.ports import STTError
from desktop_agent.core.voice_output import OutputTap
from desktop_agent.core.voice_session import VoiceConfig
from desktop_agent.testing.fake_recognizer import ScriptedRecognizer
from desktop_agent.testing.fake_sink import FakeAudioSink
from desktop_agent.testing.live_mic import LiveMicrophone
from desktop_agent.testing.wav_input import WavAudioInput
from desktop_agent.testing.window_rig import SignalLog
from desktop_agent.texts import ENGLISH
from desktop_agent.ui.voice.speech_input import VoiceInput
from desktop_agent.voice.pcm import read_wav16, silence16
from desktop_agent.voice.vad import WebRtcVad

DATA = Path(__file__).parents[2] / "voice" / "data"
WHAT_TIME = read_wav16(DATA / "what_time.wav")


def voice(audio: object, recognizer: ScriptedRecognizer | None, **kwargs: object) -> VoiceInput:
    return VoiceInput(audio, recognizer, vad=WebRtcVad, texts=lambda: ENGLISH, **kwargs)  # type: ignore[arg-type]


class Window:
    """What the window was told, in order."""

    def __init__(self, vi: VoiceInput) -> None:
        self.log: list[tuple[object, ...]] = []
        vi.put_text.connect(lambda text: self.log.append(("put", text)))
        vi.send_input.connect(lambda: self.log.append(("send",)))
        vi.countdown.connect(lambda left, total: self.log.append(("countdown", left, total)))
        vi.hint.connect(lambda text: self.log.append(("hint", text)))
        vi.barge_in.connect(lambda: self.log.append(("barge_in",)))
        vi.approval_answer.connect(lambda ident, ok: self.log.append(("answer", ident, ok)))
        vi.notice.connect(lambda level, text: self.log.append(("notice", level, text)))
        self._changed = asyncio.Event()
        for signal in (vi.put_text, vi.send_input, vi.approval_answer, vi.notice, vi.barge_in, vi.hint):
            signal.connect(lambda *_a: self._changed.set())

    async def until(self, entry: tuple[object, ...], timeout: float = 5.0) -> None:
        async with asyncio.timeout(timeout):
            while entry not in self.log:
                self._changed.clear()
                await self._changed.wait()


async def test_push_to_talk_puts_the_transcript_in_the_input_and_counts_down() -> None:
    audio = WavAudioInput([DATA / "what_time.wav"], speed=0, tail_s=0.3)
    recognizer = ScriptedRecognizer(["what time is it"])
    vi = voice(audio, recognizer)
    states, window = SignalLog(vi.state_changed), Window(vi)
    assert vi.start_talk()
    assert vi.state == "listening"
    await audio.finished.wait()
    vi.end_talk()
    await window.until(("countdown", 2.0, 2.0))
    assert window.log == [("put", "what time is it"), ("countdown", 2.0, 2.0)]
    assert [s for s, _r in states.events] == ["listening", "recognising", "idle"]
    assert recognizer.heard and recognizer.heard[0] >= len(silence16(1.0))
    assert not audio.running
    vi.close()


async def test_send_at_once_and_review() -> None:
    for config, expected in ((VoiceConfig(send="at_once"), [("put", "yes"), ("send",)]),
                             (VoiceConfig(send="review"), [("put", "yes")])):
        audio = WavAudioInput([DATA / "yes.wav"], speed=0, tail_s=0)
        vi = voice(audio, ScriptedRecognizer(["yes"]), config=config)
        window = Window(vi)
        vi.start_talk()
        await audio.finished.wait()
        vi.end_talk()
        await window.until(("put", "yes"))
        assert window.log == expected


async def test_escape_cancels_the_recording_and_nothing_is_recognised() -> None:
    audio = WavAudioInput([DATA / "yes.wav"], speed=1)
    recognizer = ScriptedRecognizer(["yes"])
    vi = voice(audio, recognizer)
    vi.start_talk()
    assert vi.cancel()
    assert vi.state == "idle" and not audio.running and recognizer.heard == []
    assert not vi.cancel()  # nothing left to cancel: Esc is someone else's


async def test_a_missing_microphone_disables_speech_input_with_one_line() -> None:
    vi = voice(WavAudioInput(error="no microphone found"), ScriptedRecognizer())
    notices, states = SignalLog(vi.notice), SignalLog(vi.state_changed)
    assert not vi.start_talk()
    assert states.events == [("unavailable", "no microphone found")]
    assert notices.events == [("warning", "Speech input unavailable: no microphone found")]
    assert not vi.available


def test_without_a_recogniser_the_reason_is_given() -> None:
    vi = VoiceInput(WavAudioInput(), None, texts=lambda: ENGLISH)
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
    window = Window(vi)
    vi.send_input.connect(lambda: vi.set_busy(True))  # the window sends it: a turn runs
    vi.set_hands_free(True)
    assert vi.state == "listening"
    await window.until(("send",))
    assert window.log == [("put", "what time is it"), ("send",)]
    assert vi.mode == "off" and not audio.running
    vi.set_busy(False)  # the reply (and its speech) ended
    assert vi.mode == "utterance"  # type: ignore[comparison-overlap]  # changed by set_busy
    await window.until(("put", "maybe later"))
    assert audio.starts == 2
    vi.close()


async def test_barge_in_fires_on_the_onset_and_hears_the_whole_utterance() -> None:
    mic = LiveMicrophone(speed=0)
    recognizer = ScriptedRecognizer(["what time is it"])
    vi = voice(mic, recognizer, config=VoiceConfig(barge_in=True))
    window = Window(vi)
    onset = next(i for i in range(0, len(WHAT_TIME), 960) if WebRtcVad().is_speech(WHAT_TIME[i : i + 960])) // 960
    fired_at: list[int] = []
    vi.barge_in.connect(lambda: fired_at.append(mic.frames))
    vi.set_busy(True)
    vi.set_hands_free(True)
    assert vi.mode == "barge"
    mic.say(WHAT_TIME)
    await window.until(("barge_in",))
    assert (fired_at[0] - mic.said_at[0] - onset) * 30 <= 150  # ms of speech before the interrupt
    assert vi.mode == "barge"  # still recording
    vi.set_busy(False)  # the interrupted turn ended
    await window.until(("send",))
    assert window.log == [("barge_in",), ("put", "what time is it"), ("send",)]
    assert recognizer.heard[0] >= len(WHAT_TIME)  # from before the onset to the end
    mic.close()


async def test_a_request_to_stop_over_the_assistant_sends_nothing() -> None:
    mic = LiveMicrophone(speed=0)
    vi = voice(mic, ScriptedRecognizer(["Wait, stop talking please."]), config=VoiceConfig(barge_in=True))
    window = Window(vi)
    vi.set_busy(True)
    vi.set_hands_free(True)
    mic.say(WHAT_TIME)
    await window.until(("barge_in",))
    vi.set_busy(False)
    async with asyncio.timeout(5):
        while vi.mode != "utterance":  # heard, and listening again
            await asyncio.sleep(0.01)
    assert window.log == [("barge_in",)]
    mic.close()


async def test_a_cough_over_the_assistant_sends_nothing_and_says_so() -> None:
    mic = LiveMicrophone(speed=0)
    vi = voice(mic, ScriptedRecognizer(["(coughs)"]), config=VoiceConfig(barge_in=True))
    window = Window(vi)
    vi.set_busy(True)
    vi.set_hands_free(True)
    mic.say(WHAT_TIME)
    await window.until(("notice", "system", ENGLISH.tr("voice_barge_unclear")))
    assert window.log == [("barge_in",), ("notice", "system", ENGLISH.tr("voice_barge_unclear"))]
    mic.close()


async def test_no_barge_in_by_default_nothing_is_heard_while_busy() -> None:
    audio = WavAudioInput([DATA / "what_time.wav"], speed=0)
    vi = voice(audio, ScriptedRecognizer())
    vi.set_busy(True)
    vi.set_hands_free(True)
    assert vi.mode == "off" and audio.starts == 0


async def test_a_card_turns_speech_into_an_answer_never_a_barge_in() -> None:
    mic = LiveMicrophone(speed=0)
    vi = voice(mic, ScriptedRecognizer(["Yes."]), config=VoiceConfig(barge_in=True))
    window = Window(vi)
    vi.set_busy(True)
    vi.set_hands_free(True)
    assert vi.ask_approval("call_1", "run_command")
    assert vi.mode == "approval"
    mic.say(read_wav16(DATA / "yes.wav"))
    await window.until(("answer", "call_1", True))
    assert window.log == [("hint", ENGLISH.tr("voice_hint", tool="run_command")), ("hint", ""), ("answer", "call_1", True)]
    mic.close()


async def test_unclear_answers_ask_once_more_then_leave_the_card_to_the_mouse() -> None:
    audio = WavAudioInput([DATA / "maybe.wav", DATA / "maybe.wav"], speed=0, tail_s=1.5)
    recognizer = ScriptedRecognizer(["maybe later", "yes and no"])
    vi = voice(audio, recognizer)
    window = Window(vi)
    vi.set_busy(True)
    vi.set_hands_free(True)
    vi.ask_approval("call_1", "run_command")
    await window.until(("notice", "system", ENGLISH.tr("voice_approval_unclear")), timeout=8)
    assert window.log == [
        ("hint", ENGLISH.tr("voice_hint", tool="run_command")),
        ("notice", "system", ENGLISH.tr("voice_approval_again")),
        ("hint", ENGLISH.tr("voice_hint_again")),
        ("hint", ""),
        ("notice", "system", ENGLISH.tr("voice_approval_unclear")),
    ]
    assert vi.mode == "off" and len(recognizer.heard) == 2


async def test_push_to_talk_answers_a_card_without_hands_free() -> None:
    audio = WavAudioInput([DATA / "no.wav"], speed=0, tail_s=0.2)
    vi = voice(audio, ScriptedRecognizer(["No."]))
    window = Window(vi)
    vi.set_busy(True)
    assert not vi.ask_approval("call_1", "run_command")  # not listened for
    vi.start_talk()
    await audio.finished.wait()
    vi.end_talk()
    await window.until(("answer", "call_1", False))
    assert window.log == [("answer", "call_1", False)]


async def test_the_question_is_said_before_listening_when_our_voice_is_not_gated() -> None:
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
    await asyncio.sleep(0)
    assert said == ["run_command needs your approval: say yes or no"]
    assert not audio.running  # the microphone would take the question for the answer
    release.set()
    assert await answers.wait_for(timeout=5) == ("call_1", True)


async def test_with_our_voice_gated_an_answer_over_the_question_is_heard_and_stops_it() -> None:
    mic = LiveMicrophone(speed=0)
    question_stopped = asyncio.Event()

    async def speak(_text: str) -> None:
        try:
            await asyncio.Event().wait()  # a question that would go on for ever
        except asyncio.CancelledError:
            question_stopped.set()
            raise

    vi = voice(mic, ScriptedRecognizer(["yes"]), speak=speak)
    vi.attach_output(OutputTap(FakeAudioSink()))
    answers = SignalLog(vi.approval_answer)
    vi.set_busy(True)
    vi.set_hands_free(True)
    vi.ask_approval("call_1", "run_command")
    assert mic.running
    mic.say(read_wav16(DATA / "yes.wav"))
    assert await answers.wait_for(timeout=5) == ("call_1", True)
    assert question_stopped.is_set()
    mic.close()


async def test_a_click_while_the_question_is_said_stops_asking() -> None:
    audio = WavAudioInput([DATA / "yes.wav"], speed=0)
    asking = asyncio.Event()
    stopped = asyncio.Event()

    async def speak(_text: str) -> None:
        asking.set()
        try:
            await asyncio.Event().wait()  # a question that would go on for ever
        finally:
            stopped.set()

    vi = voice(audio, ScriptedRecognizer(["yes"]), speak=speak)
    hints = SignalLog(vi.hint)
    vi.set_busy(True)
    vi.set_hands_free(True)
    vi.ask_approval("call_1", "run_command")
    async with asyncio.timeout(5):
        await asking.wait()
        vi.drop_approval("call_1")
        await stopped.wait()  # the question is cut short...
    await asyncio.sleep(0)  # ...and what its end would have done has run
    assert audio.starts == 0 and vi.mode == "off"
    assert hints.events == [(ENGLISH.tr("voice_hint", tool="run_command"),), ("",)]


async def test_whisper_hears_the_answers_itself_other_engines_leave_them_to_the_grammar() -> None:
    whisper, grammar = ScriptedRecognizer(), ScriptedRecognizer()
    whisper.name = "whisper"
    assert voice(WavAudioInput(), whisper, answer_recognizer=grammar).answers is whisper
    sphinx = ScriptedRecognizer()
    sphinx.name = "pocketsphinx"
    assert voice(WavAudioInput(), sphinx, answer_recognizer=grammar).answers is grammar


async def test_a_microphone_lost_while_talking_keeps_what_was_said_for_review() -> None:
    mic = LiveMicrophone(speed=0)
    vi = voice(mic, ScriptedRecognizer(["remind me to call"]), config=VoiceConfig(send="at_once"))
    window = Window(vi)
    vi.start_talk()
    mic.say(WHAT_TIME)
    async with asyncio.timeout(5):
        while mic.heard < 30:
            await asyncio.sleep(0.01)
    vi.device_lost("USB microphone")
    await window.until(("put", "remind me to call"))
    assert window.log == [("notice", "warning", ENGLISH.tr("mic_lost_kept", device="USB microphone")),
                          ("put", "remind me to call")]  # not sent: it may be cut short
    assert vi.state == "unavailable" and vi.reason == "USB microphone"
    vi.set_microphone(None)
    assert vi.available
    mic.close()


async def test_the_device_watcher_makes_it_unavailable_and_available() -> None:
    vi = voice(WavAudioInput(), ScriptedRecognizer())
    states = SignalLog(vi.state_changed)
    vi.set_microphone("no microphone is connected")
    vi.set_microphone(None)
    assert states.events == [("unavailable", "no microphone is connected"), ("idle", "")]


async def test_closing_releases_the_microphone() -> None:
    audio = WavAudioInput([DATA / "what_time.wav"], speed=1)
    vi = voice(audio, ScriptedRecognizer())
    vi.set_hands_free(True)
    assert audio.running
    vi.close()
    assert not audio.running and not vi.hands_free
