"""The voice interaction as a state machine: push-to-talk, hands-free,
barge-in, approval by voice and the preview countdown, decided in one
place, with no Qt, no audio and no tasks — the adapter feeds events and
performs the actions :meth:`VoiceSession.handle` returns.

The rules that matter (each one a row in ``tests/core/test_voice_session*``):

- While an approval waits, speech is an answer, never a barge-in
  (``voice_approval.py``).
- Barge-in fires on speech onset (``InterruptTurn``), and the capture goes
  on: the whole utterance, from just before the onset, is recognised.
  Words become the next turn once the interrupted one has ended; a request
  to stop is only that; anything else (empty, a filler, a cough) sends
  nothing and says it was not understood — the interrupted reply stays
  stopped, since what it would have said next was never synthesised.
- A push-to-talk transcript goes to the input: sent at once, after a
  countdown that any key or click in the input stops, or left to review.
  Hands-free speech is sent (it shows as the user's message).
- Nothing listens while something is recognised (one utterance at a time;
  what is said meanwhile would be cut in two).

The state and what the microphone should be open for are in
``voice_base.py``; the vocabulary in ``voice_session.py``.
"""

from __future__ import annotations

from dataclasses import replace

from desktop_agent.core.voice_approval import ApprovalRules
from desktop_agent.core.voice_session import (
    Action,
    Cancel,
    Close,
    Configure,
    DeviceBack,
    DeviceLost,
    DropRecognition,
    EngineReason,
    Event,
    HandsFree,
    Heard,
    InputTouched,
    InterruptTurn,
    MicFailed,
    NoSpeech,
    Notice,
    Playback,
    Press,
    Purpose,
    PutInInput,
    Release,
    SendInput,
    ShowCountdown,
    ShowHint,
    SpeechEnd,
    SpeechStart,
    StartCapture,
    StopCapture,
    StopQuestion,
    Tick,
    TurnBusy,
)
from desktop_agent.core.voice_words import judge


class VoiceSession(ApprovalRules):
    """The whole interaction: :meth:`handle` an event, perform the actions."""

    @property
    def cancellable(self) -> bool:
        """Esc has something to cancel here (else the key is someone else's)."""
        s = self._s
        return s.capture == "push" or s.recognising is not None or s.countdown_until is not None

    def handle(self, event: Event) -> list[Action]:
        self._out = []
        getattr(self, f"_on_{event.type}")(event)
        out, self._out = self._out, []
        return out

    # ------------------------------------------------------------ push-to-talk

    def _on_press(self, _event: Press) -> None:
        s = self._s
        if s.reason is not None or s.recognising is not None or s.capture == "push":
            return
        self._stop_countdown()
        if s.approval is not None and s.approval.asking:
            self._do(StopQuestion())
            self._set(approval=replace(s.approval, asking=False))
        if s.capture is not None:
            self._do(StopCapture())
        self._do(StartCapture("push"))
        self._set(capture="push", speaking=False)

    def _on_release(self, event: Release) -> None:
        if self._s.capture != "push":
            return
        self._do(StopCapture())
        self._set(capture=None)
        self._recognise(event.pcm, "answer" if self._s.approval is not None else "dictation")

    def _on_cancel(self, _event: Cancel) -> None:
        s = self._s
        if s.capture == "push":
            self._close_capture()
        elif s.recognising is not None:
            self._do(DropRecognition())
            self._set(recognising=None)
        else:
            self._stop_countdown()
            return
        self._settle()

    # ------------------------------------------------------------ the situation

    def _on_hands_free(self, event: HandsFree) -> None:
        on = event.on and self._s.reason is None
        self._set(hands_free=on)
        a = self._s.approval
        if a is not None and on and not a.listening and a.tries < self._s.config.answer_tries:
            self._set(approval=replace(a, listening=True))
            self._ask(again=a.tries > 0)
        elif a is not None and not on and a.listening:
            if a.asking:
                self._do(StopQuestion())
            self._set(approval=replace(a, listening=False, asking=False, hinted=False))
            self._do(ShowHint(None))
        self._settle()

    def _on_turn_busy(self, event: TurnBusy) -> None:
        self._set(busy=event.busy)
        held = self._s.held
        if not event.busy and held is not None:
            self._set(held=None)
            self._send(held)
        self._settle()

    def _on_playback(self, event: Playback) -> None:
        self._set(playing=event.playing)

    def _on_configure(self, event: Configure) -> None:
        self._set(config=event.config)
        if self._s.capture in ("barge", "utterance", "answer") and not self._s.speaking:
            self._close_capture()  # reopened with the new timings
        self._settle()

    def _on_engine_reason(self, event: EngineReason) -> None:
        self._engine_reason = event.reason
        self._update_reason()
        self._settle()

    def _on_mic_failed(self, event: MicFailed) -> None:
        self._set(capture=None, speaking=False)  # it never opened
        self._mic_reason = event.reason
        self._update_reason()
        self._do(Notice("mic_unavailable", event.reason))

    def _on_device_lost(self, event: DeviceLost) -> None:
        s = self._s
        kept = bool(event.pcm) and (s.capture == "push" or s.speaking)
        purpose: Purpose = "answer" if s.capture in ("push", "answer") and s.approval is not None else "kept"
        self._set(capture=None, speaking=False)  # the device is gone: nothing to stop
        self._mic_reason = event.reason
        self._update_reason()
        if event.announce:
            self._do(Notice("mic_lost", event.reason, kept=kept))
        if kept and self._s.recognising is None:
            self._recognise(event.pcm, purpose)

    def _on_device_back(self, _event: DeviceBack) -> None:
        self._mic_reason = None
        self._update_reason()
        self._settle()

    def _on_close(self, _event: Close) -> None:
        s = self._s
        self._close_capture()
        if s.recognising is not None:
            self._do(DropRecognition())
        if s.approval is not None and s.approval.asking:
            self._do(StopQuestion())
        self._stop_countdown()
        self._set(recognising=None, hands_free=False, approval=None, held=None)

    # ------------------------------------------------------------ what the VAD hears

    def _on_speech_start(self, _event: SpeechStart) -> None:
        s = self._s
        if s.capture in (None, "push") or s.speaking:
            return
        self._set(speaking=True)
        if s.capture == "barge":
            self._do(InterruptTurn())
        elif s.capture == "answer" and s.approval is not None and s.approval.asking:
            self._do(StopQuestion())
            self._set(approval=replace(s.approval, asking=False))

    def _on_speech_end(self, event: SpeechEnd) -> None:
        capture = self._s.capture
        if capture in (None, "push"):
            return
        self._close_capture()
        purpose: Purpose = "barge" if capture == "barge" else "answer" if capture == "answer" else "utterance"
        self._recognise(event.pcm, purpose)

    def _on_no_speech(self, _event: NoSpeech) -> None:
        capture = self._s.capture
        if capture in (None, "push"):
            return
        self._close_capture()
        if capture == "answer":
            self._unclear()
        self._settle()

    # ------------------------------------------------------------ what was recognised

    def _on_heard(self, event: Heard) -> None:
        purpose = self._s.recognising
        if purpose is None or event.ident != self._ident:
            return  # dropped (Esc, a click) or superseded
        self._set(recognising=None)
        text = event.text.strip()
        if purpose == "answer":
            self._answered(text)
        elif purpose == "dictation":
            self._dictated(text, event.failed)
        elif purpose == "kept":
            if text:
                self._do(PutInInput(text))
        elif purpose == "barge":
            verdict = judge(text, self._s.config.barge_in_min_words)
            if verdict == "turn":
                if self._s.busy:
                    self._set(held=text)  # sent once the interrupted turn has ended
                else:
                    self._send(text)
            elif verdict == "noise" and not event.failed:
                self._do(Notice("barge_unclear"))
        elif text and judge(text) == "turn":  # hands-free
            self._send(text)
        self._settle()

    def _dictated(self, text: str, failed: bool) -> None:
        if not text:
            if not failed:
                self._do(Notice("heard_nothing"))
            return
        mode = self._s.config.send
        self._do(PutInInput(text))
        if mode == "at_once":
            self._do(SendInput())
            self._set(busy=True)
        elif mode == "countdown" and not self._s.busy:
            total = self._s.config.countdown_s
            self._set(countdown_until=self._clock() + total)
            self._do(ShowCountdown(total, total))

    # ------------------------------------------------------------ the countdown

    def _on_tick(self, _event: Tick) -> None:
        until = self._s.countdown_until
        if until is None:
            return
        remaining = until - self._clock()
        if remaining > 0:
            self._do(ShowCountdown(remaining, self._s.config.countdown_s))
            return
        self._set(countdown_until=None)
        self._do(ShowCountdown(None), SendInput())
        self._set(busy=True)
        self._settle()

    def _on_input_touched(self, _event: InputTouched) -> None:
        self._stop_countdown()

