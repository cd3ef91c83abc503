"""VoiceSession and approvals, row by row. The defect behind them: a spoken
"yes" a second after a card appeared, over a barge-in capture, interrupted
the turn (the audit log said ``interrupted``), and so did a "no". While a
card waits, speech is an answer."""

from __future__ import annotations

import pytest

from desktop_agent.core.utterance import UtteranceTimings
from desktop_agent.core.voice_session import (
    ANSWER_TIMINGS,
    HANDS_FREE_TIMINGS,
    Action,
    AnswerApproval,
    ApprovalPending,
    ApprovalSettled,
    ApprovalWait,
    AskApproval,
    DropRecognition,
    HandsFree,
    Heard,
    NoSpeech,
    Notice,
    Press,
    QuestionSaid,
    Recognise,
    Release,
    ShowHint,
    SpeechEnd,
    SpeechStart,
    StartCapture,
    StopCapture,
    StopQuestion,
    TurnBusy,
    VoiceConfig,
)
from desktop_agent.testing.voice_rows import PCM, Row, check

BARGE = VoiceConfig(barge_in=True)
SPEAKS = VoiceConfig(barge_in=True, speaks=True)
GATED = VoiceConfig(barge_in=True, speaks=True, echo_gated=True)
BARGE_TIMINGS = UtteranceTimings(min_speech_ms=VoiceConfig().barge_in_ms)
CARD = ApprovalPending("call_1", "run_command")
WAITING = (HandsFree(True), TurnBusy(True), CARD)
"""Hands-free with barge-in, a turn running, a card waiting (no voice)."""
ANSWERED = (*WAITING, SpeechStart(), SpeechEnd(PCM))
"""An answer was spoken: recognition 1 (answer) runs."""
ASK: list[Action] = [AskApproval("run_command", False, False), ShowHint("run_command", False)]
AGAIN: list[Action] = [AskApproval("run_command", True, False), ShowHint("run_command", True)]
LISTEN = StartCapture("answer", ANSWER_TIMINGS)

CARDS = [
    Row("a card closes the barge-in capture, asks, and listens for the answer", (HandsFree(True), TurnBusy(True)),
        CARD, [StopCapture(), *ASK, LISTEN],
        {"capture": "answer", "approval": ApprovalWait("call_1", "run_command", listening=True, hinted=True)},
        config=BARGE),
    Row("speech while a card waits is never a barge-in", WAITING, SpeechStart(), [],
        {"capture": "answer", "speaking": True}, config=BARGE),
    Row("the answer is heard by the answer recogniser", (*WAITING, SpeechStart()), SpeechEnd(PCM),
        [StopCapture(), Recognise(1, PCM, "answer", "answer")], {"recognising": "answer"}, config=BARGE),
    Row("a clear yes approves; the hint goes", ANSWERED, Heard(1, "Yes."),
        [ShowHint(None), AnswerApproval("call_1", True), StartCapture("barge", BARGE_TIMINGS)],
        {"approval": None}, config=BARGE),
    Row("a clear no rejects; the hint goes", ANSWERED, Heard(1, "No, don't."),
        [ShowHint(None), AnswerApproval("call_1", False), StartCapture("barge", BARGE_TIMINGS)],
        {"approval": None}, config=BARGE),
    Row("Chinese answers are read too", ANSWERED, Heard(1, "可以。"),
        [ShowHint(None), AnswerApproval("call_1", True), StartCapture("barge", BARGE_TIMINGS)], config=BARGE),
    Row("anything else asks again and listens again", ANSWERED, Heard(1, "maybe later"), [*AGAIN, LISTEN],
        {"approval": ApprovalWait("call_1", "run_command", tries=1, listening=True, hinted=True)}, config=BARGE),
    Row("yes and no together is unclear", ANSWERED, Heard(1, "yes no"), [*AGAIN, LISTEN], config=BARGE),
    Row("a failed recognition asks again", ANSWERED, Heard(1, "", failed=True), [*AGAIN, LISTEN], config=BARGE),
    Row("a second unclear answer leaves the card to the mouse",
        (*ANSWERED, Heard(1, "maybe"), SpeechStart(), SpeechEnd(PCM)), Heard(2, "perhaps"),
        [ShowHint(None), Notice("answer_on_card")],
        {"capture": None, "approval": ApprovalWait("call_1", "run_command", tries=2)}, config=BARGE),
    Row("silence until the timeout counts as unclear", WAITING, NoSpeech(), [StopCapture(), *AGAIN, LISTEN],
        config=BARGE),
    Row("after two unclear answers the card waits for a click: no capture, no barge-in",
        (*WAITING, NoSpeech(), NoSpeech()), SpeechStart(), [], {"capture": None}, config=BARGE),
    Row("a click settles it: the hint goes, the capture closes", WAITING, ApprovalSettled("call_1"),
        [ShowHint(None), StopCapture(), StartCapture("barge", BARGE_TIMINGS)], {"approval": None}, config=BARGE),
    Row("a click while the answer is recognised drops it", ANSWERED, ApprovalSettled("call_1"),
        [ShowHint(None), DropRecognition(), StartCapture("barge", BARGE_TIMINGS)], {"recognising": None},
        config=BARGE),
    Row("another card settling changes nothing", WAITING, ApprovalSettled("call_9"), [], {"capture": "answer"},
        config=BARGE),
    Row("the answer of a card clicked meanwhile is not used", (*ANSWERED, ApprovalSettled("call_1")),
        Heard(1, "yes"), []),
    Row("the card settling after a spoken answer changes nothing", (*ANSWERED, Heard(1, "yes")),
        ApprovalSettled("call_1"), [], config=BARGE),
]

SPOKEN_QUESTION = [
    Row("with a voice, the question is said before listening", (HandsFree(True), TurnBusy(True)), CARD,
        [StopCapture(), AskApproval("run_command", False, True), ShowHint("run_command", False)],
        {"capture": None}, config=SPEAKS),
    Row("once it was said, the answer is listened for", (HandsFree(True), TurnBusy(True), CARD), QuestionSaid(),
        [LISTEN], {"capture": "answer"}, config=SPEAKS),
    Row("with our voice gated, it listens while the question is said", (HandsFree(True), TurnBusy(True)), CARD,
        [StopCapture(), AskApproval("run_command", False, True), ShowHint("run_command", False), LISTEN],
        {"capture": "answer"}, config=GATED),
    Row("an answer over the question stops the question", (HandsFree(True), TurnBusy(True), CARD), SpeechStart(),
        [StopQuestion()], {"speaking": True}, config=GATED),
    Row("a click while the question is said stops it", (HandsFree(True), TurnBusy(True), CARD),
        ApprovalSettled("call_1"), [StopQuestion(), ShowHint(None), StartCapture("barge", BARGE_TIMINGS)],
        config=SPEAKS),
    Row("push-to-talk over the question stops it", (HandsFree(True), TurnBusy(True), CARD), Press(),
        [StopQuestion(), StartCapture("push")], config=SPEAKS),
]

PUSH_TO_TALK = [
    Row("without hands-free a card is not asked about", (TurnBusy(True),), CARD, [],
        {"approval": ApprovalWait("call_1", "run_command")}),
    Row("push-to-talk while a card waits is an answer", (TurnBusy(True), CARD, Press()), Release(PCM),
        [StopCapture(), Recognise(1, PCM, "answer", "answer")]),
    Row("a pushed yes approves", (TurnBusy(True), CARD, Press(), Release(PCM)), Heard(1, "yes"),
        [AnswerApproval("call_1", True)]),
    Row("a pushed unclear answer asks again (shown)", (TurnBusy(True), CARD, Press(), Release(PCM)),
        Heard(1, "what"), AGAIN),
    Row("hands-free switched on while a card waits asks and listens", (TurnBusy(True), CARD), HandsFree(True),
        [*ASK, LISTEN], {"capture": "answer"}),
    Row("hands-free switched off stops listening for the answer", (HandsFree(True), TurnBusy(True), CARD),
        HandsFree(False), [ShowHint(None), StopCapture()], {"capture": None}),
    Row("hands-free, not busy: the card's answer comes first", (HandsFree(True),), CARD,
        [StopCapture(), *ASK, LISTEN], {"capture": "answer"}),
    Row("after the answer hands-free listens again", (HandsFree(True), CARD, SpeechStart(), SpeechEnd(PCM)),
        Heard(1, "ok"), [ShowHint(None), AnswerApproval("call_1", True), StartCapture("utterance", HANDS_FREE_TIMINGS)]),
]


@pytest.mark.parametrize("row", CARDS, ids=lambda r: r.name)
def test_approval_by_voice(row: Row) -> None:
    check(row)


@pytest.mark.parametrize("row", SPOKEN_QUESTION, ids=lambda r: r.name)
def test_the_spoken_question(row: Row) -> None:
    check(row)


@pytest.mark.parametrize("row", PUSH_TO_TALK, ids=lambda r: r.name)
def test_answers_by_push_to_talk(row: Row) -> None:
    check(row)
