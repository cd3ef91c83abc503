"""Where an utterance starts and ends, from per-frame speech/no-speech
decisions (a VAD): pure logic over frame counts, no clock and no audio
library, so it is tested with scripted decisions.

Frames are fed as they arrive (any chunking); the detector cuts them into
the classifier's frame size. Events:

- ``speech_start``: ``min_speech_ms`` of speech within the last
  ``onset_window_ms`` (a cough or a click is shorter). Not "in a row": a
  VAD drops single frames inside words (espeak-ng's "what time is it" has
  a silent frame after 150 ms, and again after 240 ms), so requiring an
  unbroken run made barge-in wait ~900 ms for speech it had heard at
  120 ms. Barge-in fires on this event and keeps recording.
- ``utterance_end``: ``end_silence_ms`` of silence after speech (or
  ``max_utterance_ms`` in all); carries the utterance's PCM with
  ``pre_roll_ms`` from before its first speech frame, so the first
  syllable is kept.
- ``no_speech``: ``start_timeout_ms`` passed without speech starting
  (None: wait for ever).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from typing import Literal, Protocol


class FrameClassifier(Protocol):
    """A VAD: is this frame (``frame_bytes`` of 16 kHz mono PCM) speech?"""

    @property
    def frame_bytes(self) -> int: ...

    def is_speech(self, frame: bytes) -> bool: ...


@dataclass(frozen=True, slots=True)
class UtteranceTimings:
    min_speech_ms: int = 120
    """Speech needed (within ``onset_window_ms``) before the utterance starts."""
    end_silence_ms: int = 700
    start_timeout_ms: int | None = None
    max_utterance_ms: int = 30_000
    pre_roll_ms: int = 300
    onset_window_ms: int | None = None
    """The span ``min_speech_ms`` of speech must fall in; None: a quarter
    more than ``min_speech_ms`` (one dropped frame in five is forgiven)."""


@dataclass(frozen=True, slots=True)
class UtteranceEvent:
    type: Literal["speech_start", "utterance_end", "no_speech"]
    """What happened."""
    pcm: bytes = b""
    """The utterance (``utterance_end`` only)."""


BYTES_PER_MS = 32
"""16 kHz × 2 bytes."""


class UtteranceDetector:
    def __init__(self, classifier: FrameClassifier, timings: UtteranceTimings = UtteranceTimings()) -> None:
        self._vad = classifier
        self._t = timings
        self._frame = classifier.frame_bytes
        self._frame_ms = self._frame / BYTES_PER_MS
        self._need = max(1, math.ceil(timings.min_speech_ms / self._frame_ms))
        window_ms = timings.onset_window_ms if timings.onset_window_ms is not None else timings.min_speech_ms * 1.25
        self._window = max(self._need, math.ceil(window_ms / self._frame_ms - 1e-9))
        self._pre_roll = max(0, int(timings.pre_roll_ms / self._frame_ms))
        self.reset()

    def reset(self) -> None:
        """Forget everything: wait for a new utterance."""
        self._pending = b""
        self._waited_ms = 0.0
        self._silence_ms = 0.0
        """Silence in a row since the utterance started."""
        self._started = False
        self._timed_out = False
        self._recent: deque[tuple[bytes, bool]] = deque(maxlen=self._pre_roll + self._window)
        """The latest frames before the start: the onset window and its pre-roll."""
        self._utterance: list[bytes] = []

    @property
    def in_speech(self) -> bool:
        return self._started

    def partial(self) -> bytes:
        """The utterance heard so far (empty before it started): what is kept
        when the microphone goes away mid-sentence."""
        return b"".join(self._utterance) if self._started else b""

    def feed(self, pcm: bytes) -> list[UtteranceEvent]:
        data = self._pending + pcm
        cut = len(data) - len(data) % self._frame
        self._pending = data[cut:]
        events: list[UtteranceEvent] = []
        for offset in range(0, cut, self._frame):
            event = self._step(data[offset : offset + self._frame])
            if event is not None:
                events.append(event)
        return events

    def _step(self, frame: bytes) -> UtteranceEvent | None:
        speech = self._vad.is_speech(frame)
        t = self._t
        if not self._started:
            if self._timed_out:
                return None
            self._waited_ms += self._frame_ms
            self._recent.append((frame, speech))
            window = list(self._recent)[-self._window :]
            if speech and sum(voiced for _f, voiced in window) >= self._need:
                self._started = True
                frames = list(self._recent)
                first = len(frames) - len(window) + next(i for i, (_f, voiced) in enumerate(window) if voiced)
                self._utterance = [f for f, _v in frames[max(0, first - self._pre_roll) :]]
                self._silence_ms = 0.0
                return UtteranceEvent("speech_start")
            if t.start_timeout_ms is not None and self._waited_ms >= t.start_timeout_ms and not any(
                voiced for _f, voiced in window
            ):
                self._timed_out = True
                return UtteranceEvent("no_speech")
            return None
        self._utterance.append(frame)
        self._silence_ms = 0.0 if speech else self._silence_ms + self._frame_ms
        length_ms = len(self._utterance) * self._frame_ms
        if self._silence_ms >= t.end_silence_ms or length_ms >= t.max_utterance_ms:
            pcm = b"".join(self._utterance)
            self.reset()
            return UtteranceEvent("utterance_end", pcm)
        return None
