"""Echo subtraction on synthetic signals: a known played signal, delayed,
quieter and resampled as a room and two sound devices would, under the
user's speech; what is left is close to the speech."""

from __future__ import annotations

import numpy as np

from desktop_agent.testing.fake_clock import FakeClock
from desktop_agent.voice.echo_subtraction import EchoSubtractor, subtract_echo, without_echo
from desktop_agent.voice.pcm import RATE

PLAYED_RATE = 22050  # espeak-ng's


def voice_like(seconds: float, rate: int, seed: int) -> np.ndarray:
    """Noise shaped like speech: a few formant-ish bands, syllables of ~0.2 s."""
    rng = np.random.default_rng(seed)
    count = int(seconds * rate)
    t = np.arange(count) / rate
    signal = np.zeros(count)
    for band in rng.uniform(200, 3000, 6):
        signal += np.sin(2 * np.pi * band * t + rng.uniform(0, 6)) * rng.uniform(0.3, 1.0)
    signal += rng.normal(0, 0.3, count)
    envelope = 0.5 + 0.5 * np.sin(2 * np.pi * 2.5 * t + rng.uniform(0, 6)) ** 2
    return np.asarray(8000 * signal * envelope / np.max(np.abs(signal)))


def heard(played: np.ndarray, delay_s: float, gain: float, length: int, at: float) -> np.ndarray:
    """``played`` (22,050 Hz, started at time 0) as the microphone hears it:
    resampled to 16 kHz, ``delay_s`` late, ``gain`` as loud; the capture's
    sample 0 is time ``at``."""
    times = at + np.arange(length) / RATE - delay_s
    return np.asarray(gain * np.interp(times * PLAYED_RATE, np.arange(len(played)), played, left=0.0, right=0.0))


def db(samples: np.ndarray) -> float:
    return float(10 * np.log10(np.mean(samples**2) + 1e-9))


def test_the_echo_of_what_we_played_is_taken_out_and_the_speech_is_left() -> None:
    clock = FakeClock()
    subtractor = EchoSubtractor(clock.now)
    played = voice_like(2.0, PLAYED_RATE, seed=1)
    subtractor.play_started(PLAYED_RATE)
    subtractor.play_pcm(np.round(played).astype("<i2").tobytes())
    clock.advance(1.6)  # the user talks over it; the reply is stopped
    subtractor.play_stopped()
    clock.advance(1.4)
    # The utterance: the last 2.4 s (from 0.6 s on); echo 0.35 s late at -20 dB, the user from 1.2 s on.
    length = int(2.4 * RATE)
    echo = heard(played[: int(1.6 * PLAYED_RATE)], delay_s=0.35, gain=0.1, length=length, at=0.6)
    speech = np.zeros(length)
    speech[int(0.6 * RATE) :] = voice_like(1.8, RATE, seed=2)[: length - int(0.6 * RATE)] * 0.3
    captured = np.round(echo + speech).astype("<i2")

    cleaned = np.frombuffer(subtractor.clean(captured.tobytes()), dtype="<i2").astype(np.float64)

    assert len(cleaned) == length
    before, after = db(captured - speech), db(cleaned - speech)
    assert after < before - 15  # the echo is 15 dB quieter at least
    echo_only = slice(0, int(0.6 * RATE))  # before the user speaks: only our voice was there
    assert db(cleaned[echo_only]) < db(captured[echo_only]) - 15


def test_nothing_is_taken_from_an_utterance_long_after_the_reply() -> None:
    clock = FakeClock()
    subtractor = EchoSubtractor(clock.now)
    subtractor.play_started(PLAYED_RATE)
    subtractor.play_pcm(np.round(voice_like(1.0, PLAYED_RATE, seed=3)).astype("<i2").tobytes())
    clock.advance(1.0)
    subtractor.play_stopped()
    clock.advance(5.0)
    utterance = np.round(voice_like(2.0, RATE, seed=4)).astype("<i2").tobytes()
    assert subtractor.clean(utterance) == utterance


def test_speech_with_no_echo_of_the_reference_in_it_is_left_as_it_is() -> None:
    speech = voice_like(2.0, RATE, seed=5)
    reference = voice_like(3.5, RATE, seed=6)  # played, but never reached the microphone
    cleaned = subtract_echo(speech, reference, max_lag=int(1.5 * RATE))
    if cleaned is not None:  # a block the fit happened to lower is lowered a little, no more
        assert db(cleaned - speech) < db(speech) - 20


async def test_a_subtraction_that_fails_leaves_the_utterance_as_heard() -> None:
    def broken() -> bytes:
        raise ValueError("a bug in the subtraction")

    assert await without_echo(broken, b"\x01\x00\x02\x00") == b"\x01\x00\x02\x00"
