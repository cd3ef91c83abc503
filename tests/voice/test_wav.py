"""WAV helpers: header repair for streamed espeak-ng output, silence, tones."""

from __future__ import annotations

import struct

import pytest

from desktop_agent.voice.wav import WavError, fix_streamed_wav, silent_wav, tone_wav, wav_duration_s


def streamed(wav: bytes) -> bytes:
    """What espeak-ng --stdout writes: placeholder RIFF and data sizes."""
    out = bytearray(wav)
    struct.pack_into("<I", out, 4, 0x7FFFF024)
    struct.pack_into("<I", out, 40, 0x7FFFF000)
    return bytes(out)


def test_streamed_sizes_are_replaced_by_the_real_ones() -> None:
    original = silent_wav(0.5)
    assert fix_streamed_wav(streamed(original)) == original
    assert wav_duration_s(original) == 0.5


def test_chunks_before_data_are_skipped() -> None:
    original = silent_wav(0.1)
    fmt_chunk, samples = original[12:36], original[44:]
    info = b"LIST" + struct.pack("<I", 5) + b"abcde\0"  # odd size: padded to even
    placeholder = b"RIFF" + struct.pack("<I", 0x7FFFF024) + b"WAVE" + fmt_chunk + info
    placeholder += b"data" + struct.pack("<I", 0x7FFFF000) + samples
    fixed = fix_streamed_wav(placeholder)
    data_size_at = 12 + len(fmt_chunk) + len(info) + 4
    assert struct.unpack_from("<I", fixed, 4)[0] == len(fixed) - 8
    assert struct.unpack_from("<I", fixed, data_size_at)[0] == len(samples)
    assert wav_duration_s(fixed) == 0.1


@pytest.mark.parametrize(
    ("data", "message"),
    [(b"garbage-not-a-wav", "not a RIFF/WAVE file"), (b"RIFF\0\0\0\0WAVEfmt ", "no data chunk")],
)
def test_non_wav_bytes_are_refused(data: bytes, message: str) -> None:
    with pytest.raises(WavError, match=message):
        fix_streamed_wav(data)


def test_tone_and_silence_have_the_asked_length() -> None:
    assert wav_duration_s(tone_wav(0.25, sample_rate=8000)) == 0.25
    assert wav_duration_s(silent_wav(0)) == 0
    with pytest.raises(ValueError, match="duration must not be negative"):
        silent_wav(-1)
    with pytest.raises(WavError, match="not a readable WAV file"):
        wav_duration_s(b"RIFF")
