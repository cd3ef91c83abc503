"""The VAD on espeak-ng speech, digital silence and faint noise."""

from __future__ import annotations

import random
import struct
from pathlib import Path

from desktop_agent.core.utterance import UtteranceDetector, UtteranceTimings
from desktop_agent.voice.pcm import read_wav16, silence16
from desktop_agent.voice.vad import WebRtcVad

DATA = Path(__file__).parent / "data"


def faint_noise(seconds: float) -> bytes:
    rng = random.Random(7)
    count = int(16000 * seconds)
    return struct.pack(f"<{count}h", *(rng.randint(-300, 300) for _ in range(count)))


def test_one_utterance_is_found_in_speech_between_silences() -> None:
    speech = read_wav16(DATA / "what_time.wav")
    detector = UtteranceDetector(WebRtcVad(), UtteranceTimings())
    events = detector.feed(silence16(1.0) + speech + silence16(1.5))
    assert [e.type for e in events] == ["speech_start", "utterance_end"]
    # The whole sentence is in it (plus pre-roll and the closing silence).
    assert len(speech) <= len(events[1].pcm) <= len(speech) + 32 * (300 + 700 + 60)


def test_silence_and_faint_noise_are_not_speech() -> None:
    detector = UtteranceDetector(WebRtcVad(), UtteranceTimings())
    assert detector.feed(silence16(2.0) + faint_noise(2.0)) == []
