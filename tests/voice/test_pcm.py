from __future__ import annotations

import array
import struct
import wave
from pathlib import Path

from desktop_agent.voice.pcm import Resampler, read_wav16, resample16, to_mono16

DATA = Path(__file__).parent / "data"


def test_espeak_wav_is_read_as_16_khz_mono() -> None:
    with wave.open(str(DATA / "yes.wav")) as reader:
        assert reader.getframerate() == 22050  # what espeak-ng writes
        seconds = reader.getnframes() / 22050
    pcm = read_wav16(DATA / "yes.wav")
    assert abs(len(pcm) / 2 / 16000 - seconds) < 0.01


def test_streamed_resampling_matches_one_piece() -> None:
    samples = array.array("h", (i * 7 % 2000 - 1000 for i in range(4410)))
    whole = resample16(samples, 44100)
    resampler = Resampler(44100)
    pieces = array.array("h")
    for i in range(0, len(samples), 333):
        pieces.extend(resampler.feed(samples[i : i + 333]))
    assert abs(len(pieces) - len(whole)) <= 1
    # Float steps accumulate differently; a sample may differ by one.
    assert all(abs(a - b) <= 1 for a, b in zip(pieces, whole, strict=False))


def test_stereo_float_becomes_mono_int16() -> None:
    data = struct.pack("<4f", 0.5, -1.0, -0.25, 1.0)
    assert list(to_mono16(data, "float", 2)) == [16383, -8191]
