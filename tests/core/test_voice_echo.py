"""The echo gate: our own voice, heard back by the microphone, is never the
user's; the user speaking over it is. Real speech (espeak-ng fixtures) as
our output and as the user, mixed as a microphone would hear them."""

from __future__ import annotations

import array
from pathlib import Path

from desktop_agent.core.utterance import UtteranceDetector, UtteranceTimings
from desktop_agent.core.voice_echo import EchoGate, level_db, wav_pcm
from desktop_agent.testing.fake_clock import FakeClock
from desktop_agent.voice.pcm import read_wav16, silence16
from desktop_agent.voice.vad import WebRtcVad
from desktop_agent.voice.wav import tone_wav

DATA = Path(__file__).parents[1] / "voice"
OURS = read_wav16(DATA / "fixtures" / "en2.wav")  # ~9 s of our reply
USER = read_wav16(DATA / "data" / "what_time.wav")
FRAME = WebRtcVad.frame_bytes


def scaled(pcm: bytes, gain: float) -> bytes:
    samples = array.array("h")
    samples.frombytes(pcm)
    return array.array("h", (max(-32768, min(32767, int(s * gain))) for s in samples)).tobytes()


def mixed(a: bytes, b: bytes) -> bytes:
    x, y = array.array("h"), array.array("h")
    x.frombytes(a)
    y.frombytes(b.ljust(len(a), b"\0")[: len(a)])
    return array.array("h", (max(-32768, min(32767, p + q)) for p, q in zip(x, y, strict=True))).tobytes()


def heard(gate: EchoGate, clock: FakeClock, mic: bytes) -> str:
    """The gate's decision per 30 ms frame of ``mic``, at real pace on ``clock``."""
    out = []
    for i in range(0, len(mic) - FRAME + 1, FRAME):
        out.append("#" if gate.is_speech(mic[i : i + FRAME]) else ".")
        clock.advance(0.03)
    return "".join(out)


def playing(clock: FakeClock, pcm: bytes) -> EchoGate:
    gate = EchoGate(WebRtcVad(), clock.now)
    gate.play_started(16000)
    gate.play_pcm(pcm)
    return gate


def test_nothing_playing_it_is_the_vad() -> None:
    clock = FakeClock()
    gate = EchoGate(WebRtcVad(), clock.now)
    plain = WebRtcVad()
    expected = "".join("#" if plain.is_speech(USER[i : i + FRAME]) else "." for i in range(0, len(USER) - FRAME + 1, FRAME))
    assert heard(gate, clock, USER) == expected
    assert not gate.active


def test_our_voice_looped_back_at_full_level_is_never_speech() -> None:
    clock = FakeClock()
    gate = playing(clock, OURS)
    assert "#" not in heard(gate, clock, OURS)


def test_our_voice_heard_late_through_the_room_is_never_speech() -> None:
    clock = FakeClock()
    gate = playing(clock, OURS)
    late = silence16(0.2) + scaled(OURS, 0.8)  # 200 ms of device and room latency
    assert "#" not in heard(gate, clock, late)


def test_the_user_over_our_voice_is_heard_once_the_coupling_is_learnt() -> None:
    clock = FakeClock()
    echo = scaled(OURS, 0.1)  # the speaker is 20 dB quieter at the microphone than it plays
    gate = playing(clock, OURS + OURS)
    assert "#" not in heard(gate, clock, echo)  # our voice alone, learnt meanwhile
    assert -22 < gate.coupling_db() < -18
    user_over_us = mixed(echo[: len(USER)], scaled(USER, 1.0))  # ~20 dB above our echo
    detector = UtteranceDetector(gate, UtteranceTimings(min_speech_ms=120))
    started = []
    for i in range(0, len(USER), FRAME):
        if detector.feed(user_over_us[i : i + FRAME]):
            started.append(i // FRAME * 30)
        clock.advance(0.03)
    assert started and started[0] <= 150  # ms from the first frame of speech


def test_until_learnt_the_user_must_be_louder_than_we_play() -> None:
    clock = FakeClock()
    gate = playing(clock, OURS)
    quiet_user = mixed(scaled(OURS, 0.1)[: len(USER)], scaled(USER, 0.3))
    assert "#" not in heard(gate, clock, quiet_user)


def test_after_playback_and_its_echo_it_is_the_vad_again() -> None:
    clock = FakeClock()
    gate = playing(clock, OURS[: 16000 * 2])
    heard(gate, clock, scaled(OURS, 0.1)[: 16000 * 2])
    gate.play_stopped()
    assert gate.active
    clock.advance(gate.latency_s)
    assert not gate.active
    assert "#" in heard(gate, clock, scaled(USER, 0.2))


def test_a_clip_we_cannot_read_counts_as_full_scale() -> None:
    clock = FakeClock()
    gate = EchoGate(WebRtcVad(), clock.now)
    gate.play_unknown()
    assert "#" not in heard(gate, clock, USER)


def test_levels_and_wav_clips() -> None:
    assert level_db(b"") == level_db(silence16(0.03)) == -120.0
    assert -4 < level_db(scaled(b"\xff\x7f" * 480, 1.0)) <= 0
    pcm, rate, channels = wav_pcm(tone_wav(0.1)) or (b"", 0, 0)
    assert rate > 0 and channels == 1 and len(pcm) > 0
    assert wav_pcm(b"ID3 not a wav") is None
