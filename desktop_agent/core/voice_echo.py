"""The assistant's own voice must not count as the user's: a gate on the
microphone while we play, in front of the VAD.

Why a gate on levels and not an echo canceller: a canceller subtracts a
filtered copy of the output from the input, which needs the output's
samples aligned with the input's to the millisecond; QtMultimedia gives
neither (no loopback of the played samples, no latency figure), and a
misaligned canceller adds echo instead of removing it (after the fact,
once an utterance is whole, the delay can be found in the signal itself:
``voice/echo_subtraction.py`` does that for what the recogniser hears; a
frame-by-frame gate has no such time). What we do know is
what we play and roughly when: the PCM of every clip (streamed or WAV) as
it is handed to the speaker. So, like a speakerphone's half-duplex switch,
a microphone frame counts as the user only when it is louder, by
``margin_db``, than our own output could make it there: the loudest
output of the last ``latency_s`` (the device buffers and the room: 1 s,
since PulseAudio through QAudioSink was measured at ~0.8 s from a clip's
start to its echo in the virtual microphone), times the coupling from
speaker to microphone.

The coupling is learnt while we play, as a speakerphone learns its room:
the largest ratio of microphone to output level over the first
``learn_after`` frames of our voice the microphone can hear — from
``latency_s`` after a reply began after a silence, or after the microphone
opened (its first frames precede our echo and would teach the gate we are
inaudible) — and then kept, not adapted, for the rest of the reply: while
the user talks over us any adaptation learns the user as echo (the
unvoiced start of a word, "s" in "search", is not speech to the VAD, and
held the barge-in back ~270 ms when it was learnt). Each reply learns
afresh; until the first estimate, 0 dB — the microphone hears us as loud
as we play (a laptop with no headset at full volume, or the virtual
microphone a test loops our output into). So the first sentences are safe
from ourselves, at the price of a raised voice to interrupt them: at a
normal voice a barge-in is possible ~1.6 s into a reply (``latency_s`` +
``learn_after`` frames), earlier where the previous reply's estimate still
holds. Someone talking while it learns makes it think our voice louder:
harder to interrupt, never easier. ``margin_db`` covers what a short
learning misses (our loudest syllables). A clip whose samples cannot be
read (MP3) counts as played at full scale throughout.

Pure: levels and an injected clock, no audio library.
"""

from __future__ import annotations

import array
import io
import math
import sys
import wave
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from desktop_agent.core.utterance import FrameClassifier

SLICE_S = 0.03
"""The output's level is kept per 30 ms."""
SILENT_DB = -120.0


def level_db(pcm: bytes) -> float:
    """RMS of 16-bit little-endian PCM in dBFS (``SILENT_DB`` for silence)."""
    samples = array.array("h")
    samples.frombytes(pcm[: len(pcm) - len(pcm) % 2])
    if sys.byteorder == "big":
        samples.byteswap()
    if not samples:
        return SILENT_DB
    rms = math.sqrt(sum(s * s for s in samples) / len(samples))
    return 20 * math.log10(rms / 32768) if rms > 0 else SILENT_DB


def wav_pcm(audio: bytes) -> tuple[bytes, int, int] | None:
    """A WAV clip's 16-bit PCM, its sample rate and channels; None for
    another format (an MP3 from edge-tts)."""
    try:
        with wave.open(io.BytesIO(audio)) as reader:
            if reader.getsampwidth() != 2:
                return None
            return reader.readframes(reader.getnframes()), reader.getframerate(), reader.getnchannels()
    except (wave.Error, EOFError):
        return None


@dataclass
class _Clip:
    start: float
    """When it began to play (the clock's time)."""
    rate: int
    """Bytes of PCM per second."""
    levels: list[float]
    """Its level per ``SLICE_S`` so far."""
    tail: bytes = b""
    """PCM not yet a whole slice."""
    unknown: bool = False
    """Samples not readable: full scale throughout."""
    end: float | None = None
    """When it stopped (None: playing)."""


class EchoGate:
    """A :class:`~desktop_agent.core.utterance.FrameClassifier` in front of
    another: while our output plays (and ``latency_s`` after), a frame is
    speech only when the inner one says so and it stands ``margin_db`` above
    what our own voice can make the microphone hear."""

    def __init__(
        self,
        inner: FrameClassifier,
        clock: Callable[[], float],
        *,
        margin_db: float = 6.0,
        latency_s: float = 1.0,
        learn_after: int = 20,
    ) -> None:
        self.inner = inner
        """The VAD behind the gate (a fresh one for each capture: WebRTC's keeps state)."""
        self._clock = clock
        self.margin_db = margin_db
        self.latency_s = latency_s
        self._learn_after = learn_after
        """Frames of our voice each estimate of the coupling is learnt from."""
        self._estimate: float | None = None
        self._ratios: list[float] = []
        """The ratios of the estimate being learnt."""
        self._clips: deque[_Clip] = deque(maxlen=8)
        self._learn_from = float("-inf")
        """Before this, what the microphone hears says nothing of our voice:
        it may not have reached it yet (a clip just begun, a capture just opened)."""

    def capture_started(self) -> None:
        """The microphone was opened (its first frames may predate our echo)."""
        self._relearn(self._clock() + self.latency_s)

    def _relearn(self, start: float) -> None:
        self._learn_from = max(self._learn_from, start)
        self._ratios = []

    @property
    def frame_bytes(self) -> int:
        return self.inner.frame_bytes

    # ------------------------------------------------------------ the output

    def play_started(self, rate: int, channels: int = 1) -> None:
        """A clip begins to play: ``rate`` samples a second of 16-bit PCM."""
        self._begin(_Clip(self._clock(), max(1, rate * channels * 2), []))

    def play_unknown(self) -> None:
        """A clip whose samples cannot be read begins to play."""
        self._begin(_Clip(self._clock(), 1, [], unknown=True))

    def _begin(self, clip: _Clip) -> None:
        if not self.active:  # a reply after a silence: its echo comes only after the latency
            self._relearn(clip.start + self.latency_s)
        self.play_stopped()
        self._clips.append(clip)

    def play_pcm(self, pcm: bytes) -> None:
        """More of the playing clip's PCM, in order."""
        clip = self._clips[-1] if self._clips else None
        if clip is None or clip.end is not None or clip.unknown:
            return
        data = clip.tail + pcm
        step = max(2, int(clip.rate * SLICE_S) // 2 * 2)
        whole = len(data) - len(data) % step
        clip.levels.extend(level_db(data[i : i + step]) for i in range(0, whole, step))
        clip.tail = data[whole:]

    def play_stopped(self) -> None:
        if self._clips and self._clips[-1].end is None:
            self._clips[-1].end = self._clock()

    @property
    def active(self) -> bool:
        """Our output is playing, or its echo may still be heard."""
        now = self._clock()
        return any(clip.end is None or now - clip.end < self.latency_s for clip in self._clips)

    def coupling_db(self) -> float:
        """How much quieter our voice is at the microphone than as played."""
        return self._estimate if self._estimate is not None else 0.0

    def _output_db(self, now: float) -> float | None:
        """The loudest output that can be heard now; None: none can."""
        loudest: float | None = None
        for clip in self._clips:
            if clip.end is not None and now - clip.end >= self.latency_s:
                continue
            if clip.unknown:
                return 0.0
            first = max(0, int((now - self.latency_s - clip.start) / SLICE_S))
            last = int((now - clip.start) / SLICE_S) + 2
            heard = clip.levels[first:last]
            if heard:
                loudest = max(loudest if loudest is not None else SILENT_DB, *heard)
            elif clip.start <= now:
                loudest = loudest if loudest is not None else SILENT_DB
        return loudest

    # ---------------------------------------------------------- the microphone

    def is_speech(self, frame: bytes) -> bool:
        speech = self.inner.is_speech(frame)
        output = self._output_db(self._clock())
        if output is None:
            return speech
        mic = level_db(frame)
        if speech and mic >= output + self.coupling_db() + self.margin_db:
            return True
        learning = len(self._ratios) < self._learn_after and self._clock() >= self._learn_from
        if output > -50.0 and learning:  # our voice is what it hears: learn how loud
            self._ratios.append(mic - output)
            if len(self._ratios) == self._learn_after:
                self._estimate = max(self._ratios)
        return False
