"""The voice session's state and the helpers its rules share: what the
microphone should be open for now (:meth:`SessionBase._settle`), and the
small steps every rule takes. The rules themselves are in
``voice_machine.py`` and ``voice_approval.py``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from desktop_agent.core.utterance import UtteranceTimings
from desktop_agent.core.voice_session import (
    ANSWER_TIMINGS,
    HANDS_FREE_TIMINGS,
    Action,
    Listen,
    Purpose,
    PutInInput,
    Recognise,
    SendInput,
    ShowCountdown,
    StartCapture,
    StopCapture,
    VoiceConfig,
    VoiceState,
)


class SessionBase:
    """``clock``: seconds, monotonic (the countdown's deadline)."""

    def __init__(
        self,
        clock: Callable[[], float],
        config: VoiceConfig = VoiceConfig(),
        *,
        reason: str | None = None,
        mic_reason: str | None = None,
    ) -> None:
        """``reason``: why no recogniser can be used; ``mic_reason``: why no
        microphone can (a recogniser coming does not lift that one)."""
        self._clock = clock
        self._s = VoiceState(config=config, reason=mic_reason or reason)
        self._mic_reason: str | None = mic_reason
        self._engine_reason: str | None = reason
        self._ident = 0
        self._out: list[Action] = []

    @property
    def state(self) -> VoiceState:
        return self._s

    def _do(self, *actions: Action) -> None:
        self._out.extend(actions)

    def _set(self, **changes: object) -> None:
        self._s = replace(self._s, **changes)  # type: ignore[arg-type]

    def _wanted(self) -> Listen | None:
        """What the microphone should be open for when nothing is in progress."""
        s = self._s
        if s.reason is not None:
            return None
        if s.approval is not None:
            a = s.approval
            return "answer" if a.listening and (not a.asking or s.config.echo_gated) else None
        if s.hands_free and not s.busy:
            return "utterance"
        if s.hands_free and s.busy and s.config.barge_in:
            return "barge"
        return None

    def _settle(self) -> None:
        """Open, close or switch the capture as the situation asks, unless
        something is under way (push-to-talk, an utterance being heard, a
        recognition)."""
        s = self._s
        if s.capture == "push" or s.speaking or s.recognising is not None:
            return
        wanted = self._wanted()
        if wanted == s.capture:
            return
        if s.capture is not None:
            self._do(StopCapture())
        if wanted is None:
            self._set(capture=None, speaking=False)
            return
        self._do(StartCapture(wanted, self._timings(wanted)))
        self._set(capture=wanted, speaking=False)

    def _timings(self, listen: Listen) -> UtteranceTimings | None:
        if listen == "utterance":
            return HANDS_FREE_TIMINGS
        if listen == "answer":
            return ANSWER_TIMINGS
        if listen == "barge":
            return UtteranceTimings(min_speech_ms=self._s.config.barge_in_ms)
        return None

    def _close_capture(self) -> None:
        if self._s.capture is not None:
            self._do(StopCapture())
        self._set(capture=None, speaking=False)

    def _recognise(self, pcm: bytes, purpose: Purpose) -> None:
        self._ident += 1
        self._do(Recognise(self._ident, pcm, "answer" if purpose == "answer" else "dictation", purpose))
        self._set(recognising=purpose)

    def _stop_countdown(self) -> None:
        if self._s.countdown_until is not None:
            self._set(countdown_until=None)
            self._do(ShowCountdown(None))

    def _send(self, text: str) -> None:
        """Into the input and sent; a turn is expected to start (the adapter
        says otherwise if the window refused it)."""
        self._do(PutInInput(text), SendInput())
        self._set(busy=True)

    def _update_reason(self) -> None:
        reason = self._mic_reason or self._engine_reason
        if reason == self._s.reason:
            return
        self._set(reason=reason)
        if reason is not None:
            self._close_capture()
            approval = self._s.approval
            self._set(hands_free=False, approval=replace(approval, listening=False) if approval else None)

