"""A barge-in fires on the user's first syllable, not the second.

Replayed from a real recording (``tests/voice/data/barge_in_mic.wav`` and
``.json``): what the virtual microphone heard in a run of the real-audio
barge-in test (``tests/ui/voice/test_voice_real_audio.py``) — the reply,
spoken by espeak-ng on a PulseAudio virtual speaker and looped into the
microphone 20 dB quieter, and "what time is it" said over it — with when
each chunk of it arrived and when each sentence was handed to the speaker.
The sentences are synthesised again (espeak-ng gives the same samples). The
echo gate (``core/voice_echo.py``) with the real WebRTC VAD in front of the
utterance detector, at the barge-in timings the session uses by default,
on a clock that moves as the chunks arrived: the replay fires where the run
fired (at 150 ms, 0.46 s into the user's words). Until the barge-in fires the
reply goes on under the user's words, and Whisper mis-heard them in about a
quarter of the runs when 0.3 s or more of it was there.

Our own voice alone never fires it, even as loud at the microphone as it
is played (synthetic: the same sentences, 0.55 s late).
"""

from __future__ import annotations

import json
import shutil
import wave
from pathlib import Path

import numpy as np
import pytest

from desktop_agent.core.utterance import UtteranceDetector, UtteranceTimings
from desktop_agent.core.voice_echo import EchoGate, wav_pcm
from desktop_agent.core.voice_session import VoiceConfig
from desktop_agent.testing.fake_clock import FakeClock
from desktop_agent.voice.espeak import EspeakEngine
from desktop_agent.voice.pcm import RATE
from desktop_agent.voice.vad import WebRtcVad

pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="needs espeak-ng")

FRAME = 480
"""Samples per microphone frame (30 ms, the VAD's)."""
DELAY_S = 0.55
GAIN = 0.1
"""-20 dB: the speaker heard at the microphone (a room, as in the recording)."""
SENTENCES = ("The weather today will be mild with a light wind.", "Later on, clouds will come in from the west.")


async def sentences() -> list[tuple[bytes, int]]:
    engine = EspeakEngine()
    clips = []
    for text in SENTENCES:
        decoded = wav_pcm((await engine.synthesize(text)).audio)
        assert decoded is not None
        clips.append((decoded[0], decoded[1]))
    return clips


def at_16k(pcm: bytes, rate: int) -> np.ndarray:
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
    return np.asarray(np.interp(np.arange(int(len(samples) * RATE / rate)) * (rate / RATE), np.arange(len(samples)), samples))


def echo_alone(clips: list[tuple[bytes, int]], *, gain: float, barge_in_ms: int) -> float | None:
    """The reply played from 0 s (its second sentence handed over as the
    first ends) and heard ``gain`` as loud, ``DELAY_S`` late, with nobody
    talking: when the utterance detector said speech started (None: never)."""
    (first, rate), (second, _rate) = clips
    second_at = len(first) / 2 / rate
    length = int((second_at + len(second) / 2 / rate + DELAY_S + 1.0) * RATE)
    mic = np.zeros(length)
    for pcm, start in ((first, 0.0), (second, second_at)):
        echo = at_16k(pcm, rate) * gain
        begin = int((start + DELAY_S) * RATE)
        mic[begin : begin + len(echo)] += echo[: length - begin]
    frames = np.clip(np.round(mic), -32768, 32767).astype("<i2").tobytes()
    clock = FakeClock()
    gate = EchoGate(WebRtcVad(), clock.now)
    gate.capture_started()
    detector = UtteranceDetector(gate, UtteranceTimings(min_speech_ms=barge_in_ms))
    gate.play_started(rate)
    gate.play_pcm(first)
    second_handed = False
    for i in range(0, len(frames) - 2 * FRAME + 1, 2 * FRAME):
        now = i / 2 / RATE
        if now >= second_at and not second_handed:
            gate.play_started(rate)
            gate.play_pcm(second)
            second_handed = True
        if any(event.type == "speech_start" for event in detector.feed(frames[i : i + 2 * FRAME])):
            return now
        clock.advance(FRAME / RATE)
    return None


RECORDING = Path(__file__).parent / "data" / "barge_in_mic"


def replayed(clips: list[tuple[bytes, int]], barge_in_ms: int) -> tuple[float, float | None]:
    """The recording through the gate and the detector: when the user's
    first sample arrived, and when speech started (None: never)."""
    meta = json.loads(RECORDING.with_suffix(".json").read_text("utf-8"))
    with wave.open(str(RECORDING.with_suffix(".wav"))) as reader:
        pcm = reader.readframes(reader.getnframes())
    events: list[tuple[float, int, object]] = [(0.0, 0, "open")]
    for clip in meta["clips"]:
        events.append((clip["start"], 1, clips[clip["sentence"]]))
        if clip["stopped"] is not None:
            events.append((clip["stopped"], 1, "stopped"))
    offset = 0
    for arrived, size in meta["chunks"]:
        events.append((arrived, 2, pcm[offset : offset + size]))
        offset += size
    events.sort(key=lambda event: (event[0], event[1]))
    clock = FakeClock()
    start = events[0][0]
    gate = EchoGate(WebRtcVad(), clock.now)
    detector = UtteranceDetector(gate, UtteranceTimings(min_speech_ms=barge_in_ms))
    for at, _order, what in events:
        clock.advance(max(0.0, at - start - clock.now()))
        if what == "open":
            gate.capture_started()
        elif what == "stopped":
            gate.play_stopped()
        elif isinstance(what, tuple):
            gate.play_started(what[1])
            gate.play_pcm(what[0])
        elif isinstance(what, bytes) and any(event.type == "speech_start" for event in detector.feed(what)):
            return meta["user_onset_arrived"], at
    return meta["user_onset_arrived"], None


async def test_the_users_first_syllable_over_the_reply_fires_the_barge_in() -> None:
    began, heard = replayed(await sentences(), VoiceConfig().barge_in_ms)
    assert heard is not None
    assert 0 < heard - began <= 0.25  # the reply stops before it has covered "time is"


async def test_the_replay_fires_where_the_run_did_at_the_old_150_ms() -> None:
    """The replay is the run: at 150 ms it fired when the run did, 0.46 s
    into the user's words (the second syllable; the first passed the gate
    for 120 ms, then "t" and a quieter "i" did not)."""
    began, heard = replayed(await sentences(), 150)
    meta = json.loads(RECORDING.with_suffix(".json").read_text("utf-8"))
    assert heard is not None and abs(heard - meta["speech_start_at_150_ms"]) < 0.04
    assert heard - began > 0.4


@pytest.mark.parametrize("gain", [GAIN, 1.0])
async def test_our_own_voice_alone_never_fires_it(gain: float) -> None:
    clips = await sentences()
    heard = echo_alone(clips, gain=gain, barge_in_ms=VoiceConfig().barge_in_ms)
    assert heard is None
