"""Speech input in the window (issue 11): push-to-talk, hands-free,
barge-in and approval by voice, over the ``AudioInput`` and
``SpeechRecognizer`` ports. The window turns what this says into clicks
(send, interrupt, approve); this object only listens and recognises.

- Push-to-talk: :meth:`start_talk` … :meth:`end_talk` records, then
  recognises the whole recording; :meth:`cancel` drops it.
- Hands-free (:meth:`set_hands_free`): the VAD cuts utterances
  (``core.utterance``); each transcript is sent. Nothing is heard while a
  turn runs (:meth:`set_busy`; no barge-in by default, since without echo
  cancellation the assistant would hear itself); listening resumes when
  the turn, its speech included, is over.
- Barge-in (``barge_in_ms`` not None): while busy, that much speech in a
  row emits ``barge_in`` (the window interrupts the turn).
- Approval by voice (:meth:`ask_approval`, hands-free only): one utterance
  is heard and read by ``parse_answer``; unclear asks once more, then
  leaves the card to the mouse. Nothing unclear ever approves.

Signals:
    state_changed(state: str, reason: str)
                      the mic button's state (``idle``, ``listening``,
                      ``recognising``, ``unavailable`` with the reason)
    transcript(text: str, send: bool)
                      a final transcript; ``send``: send it at once
    notice(level: str, text: str)   a line for the conversation
    barge_in()        the user spoke over the assistant
    approval_answer(tool_call_id: str, approved: bool)
                      a clear spoken yes or no
    heard_instead(engine: str, failure: ModelDownloadError)
                      an utterance heard by a stand-in, the chosen engine's
                      model having failed to download
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal

from PySide6.QtCore import QObject, Signal

from desktop_agent.core.ports import STTError
from desktop_agent.core.utterance import UtteranceDetector, UtteranceTimings
from desktop_agent.core.voice_answer import Answer, parse_answer
from desktop_agent.ui.i18n import tr

if TYPE_CHECKING:
    from desktop_agent.core.ports import AudioInput, SpeechRecognizer
    from desktop_agent.core.utterance import FrameClassifier

log = logging.getLogger(__name__)

Mode = Literal["off", "talk", "utterance", "barge", "approval"]
APPROVAL_TIMINGS = UtteranceTimings(start_timeout_ms=8000, max_utterance_ms=8000)
HANDS_FREE_TIMINGS = UtteranceTimings()
PROMPT_TIMEOUT_S = 15.0
"""The longest the spoken approval question may take before listening anyway."""
RATE = 16000


class VoiceInput(QObject):
    state_changed = Signal(str, str)
    transcript = Signal(str, bool)
    notice = Signal(str, str)
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
        parse_answer: Callable[[str], Answer | None] = parse_answer,
        speak: Callable[[str], Awaitable[None]] | None = None,
        send_at_once: bool = True,
        unavailable: str | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._audio, self._recognizer, self._vad = audio, recognizer, vad
        self._parse = parse_answer
        self.speak = speak
        """Says the approval question aloud (returns when it was heard);
        None: it is only shown."""
        self._prompt: asyncio.Task[None] | None = None
        self._answers = answer_recognizer or recognizer
        """Hears approval answers (pocketsphinx: its yes/no grammar)."""
        self.send_at_once = send_at_once
        self.barge_in_ms: int | None = None
        self._reason = unavailable or (tr("mic_none") if audio is None else None)
        if self._reason is None and recognizer is None:
            self._reason = tr("mic_no_recognizer")
        self._engine_reasons: tuple[str, ...] = (
            (self._reason,) if self._reason is not None and audio is not None else ())
        """Reasons that come from the recogniser, not the microphone: another
        engine can lift them."""
        self._state = "unavailable" if self._reason else "idle"
        self._mode: Mode = "off"
        self._hands_free = False
        self._busy = False
        self._buffer: list[bytes] = []
        self._detector: UtteranceDetector | None = None
        self._task: asyncio.Task[None] | None = None
        self._approval: tuple[str, str, int] | None = None
        """The approval being asked: tool_call_id, tool name, tries so far."""
        self.stand_ins: list[SpeechRecognizer] = []
        """Recognisers that may hear an utterance when the chosen one's model
        cannot be downloaded (``heard_instead`` then says which)."""
        self.before_recognise: Callable[[], Awaitable[None]] | None = None
        """Awaited before an utterance is recognised (the first download's
        offer: the utterance waits for the user's answer)."""

    def set_recognizers(
        self, recognizer: SpeechRecognizer | None, answers: SpeechRecognizer | None, reason: str | None
    ) -> None:
        """Use other recognisers from now on (the Settings changed the engine);
        an utterance being recognised finishes with the old one. ``reason``:
        why there is none. A microphone that failed stays unavailable."""
        self._recognizer, self._answers = recognizer, answers or recognizer
        if self._audio is None or self._reason not in (None, *self._engine_reasons):
            return
        self._reason = reason or (tr("mic_no_recognizer") if recognizer is None else None)
        self._engine_reasons = (self._reason,) if self._reason else ()
        if self._reason is not None:
            self._stop_audio()
            self._hands_free = False
            self._set_state("unavailable")
        elif self._state == "unavailable":
            self._set_state("idle")

    # ------------------------------------------------------------ state

    @property
    def recognizer(self) -> SpeechRecognizer | None:
        """The dictation recogniser in use."""
        return self._recognizer

    @property
    def state(self) -> str:
        return self._state

    @property
    def reason(self) -> str:
        return self._reason or ""

    @property
    def available(self) -> bool:
        return self._reason is None

    @property
    def hands_free(self) -> bool:
        return self._hands_free

    @property
    def mode(self) -> Mode:
        return self._mode

    def _set_state(self, state: str) -> None:
        if state != self._state:
            self._state = state
            self.state_changed.emit(state, self.reason)

    def _fail(self, reason: str) -> None:
        """The microphone cannot be used: say so once, disable the button."""
        self._stop_audio()
        self._reason = reason
        self._hands_free = False
        self.notice.emit("warning", tr("mic_unavailable", reason=reason))
        self._set_state("unavailable")

    def _start_audio(self, mode: Mode, timings: UtteranceTimings | None = None) -> bool:
        audio = self._audio
        if audio is None or not self.available:
            return False
        self._stop_audio()
        self._buffer = []
        self._detector = None
        if timings is not None:
            if self._vad is None:
                self._fail(tr("mic_no_recognizer"))
                return False
            self._detector = UtteranceDetector(self._vad(), timings)
        self._mode = mode
        try:
            audio.start(self._on_frames)
        except OSError as exc:
            self._mode = "off"
            self._fail(str(exc) or tr("mic_none"))
            return False
        return True

    def _stop_audio(self) -> None:
        if self._mode != "off" and self._audio is not None:
            self._audio.stop()
        self._mode = "off"

    # ----------------------------------------------------- push-to-talk

    def start_talk(self) -> bool:
        if self._state != "idle" or self._mode in ("talk", "approval"):
            return False
        if not self._start_audio("talk"):
            return False
        self._set_state("listening")
        return True

    def end_talk(self) -> None:
        if self._mode != "talk":
            return
        self._stop_audio()
        pcm, self._buffer = b"".join(self._buffer), []
        self._recognise(pcm, "talk")

    def cancel(self) -> None:
        """Esc: drop what is being recorded or recognised."""
        if self._mode == "talk":
            self._stop_audio()
            self._buffer = []
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self._task = None
        if self.available:
            self._set_state("idle")
            self._resume()

    def close(self) -> None:
        """The window closed: release the microphone, stop everything."""
        self._hands_free = False
        self._approval = None
        for task in (self._task, self._prompt):
            if task is not None and not task.done():
                task.cancel()
        self._stop_audio()

    # -------------------------------------------------------- hands-free

    def set_hands_free(self, on: bool) -> None:
        self._hands_free = on and self.available
        if self._hands_free:
            self._resume()
        elif self._mode in ("utterance", "barge"):
            self._stop_audio()
            if self.available:
                self._set_state("idle")

    def set_busy(self, busy: bool) -> None:
        """A turn runs (its reply being written or spoken) or is over."""
        self._busy = busy
        if self._mode in ("utterance", "barge"):
            self._stop_audio()
            self._set_state("idle")
        self._resume()

    def _resume(self) -> None:
        """Listen as the situation asks (nothing else in progress)."""
        if not self._hands_free or self._mode != "off" or (self._task is not None and not self._task.done()):
            return
        if not self._busy:
            if self._start_audio("utterance", HANDS_FREE_TIMINGS):
                self._set_state("listening")
        elif self.barge_in_ms is not None:
            self._start_audio("barge", UtteranceTimings(min_speech_ms=self.barge_in_ms))

    # -------------------------------------------------- approval by voice

    def ask_approval(self, tool_call_id: str, tool_name: str) -> bool:
        """Ask for a spoken yes or no (hands-free only); False when not asked."""
        if not self._hands_free or not self.available:
            return False
        self._approval = (tool_call_id, tool_name, 0)
        self._ask()
        return True

    def drop_approval(self, tool_call_id: str) -> None:
        """The approval was answered otherwise (a click) or lost."""
        if self._approval is not None and self._approval[0] == tool_call_id:
            self._approval = None
            if self._prompt is not None:
                self._prompt.cancel()
                self._prompt = None
            if self._mode == "approval":
                self._stop_audio()
                self._set_state("idle")
            self._resume()

    def _ask(self) -> None:
        assert self._approval is not None
        _ident, tool, tries = self._approval
        question = tr("voice_approval_ask" if tries == 0 else "voice_approval_again", tool=tool)
        self.notice.emit("system", question)
        if self.speak is None:
            self._listen_for_answer()
        else:
            self._prompt = asyncio.ensure_future(self._say_then_listen(self.speak, question))

    async def _say_then_listen(self, speak: Callable[[str], Awaitable[None]], question: str) -> None:
        """Listen only once the question was said: the microphone would hear it."""
        try:
            async with asyncio.timeout(PROMPT_TIMEOUT_S):
                await speak(question)
        except asyncio.CancelledError:
            raise
        except Exception:  # TimeoutError or a TTS failure: the question is on screen
            log.warning("could not say the approval question", exc_info=True)
        self._prompt = None
        if self._approval is not None:
            self._listen_for_answer()

    def _listen_for_answer(self) -> None:
        if self._start_audio("approval", APPROVAL_TIMINGS):
            self._set_state("listening")

    def _answered(self, text: str | None) -> None:
        approval, self._approval = self._approval, None
        if approval is None:
            return
        ident, tool, tries = approval
        answer = self._parse(text) if text else None
        if answer is not None:
            self.approval_answer.emit(ident, answer == "yes")
        elif tries == 0:
            self._approval = (ident, tool, 1)
            self._ask()
            return
        else:
            self.notice.emit("system", tr("voice_approval_unclear"))
        self._resume()

    # ------------------------------------------------------------ frames

    def _on_frames(self, pcm: bytes) -> None:
        mode = self._mode
        if mode == "talk":
            self._buffer.append(pcm)
            return
        detector = self._detector
        if detector is None:
            return
        for event in detector.feed(pcm):
            if event.type == "speech_start" and mode == "barge":
                self._stop_audio()
                self.barge_in.emit()
                return
            if event.type == "utterance_end":
                self._stop_audio()
                self._recognise(event.pcm, mode)
                return
            if event.type == "no_speech":
                self._stop_audio()
                self._set_state("idle")
                self._answered(None)
                return

    def _recognise(self, pcm: bytes, purpose: Mode) -> None:
        self._set_state("recognising")
        self._task = asyncio.ensure_future(self._transcribe(pcm, purpose))

    async def _transcribe(self, pcm: bytes, purpose: Mode) -> None:
        text: str | None = None
        try:
            if purpose != "approval" and self.before_recognise is not None:
                await self.before_recognise()  # the offer of a model: its answer may change the engine
            recognizer = self._answers if purpose == "approval" else self._recognizer
            if recognizer is not None and pcm:
                if purpose == "approval":
                    text = (await recognizer.transcribe(pcm, RATE)).strip()
                else:
                    # A model that cannot be downloaded never loses the words:
                    # the best ready stand-in hears them, and says so.
                    from desktop_agent.voice.stt.fallback import RecognizerChain

                    heard = await RecognizerChain(recognizer, self.stand_ins).recognise(pcm, RATE)
                    text = heard.text.strip()
                    if heard.failure is not None:
                        self.heard_instead.emit(heard.engine, heard.failure)
        except STTError as exc:
            self.notice.emit("warning", tr("mic_stt_error", error=exc))
        except Exception as exc:  # a broken engine must not take the window down
            log.exception("speech recognition failed")
            self.notice.emit("warning", tr("mic_stt_error", error=type(exc).__name__))
        finally:
            self._task = None
            if self.available:
                self._set_state("idle")
        if purpose == "approval":
            self._answered(text)
            return
        if text:
            self.transcript.emit(text, self.send_at_once or purpose == "utterance")
        elif text is not None and purpose == "talk":  # hands-free just listens on
            self.notice.emit("system", tr("mic_heard_nothing"))
        self._resume()
