"""Approval by voice: while a card waits, speech is an answer, never a
barge-in. Hands-free asks (shown, and said when a voice is on) and listens;
push-to-talk answers too. ``parse_answer`` decides: a clear yes approves, a
clear no rejects, anything else (silence included) asks again, until
``answer_tries`` unclear answers leave the card to the mouse. A click
settles it as well; the hint line goes either way."""

from __future__ import annotations

from dataclasses import replace

from desktop_agent.core.voice_answer import parse_answer
from desktop_agent.core.voice_base import SessionBase
from desktop_agent.core.voice_session import (
    AnswerApproval,
    ApprovalPending,
    ApprovalSettled,
    ApprovalWait,
    AskApproval,
    DropRecognition,
    Notice,
    QuestionSaid,
    ShowHint,
    StopQuestion,
)


class ApprovalRules(SessionBase):
    def _on_approval_pending(self, event: ApprovalPending) -> None:
        s = self._s
        listening = s.hands_free and s.reason is None
        self._set(approval=ApprovalWait(event.tool_call_id, event.tool, listening=listening))
        if s.capture in ("barge", "utterance") and not s.speaking:
            self._close_capture()  # whatever it listened for, speech is now an answer
        if listening:
            self._ask(again=False)
        self._settle()

    def _ask(self, *, again: bool) -> None:
        a = self._s.approval
        assert a is not None
        speak = self._s.config.speaks
        self._do(AskApproval(a.tool, again, speak), ShowHint(a.tool, again))
        self._set(approval=replace(a, asking=speak, hinted=True))

    def _on_question_said(self, _event: QuestionSaid) -> None:
        a = self._s.approval
        if a is not None and a.asking:
            self._set(approval=replace(a, asking=False))
            self._settle()

    def _on_approval_settled(self, event: ApprovalSettled) -> None:
        a = self._s.approval
        if a is None or a.tool_call_id != event.tool_call_id:
            return
        self._set(approval=None)
        if a.asking:
            self._do(StopQuestion())
        if a.hinted:
            self._do(ShowHint(None))
        if self._s.capture == "answer":
            self._close_capture()
        if self._s.recognising == "answer":
            self._do(DropRecognition())
            self._set(recognising=None)
        self._settle()

    def _answered(self, text: str) -> None:
        a = self._s.approval
        if a is None:
            return  # clicked meanwhile
        answer = parse_answer(text) if text else None
        if answer is None:
            self._unclear()
            return
        self._set(approval=None)
        if a.hinted:
            self._do(ShowHint(None))
        self._do(AnswerApproval(a.tool_call_id, answer == "yes"))

    def _unclear(self) -> None:
        a = self._s.approval
        if a is None:
            return
        a = replace(a, tries=a.tries + 1)
        self._set(approval=a)
        if a.tries < self._s.config.answer_tries:
            self._ask(again=True)
            return
        self._set(approval=replace(a, listening=False, asking=False, hinted=False))
        self._do(ShowHint(None), Notice("answer_on_card"))

