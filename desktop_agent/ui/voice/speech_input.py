"""Speech input in the window: the thin adapter between
:class:`~desktop_agent.core.voice_machine.VoiceSession` (which decides) and
the microphone, the VAD, the recognisers and the window (which act).

It feeds the session what happens — a press, frames cut into utterances
by ``core.utterance`` behind the echo gate (``core.voice_echo``), a
recognition's text, the turn, the cards, the clock — and performs what the
session returns: it opens and closes the microphone, runs the recognisers
(a task each), says the approval question, and tells the window the rest
through its signals. Nothing here decides what an utterance is for. The
microphone's side (captures, utterances, the echo gate) is
:class:`~desktop_agent.ui.voice.mic_capture.MicCapture`.

Signals:
    state_changed(state: MicState, reason: str)
                      the mic button's state (``idle``, ``listening``,
                      ``recognising``, ``unavailable`` with the reason)
    put_text(text: str)   add this to the input box
    send_input()          send what the input holds (as Enter)
    countdown(remaining: float, total: float)
                      the preview countdown (``remaining`` < 0: it is over)
    hint(text: str)       the line saying a spoken answer is awaited ("" hides it)
    notice(level: NoticeLevel, text: str)
                      a line for the conversation
    barge_in()        the user spoke over the assistant: stop it now
    approval_answer(tool_call_id: str, approved: bool)
                      a clear spoken yes or no
    heard_instead(engine: str, failure: ModelDownloadError)
                      an utterance heard by a stand-in, the chosen engine's
                      model having failed to download
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Literal

from PySide6.QtCore import QObject, QTimer, Signal

from desktop_agent.core import voice_session as vs
from desktop_agent.core.ports import STTError
from desktop_agent.core.voice_echo import EchoGate
from desktop_agent.core.voice_machine import VoiceSession
from desktop_agent.ui.chat.turn_events import NoticeLevel
from desktop_agent.ui.voice.hearing import hear, notice_line
from desktop_agent.ui.voice.mic_button import MicState, reason_text
from desktop_agent.ui.voice.mic_capture import MicCapture

if TYPE_CHECKING:
    from desktop_agent.core.ports import AudioInput, SpeechRecognizer
    from desktop_agent.core.utterance import FrameClassifier
    from desktop_agent.core.voice_output import OutputTap
    from desktop_agent.texts import Texts
    from desktop_agent.voice.echo_subtraction import EchoSubtractor

log = logging.getLogger(__name__)

Mode = Literal["off", "talk", "utterance", "barge", "approval"]
_MODES: dict[str | None, Mode] = {None: "off", "push": "talk", "utterance": "utterance", "barge": "barge",
                                  "answer": "approval"}
PROMPT_TIMEOUT_S = 15.0
"""The longest the spoken approval question may take before listening anyway."""
TICK_MS = 100
_HEARS_ANSWERS = ("whisper", "sensevoice")
"""Engines that hear a yes or a no (是, 不) as well as anything: they hear
approval answers too. The others leave them to the answers recogniser
(pocketsphinx's yes/no grammar)."""


class VoiceInput(QObject):
    state_changed = Signal(MicState, str)
    put_text = Signal(str)
    send_input = Signal()
    countdown = Signal(float, float)
    hint = Signal(str)
    notice = Signal(NoticeLevel, str)
    barge_in = Signal()
    approval_answer = Signal(str, bool)
    heard_instead = Signal(str, object)

    def __init__(
        self,
        audio: AudioInput | None,
        recognizer: SpeechRecognizer | None,
        *,
        vad: Callable[[], FrameClassifier] | None = None,
        answer_recognizer: SpeechRecognizer | None = None,
        speak: Callable[[str], Awaitable[None]] | None = None,
        config: vs.VoiceConfig = vs.VoiceConfig(),
        unavailable: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        texts: Callable[[], Texts],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._texts = texts
        """The window's language now: its hints, notices, reasons and the spoken question."""
        self._audio = audio
        self._recognizer, self._answer_recognizer = recognizer, answer_recognizer
        self.speak = speak
        """Says the approval question aloud (returns when it was heard); None: it is only shown."""
        self.capture = MicCapture(audio, vad, clock, self._feed, lambda: self.mode == "talk")
        """The microphone, its utterances and the echo gate."""
        self._gated = False
        engine = unavailable or (self._texts().tr("mic_no_recognizer") if recognizer is None else None)
        self.session = VoiceSession(clock, replace(config, speaks=speak is not None), reason=engine,
                                    mic_reason=self._texts().tr("mic_none") if audio is None else None)
        self._shown: tuple[MicState, str] = (MicState(self.session.state.button), self.reason)
        self._queue: list[vs.Event] = []
        self._dispatching = False
        self._task: asyncio.Task[None] | None = None
        self._prompt: asyncio.Task[None] | None = None
        self._ticker = QTimer(self)
        self._ticker.setInterval(TICK_MS)
        self._ticker.timeout.connect(self.tick)
        self.stand_ins: list[SpeechRecognizer] = []
        """Recognisers that may hear an utterance when the chosen one's model
        cannot be downloaded (``heard_instead`` then says which)."""
        self.before_recognise: Callable[[], Awaitable[None]] | None = None
        """Awaited before an utterance is recognised (the first download's
        offer: the utterance waits for the user's answer)."""

    # ------------------------------------------------------------ state

    @property
    def recognizer(self) -> SpeechRecognizer | None:
        """The dictation recogniser in use."""
        return self._recognizer

    @property
    def answers(self) -> SpeechRecognizer | None:
        """What hears approval answers: the dictation engine when it is
        Whisper or SenseVoice, else the answers recogniser."""
        recognizer = self._recognizer
        if recognizer is not None and recognizer.name in _HEARS_ANSWERS:
            return recognizer
        return self._answer_recognizer or recognizer

    @property
    def gate(self) -> EchoGate | None:
        """Our own voice is not the user's (fed by :meth:`attach_output`)."""
        return self.capture.gate

    @property
    def echo(self) -> EchoSubtractor | None:
        """What we play, taken out of an utterance before it is recognised
        (fed by :meth:`attach_output`; None: no speaker attached)."""
        return self.capture.echo

    @property
    def state(self) -> str:
        return self.session.state.button

    @property
    def reason(self) -> str:
        return self.session.state.reason or ""

    @property
    def available(self) -> bool:
        return self.session.state.reason is None

    @property
    def hands_free(self) -> bool:
        return self.session.state.hands_free

    @property
    def mode(self) -> Mode:
        """What the microphone is open for (``talk``: push-to-talk)."""
        return _MODES[self.session.state.capture]

    @property
    def config(self) -> vs.VoiceConfig:
        return self.session.state.config

    # ------------------------------------------------------------ what happens

    def configure(self, config: vs.VoiceConfig) -> None:
        self._feed(vs.Configure(replace(config, speaks=self.speak is not None, echo_gated=self._gated)))

    def attach_output(self, tap: OutputTap) -> None:
        """Our speaker tells the echo gate what it plays (an answer can then
        be heard while the question is still said) and the echo subtractor
        (what it played is taken out of an utterance before it is recognised)."""
        if self.gate is not None:
            tap.listen(self.gate)
            self._gated = True
            self.configure(self.config)
        self.capture.attach_echo(tap)

    def set_recognizers(
        self, recognizer: SpeechRecognizer | None, answers: SpeechRecognizer | None, reason: str | None
    ) -> None:
        """Use other recognisers from now on (the Settings changed the engine);
        an utterance being recognised finishes with the old one. ``reason``:
        why there is none."""
        self._recognizer, self._answer_recognizer = recognizer, answers
        self._feed(vs.EngineReason(reason or (self._texts().tr("mic_no_recognizer") if recognizer is None else None)))

    def set_microphone(self, reason: str | None) -> None:
        """The device watcher (``ui/voice/device_glue.py``): no microphone now
        (``reason``; the watcher says so itself), or one again (None)."""
        if self._audio is None:
            return
        if reason is not None:
            self._feed(vs.DeviceLost(reason_text(self._texts(), reason), self.capture.kept(), announce=False))
        else:
            self._feed(vs.DeviceBack())

    def device_lost(self, reason: str) -> None:
        """The microphone went away while open: what it recorded is kept
        and recognised (into the input, not sent), and a line says so."""
        self._feed(vs.DeviceLost(reason, self.capture.kept()))

    def start_talk(self) -> bool:
        """Push-to-talk pressed; False when it cannot record now."""
        self._feed(vs.Press())
        return self.mode == "talk"

    def end_talk(self) -> None:
        if self.mode == "talk":
            self._feed(vs.Release(self.capture.recorded()))

    def cancel(self) -> bool:
        """Esc: drop what is recorded or recognised, or stop the countdown;
        False when there was nothing of the kind."""
        if not self.session.cancellable:
            return False
        self._feed(vs.Cancel())
        return True

    def set_hands_free(self, on: bool) -> None:
        self._feed(vs.HandsFree(on))

    def set_busy(self, busy: bool) -> None:
        """A turn runs (its reply being written or spoken) or is over."""
        self._feed(vs.TurnBusy(busy))

    def set_playing(self, playing: bool) -> None:
        self._feed(vs.Playback(playing))

    def ask_approval(self, tool_call_id: str, tool_name: str) -> bool:
        """A card waits; True when a spoken answer is listened for."""
        self._feed(vs.ApprovalPending(tool_call_id, tool_name))
        approval = self.session.state.approval
        return approval is not None and approval.listening

    def drop_approval(self, tool_call_id: str) -> None:
        """The approval was answered otherwise (a click, a key) or lost."""
        self._feed(vs.ApprovalSettled(tool_call_id))

    def input_touched(self) -> None:
        self._feed(vs.InputTouched())

    def tick(self) -> None:
        self._feed(vs.Tick())

    def close(self) -> None:
        """The window closed: release the microphone, stop everything."""
        self._feed(vs.Close())
        self._ticker.stop()

    def _feed(self, event: vs.Event) -> None:
        """Events that actions cause (a send starting a turn) wait their turn."""
        self._queue.append(event)
        if self._dispatching:
            return
        self._dispatching = True
        try:
            while self._queue:
                for action in self.session.handle(self._queue.pop(0)):
                    self._perform(action)
        finally:
            self._dispatching = False
        shown = (MicState(self.state), self.reason)
        if shown != self._shown:
            self._shown = shown
            self.state_changed.emit(*shown)

    # ------------------------------------------------------------ what is done

    def _perform(self, action: vs.Action) -> None:
        match action:
            case vs.StartCapture():
                self.capture.start(action, self._texts)
            case vs.StopCapture():
                self.capture.stop()
            case vs.Recognise():
                self._task = asyncio.ensure_future(self._recognise(action))
            case vs.DropRecognition():
                if self._task is not None:
                    self._task.cancel()
                self._task = None
            case vs.InterruptTurn():
                self.barge_in.emit()
            case vs.PutInInput():
                self.put_text.emit(action.text)
            case vs.SendInput():
                self.send_input.emit()
            case vs.ShowCountdown(remaining_s=None):
                self._ticker.stop()
                self.countdown.emit(-1.0, 0.0)
            case vs.ShowCountdown():
                self._ticker.start()
                self.countdown.emit(action.remaining_s, action.total_s)
            case vs.AskApproval():
                self._ask(action)
            case vs.StopQuestion():
                if self._prompt is not None:
                    self._prompt.cancel()
                self._prompt = None
            case vs.ShowHint():
                self.hint.emit(self._texts().tr("voice_hint_again" if action.again else "voice_hint", tool=action.tool)
                               if action.tool is not None else "")
            case vs.AnswerApproval():
                self.approval_answer.emit(action.tool_call_id, action.approved)
            case vs.Notice():
                self.notice.emit(*notice_line(self._texts(), action))

    def _ask(self, action: vs.AskApproval) -> None:
        if action.again:
            self.notice.emit(NoticeLevel.SYSTEM, self._texts().tr("voice_approval_again"))
        speak = self.speak
        if not action.speak:
            return
        if speak is None:
            self._feed(vs.QuestionSaid())
            return
        question = self._texts().tr("voice_approval_again" if action.again else "voice_approval_ask", tool=action.tool)
        self._prompt = asyncio.ensure_future(self._say(speak, question))

    async def _say(self, speak: Callable[[str], Awaitable[None]], question: str) -> None:
        try:
            async with asyncio.timeout(PROMPT_TIMEOUT_S):
                await speak(question)
        except asyncio.CancelledError:
            raise
        except Exception:  # TimeoutError or a TTS failure: the question is on screen
            log.warning("could not say the approval question", exc_info=True)
        self._prompt = None
        self._feed(vs.QuestionSaid())

    async def _recognise(self, action: vs.Recognise) -> None:
        text, failed = "", False
        job = self.capture.echo_job(action.pcm)
        try:
            if job is not None:
                from desktop_agent.voice.echo_subtraction import without_echo  # loaded with the speaker

                action = replace(action, pcm=await without_echo(job, action.pcm))
            text = await hear(action, lambda: self._recognizer, self.answers, self.stand_ins,
                              self.before_recognise, self.heard_instead.emit)
        except STTError as exc:
            failed = True
            self.notice.emit(NoticeLevel.WARNING, self._texts().tr("mic_stt_error", error=exc))
        except Exception as exc:  # a broken engine must not take the window down
            failed = True
            log.exception("speech recognition failed")
            self.notice.emit(NoticeLevel.WARNING, self._texts().tr("mic_stt_error", error=type(exc).__name__))
        if self._task is asyncio.current_task():
            self._task = None
        self._feed(vs.Heard(action.ident, text, failed=failed))
