"""The microphone side of speech input: opening and closing the audio
input, and what its frames become. Push-to-talk keeps every frame until the
release; the other captures cut the frames into utterances
(``core.utterance``) behind the echo gate (``core.voice_echo``: our own
voice is not the user's), and copy what our speaker played for each
utterance so the echo subtractor can take it out before recognition.

What the frames mean goes back to the session as events (``feed``); when
to open and close is the session's decision, carried out by
:class:`~desktop_agent.ui.voice.speech_input.VoiceInput`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from desktop_agent.core import voice_session as vs
from desktop_agent.core.utterance import UtteranceDetector
from desktop_agent.core.voice_echo import EchoGate
from desktop_agent.ui.voice.mic_error import MicError

if TYPE_CHECKING:
    from desktop_agent.core.ports import AudioInput
    from desktop_agent.core.utterance import FrameClassifier
    from desktop_agent.core.voice_output import OutputTap
    from desktop_agent.texts import Texts
    from desktop_agent.voice.echo_subtraction import EchoSubtractor


class MicCapture:
    """One microphone's captures, telling ``feed`` what they hear;
    ``talking()`` says whether the open one is push-to-talk."""

    def __init__(
        self,
        audio: AudioInput | None,
        vad: Callable[[], FrameClassifier] | None,
        clock: Callable[[], float],
        feed: Callable[[vs.Event], None],
        talking: Callable[[], bool],
    ) -> None:
        self.audio, self._vad, self._clock = audio, vad, clock
        self._feed, self._talking = feed, talking
        self.gate = EchoGate(vad(), clock) if vad is not None else None
        """Our own voice is not the user's (fed by :meth:`attach_output`)."""
        self.echo: EchoSubtractor | None = None
        """What we play, taken out of an utterance before it is recognised
        (fed by :meth:`attach_output`; None: no speaker attached)."""
        self._echo_job: tuple[bytes, Callable[[], bytes]] | None = None
        """The last utterance and the work that takes our voice out of it."""
        self._buffer: list[bytes] = []
        self._detector: UtteranceDetector | None = None

    def attach_echo(self, tap: OutputTap) -> None:
        """Our speaker tells the echo subtractor what it plays (what it
        played is taken out of an utterance before it is recognised)."""
        # Here, not at the top: the window imports this module before it shows.
        from desktop_agent.voice.echo_subtraction import EchoSubtractor

        self.echo = EchoSubtractor(self._clock)
        tap.listen(self.echo)

    def kept(self) -> bytes:
        """What the open capture has recorded of the user so far."""
        if self._talking():
            return b"".join(self._buffer)
        return self._detector.partial() if self._detector is not None else b""

    def recorded(self) -> bytes:
        """A push-to-talk capture's frames so far."""
        return b"".join(self._buffer)

    def echo_job(self, pcm: bytes) -> Callable[[], bytes] | None:
        """The work that takes our voice out of ``pcm``, when ``pcm`` is the
        last utterance heard (taken: asked once)."""
        job, self._echo_job = self._echo_job, None
        return job[1] if job is not None and job[0] is pcm else None

    def start(self, action: vs.StartCapture, texts: Callable[[], Texts]) -> None:
        audio = self.audio
        if audio is None:
            return
        self.stop()
        self._detector = None
        if action.timings is not None:
            if self._vad is None or self.gate is None:
                self._feed(vs.MicFailed(texts().tr("mic_no_recognizer")))
                return
            self.gate.inner = self._vad()
            self.gate.capture_started()
            self._detector = UtteranceDetector(self.gate, action.timings)
        try:
            audio.start(self._on_frames)
        except OSError as exc:
            self._detector = None
            words = texts()
            self._feed(vs.MicFailed(exc.worded(words) if isinstance(exc, MicError) else str(exc) or words.tr("mic_none")))

    def stop(self) -> None:
        if self.audio is not None:
            self.audio.stop()
        self._buffer = []
        self._detector = None

    def _on_frames(self, pcm: bytes) -> None:
        if self._talking():
            self._buffer.append(pcm)
            return
        detector = self._detector
        if detector is None:
            return
        for event in detector.feed(pcm):
            if event.type == "speech_start":
                self._feed(vs.SpeechStart())
            elif event.type == "utterance_end":
                if self.echo is not None:  # what we played is copied now, taken out while it is recognised
                    self._echo_job = (event.pcm, self.echo.prepare(event.pcm))
                self._feed(vs.SpeechEnd(event.pcm))
            else:
                self._feed(vs.NoSpeech())
            if self._detector is not detector:
                return  # the capture was closed (or another opened) meanwhile
