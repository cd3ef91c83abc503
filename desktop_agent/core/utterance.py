"""Where an utterance starts and ends, from per-frame speech/no-speech
decisions (a VAD): pure logic over frame counts, no clock and no audio
library, so it is tested with scripted decisions.

Frames are fed as they arrive (any chunking); the detector cuts them into
the classifier's frame size. Events:

- ``speech_start``: ``min_speech_ms`` of speech in a row (a cough or a
  click is shorter); barge-in listens for this alone.
- ``utterance_end``: ``end_silence_ms`` of silence after speech (or
  ``max_utterance_ms`` in all); carries the utterance's PCM with
  ``pre_roll_ms`` from before the start, so the first syllable is kept.
- ``no_speech``: ``start_timeout_ms`` passed without speech starting
  (None: wait for ever).
"""

from __future__ import annotations

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
    end_silence_ms: int = 700
    start_timeout_ms: int | None = None
    max_utterance_ms: int = 30_000
    pre_roll_ms: int = 300


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
        self.reset()

    def reset(self) -> None:
        """Forget everything: wait for a new utterance."""
        self._pending = b""
        self._waited_ms = 0.0
        self._run_ms = 0.0
        """Speech in a row before the start, or silence in a row after it."""
        self._started = False
        self._timed_out = False
        self._before: deque[bytes] = deque(maxlen=max(1, int(self._t.pre_roll_ms / self._frame_ms)))
        self._voiced: list[bytes] = []
        self._utterance: list[bytes] = []

    @property
    def in_speech(self) -> bool:
        return self._started

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
            if speech:
                self._voiced.append(frame)
                self._run_ms += self._frame_ms
                if self._run_ms >= t.min_speech_ms:
                    self._started = True
                    self._utterance = [*self._before, *self._voiced]
                    self._run_ms = 0.0
                    return UtteranceEvent("speech_start")
                return None
            self._before.extend(self._voiced)
            self._before.append(frame)
            self._voiced = []
            self._run_ms = 0.0
            if t.start_timeout_ms is not None and self._waited_ms >= t.start_timeout_ms:
                self._timed_out = True
                return UtteranceEvent("no_speech")
            return None
        self._utterance.append(frame)
        self._run_ms = 0.0 if speech else self._run_ms + self._frame_ms
        length_ms = len(self._utterance) * self._frame_ms
        if self._run_ms >= t.end_silence_ms or length_ms >= t.max_utterance_ms:
            pcm = b"".join(self._utterance)
            self.reset()
            return UtteranceEvent("utterance_end", pcm)
        return None
