"""VoiceSession, row by row: push-to-talk and the preview countdown,
hands-free, barge-in, the microphone coming and going. Approvals are in
``test_voice_session_approval.py``."""

from __future__ import annotations

import pytest

from desktop_agent.core.utterance import UtteranceTimings
from desktop_agent.core.voice_machine import VoiceSession
from desktop_agent.core.voice_session import (
    HANDS_FREE_TIMINGS,
    Cancel,
    Close,
    Configure,
    DeviceBack,
    DeviceLost,
    DropRecognition,
    EngineReason,
    HandsFree,
    Heard,
    InputTouched,
    InterruptTurn,
    MicFailed,
    NoSpeech,
    Notice,
    Playback,
    Press,
    PutInInput,
    Recognise,
    Release,
    SendInput,
    ShowCountdown,
    SpeechEnd,
    SpeechStart,
    StartCapture,
    StopCapture,
    Tick,
    TurnBusy,
    VoiceConfig,
)
from desktop_agent.testing.fake_clock import FakeClock
from desktop_agent.testing.voice_rows import PCM, Row, check

AT_ONCE = VoiceConfig(send="at_once")
REVIEW = VoiceConfig(send="review")
BARGE = VoiceConfig(barge_in=True)
BARGE_TIMINGS = UtteranceTimings(min_speech_ms=VoiceConfig().barge_in_ms)
TALKED = (Press(), Release(PCM))
"""Push-to-talk once: recognition 1 runs."""
BARGED = (HandsFree(True), TurnBusy(True), SpeechStart(), SpeechEnd(PCM))
"""Spoke over the assistant: recognition 1 (barge) runs."""

PUSH_TO_TALK = [
    Row("press opens the microphone for push-to-talk", (), Press(), [StartCapture("push")],
        {"capture": "push", "button": "listening"}),
    Row("release recognises the whole recording with the dictation engine", (Press(),), Release(PCM),
        [StopCapture(), Recognise(1, PCM, "dictation", "dictation")],
        {"capture": None, "recognising": "dictation", "button": "recognising"}),
    Row("a release without a press does nothing", (), Release(PCM), [], {"capture": None}),
    Row("a press while recognising is refused", TALKED, Press(), [], {"recognising": "dictation"}),
    Row("a second press while talking is ignored", (Press(),), Press(), [], {"capture": "push"}),
    Row("Esc while talking drops the recording", (Press(),), Cancel(), [StopCapture()],
        {"capture": None, "button": "idle"}),
    Row("Esc while recognising drops the recognition", TALKED, Cancel(), [DropRecognition()],
        {"recognising": None}),
    Row("Esc with nothing to cancel does nothing", (), Cancel(), []),
    Row("a transcript after Esc is not used", (*TALKED, Cancel()), Heard(1, "hello"), []),
    Row("send at once: the transcript is sent", TALKED, Heard(1, "what time is it"),
        [PutInInput("what time is it"), SendInput()], {"busy": True}, config=AT_ONCE),
    Row("countdown: the transcript waits in the input while the countdown shows", TALKED,
        Heard(1, "what time is it"), [PutInInput("what time is it"), ShowCountdown(2.0, 2.0)],
        {"countdown_until": 2.0, "busy": False}),
    Row("review: the transcript is left in the input", TALKED, Heard(1, "what time is it"),
        [PutInInput("what time is it")], {"countdown_until": None}, config=REVIEW),
    Row("a turn running: the transcript is left to review, not counted down", (TurnBusy(True), *TALKED),
        Heard(1, "and tomorrow"), [PutInInput("and tomorrow")], {"countdown_until": None}),
    Row("nothing recognised is said", TALKED, Heard(1, "  "), [Notice("heard_nothing")]),
    Row("a failed recognition says nothing more (the adapter said why)", TALKED, Heard(1, "", failed=True), []),
]

COUNTDOWN = [
    Row("a tick before the end shows what is left", (*TALKED, Heard(1, "hi")), Tick(),
        [ShowCountdown(0.5, 2.0)], {"countdown_until": 2.0}, clock_at=1.5),
    Row("at the end the input is sent", (*TALKED, Heard(1, "hi")), Tick(), [ShowCountdown(None), SendInput()],
        {"countdown_until": None, "busy": True}, clock_at=2.0),
    Row("a key or click in the input stops it; the text stays", (*TALKED, Heard(1, "hi")), InputTouched(),
        [ShowCountdown(None)], {"countdown_until": None}, clock_at=1.0),
    Row("Esc stops it too", (*TALKED, Heard(1, "hi")), Cancel(), [ShowCountdown(None)],
        {"countdown_until": None}),
    Row("talking again stops it and records", (*TALKED, Heard(1, "hi")), Press(),
        [ShowCountdown(None), StartCapture("push")], {"countdown_until": None, "capture": "push"}),
    Row("a tick with no countdown does nothing", (), Tick(), []),
    Row("a touch with no countdown does nothing", (), InputTouched(), []),
]

HANDS_FREE = [
    Row("hands-free listens for an utterance", (), HandsFree(True), [StartCapture("utterance", HANDS_FREE_TIMINGS)],
        {"capture": "utterance", "hands_free": True, "button": "listening"}),
    Row("hands-free off closes the microphone", (HandsFree(True),), HandsFree(False), [StopCapture()],
        {"capture": None, "hands_free": False}),
    Row("hands-free does not listen while a turn runs (no barge-in)", (TurnBusy(True),), HandsFree(True), [],
        {"capture": None}),
    Row("a turn starting closes it", (HandsFree(True),), TurnBusy(True), [StopCapture()], {"capture": None}),
    Row("the turn ending opens it again", (HandsFree(True), TurnBusy(True)), TurnBusy(False),
        [StartCapture("utterance", HANDS_FREE_TIMINGS)], {"capture": "utterance"}),
    Row("speech starting in it is noted", (HandsFree(True),), SpeechStart(), [], {"speaking": True}),
    Row("the end of the utterance recognises it", (HandsFree(True), SpeechStart()), SpeechEnd(PCM),
        [StopCapture(), Recognise(1, PCM, "dictation", "utterance")],
        {"capture": None, "speaking": False, "recognising": "utterance"}),
    Row("an utterance heard is sent, shown as the user's message", (HandsFree(True), SpeechStart(), SpeechEnd(PCM)),
        Heard(1, "what time is it"), [PutInInput("what time is it"), SendInput()],
        {"busy": True, "capture": None}),
    Row("a filler is not sent; listening goes on", (HandsFree(True), SpeechStart(), SpeechEnd(PCM)),
        Heard(1, "Um."), [StartCapture("utterance", HANDS_FREE_TIMINGS)], {"busy": False}),
    Row("a cough written as a note is not sent", (HandsFree(True), SpeechStart(), SpeechEnd(PCM)),
        Heard(1, "(coughs)"), [StartCapture("utterance", HANDS_FREE_TIMINGS)]),
    Row("push-to-talk in hands-free takes the microphone", (HandsFree(True),), Press(),
        [StopCapture(), StartCapture("push")], {"capture": "push"}),
    Row("a start timeout in hands-free listens on", (HandsFree(True),), NoSpeech(),
        [StopCapture(), StartCapture("utterance", HANDS_FREE_TIMINGS)]),
    Row("playback is noted", (), Playback(True), [], {"playing": True}),
]

BARGE_IN = [
    Row("with barge-in, a turn running listens for speech over it", (HandsFree(True),), TurnBusy(True),
        [StopCapture(), StartCapture("barge", BARGE_TIMINGS)], {"capture": "barge"}, config=BARGE),
    Row("speech onset interrupts at once and keeps recording", (HandsFree(True), TurnBusy(True)), SpeechStart(),
        [InterruptTurn()], {"capture": "barge", "speaking": True}, config=BARGE),
    Row("the interrupted turn ending does not cut the utterance", (HandsFree(True), TurnBusy(True), SpeechStart()),
        TurnBusy(False), [], {"capture": "barge", "speaking": True}, config=BARGE),
    Row("the whole utterance is recognised", (HandsFree(True), TurnBusy(True), SpeechStart()), SpeechEnd(PCM),
        [StopCapture(), Recognise(1, PCM, "dictation", "barge")], {"recognising": "barge"}, config=BARGE),
    Row("words wait for the interrupted turn to end", BARGED, Heard(1, "what is the weather in Paris"),
        [StartCapture("barge", BARGE_TIMINGS)], {"held": "what is the weather in Paris"}, config=BARGE),
    Row("then they are sent", (*BARGED, Heard(1, "what is the weather in Paris")), TurnBusy(False),
        [PutInInput("what is the weather in Paris"), SendInput()], {"held": None, "busy": True}, config=BARGE),
    Row("words after the turn ended are sent at once", (*BARGED, TurnBusy(False)), Heard(1, "and in Berlin"),
        [PutInInput("and in Berlin"), SendInput(), StartCapture("barge", BARGE_TIMINGS)], {"busy": True},
        config=BARGE),
    Row("a request to stop sends nothing", (*BARGED, TurnBusy(False)), Heard(1, "Wait, stop talking please."),
        [StartCapture("utterance", HANDS_FREE_TIMINGS)], {"busy": False, "held": None}, config=BARGE),
    Row("a filler sends nothing and says so", (*BARGED, TurnBusy(False)), Heard(1, "Um..."),
        [Notice("barge_unclear"), StartCapture("utterance", HANDS_FREE_TIMINGS)], {"held": None}, config=BARGE),
    Row("a cough sends nothing and says so", (*BARGED, TurnBusy(False)), Heard(1, "[cough]"),
        [Notice("barge_unclear"), StartCapture("utterance", HANDS_FREE_TIMINGS)], config=BARGE),
    Row("one word is below the minimum", (*BARGED, TurnBusy(False)), Heard(1, "Weather?"),
        [Notice("barge_unclear"), StartCapture("utterance", HANDS_FREE_TIMINGS)], config=BARGE),
    Row("the minimum is a setting", (*BARGED, TurnBusy(False)), Heard(1, "Weather?"),
        [PutInInput("Weather?"), SendInput(), StartCapture("barge", BARGE_TIMINGS)],
        config=VoiceConfig(barge_in=True, barge_in_min_words=1)),
    Row("nothing recognised sends nothing and says so", (*BARGED, TurnBusy(False)), Heard(1, ""),
        [Notice("barge_unclear"), StartCapture("utterance", HANDS_FREE_TIMINGS)], config=BARGE),
    Row("changed timings reopen the capture", (HandsFree(True), TurnBusy(True)),
        Configure(VoiceConfig(barge_in=True, barge_in_ms=240)),
        [StopCapture(), StartCapture("barge", UtteranceTimings(min_speech_ms=240))], config=BARGE),
    Row("barge-in switched off closes it", (HandsFree(True), TurnBusy(True)), Configure(VoiceConfig()),
        [StopCapture()], {"capture": None}, config=BARGE),
]

DEVICES = [
    Row("a microphone that cannot open says so and is unavailable", (HandsFree(True),),
        MicFailed("no microphone found"), [Notice("mic_unavailable", "no microphone found")],
        {"reason": "no microphone found", "button": "unavailable", "hands_free": False, "capture": None}),
    Row("unavailable: push-to-talk does nothing", (MicFailed("no microphone found"),), Press(), []),
    Row("unavailable: hands-free cannot start", (MicFailed("no microphone found"),), HandsFree(True), [],
        {"hands_free": False}),
    Row("lost while talking: what was recorded is kept and said so", (Press(),), DeviceLost("unplugged", PCM),
        [Notice("mic_lost", "unplugged", kept=True), Recognise(1, PCM, "dictation", "kept")],
        {"reason": "unplugged", "capture": None, "recognising": "kept"}),
    Row("what was kept goes to the input, not sent", (Press(), DeviceLost("unplugged", PCM)), Heard(1, "remind me"),
        [PutInInput("remind me")], {"busy": False}),
    Row("lost mid-utterance in hands-free: kept too", (HandsFree(True), SpeechStart()), DeviceLost("gone", PCM),
        [Notice("mic_lost", "gone", kept=True), Recognise(1, PCM, "dictation", "kept")], {"hands_free": False}),
    Row("lost while only listening: nothing to keep", (HandsFree(True),), DeviceLost("gone"),
        [Notice("mic_lost", "gone", kept=False)], {"hands_free": False, "capture": None}),
    Row("a microphone back makes it available", (DeviceLost("gone"),), DeviceBack(), [],
        {"reason": None, "button": "idle"}),
    Row("no recogniser: unavailable, the capture closed", (HandsFree(True),), EngineReason("no engine"),
        [StopCapture()], {"reason": "no engine", "hands_free": False}),
    Row("a recogniser again: available", (EngineReason("no engine"),), EngineReason(None), [], {"reason": None}),
    Row("the engine's reason does not lift a failed microphone", (MicFailed("broken"),), EngineReason(None), [],
        {"reason": "broken"}),
    Row("closing releases everything", (HandsFree(True), SpeechStart()), Close(), [StopCapture()],
        {"capture": None, "hands_free": False}),
    Row("closing drops a recognition and a countdown", (*TALKED, Heard(1, "x"), Press(), Release(PCM)), Close(),
        [DropRecognition()], {"recognising": None}),
]


@pytest.mark.parametrize("row", PUSH_TO_TALK, ids=lambda r: r.name)
def test_push_to_talk(row: Row) -> None:
    check(row)


@pytest.mark.parametrize("row", COUNTDOWN, ids=lambda r: r.name)
def test_preview_countdown(row: Row) -> None:
    check(row)


@pytest.mark.parametrize("row", HANDS_FREE, ids=lambda r: r.name)
def test_hands_free(row: Row) -> None:
    check(row)


@pytest.mark.parametrize("row", BARGE_IN, ids=lambda r: r.name)
def test_barge_in(row: Row) -> None:
    check(row)


@pytest.mark.parametrize("row", DEVICES, ids=lambda r: r.name)
def test_devices(row: Row) -> None:
    check(row)


def test_esc_is_only_taken_when_there_is_something_to_cancel() -> None:
    session = VoiceSession(FakeClock().now)
    assert not session.cancellable
    session.handle(Press())
    assert session.cancellable


def test_the_countdown_counts_on_the_injected_clock() -> None:
    clock = FakeClock()
    session = VoiceSession(clock.now, VoiceConfig(countdown_s=3.0))
    for event in (*TALKED, Heard(1, "hi")):
        session.handle(event)
    shown = []
    for _ in range(4):
        clock.advance(1.0)
        shown.extend(session.handle(Tick()))
    assert shown == [ShowCountdown(2.0, 3.0), ShowCountdown(1.0, 3.0), ShowCountdown(None), SendInput()]
