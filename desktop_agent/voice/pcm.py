"""16-bit PCM helpers for speech input, stdlib only (``audioop`` is gone in
3.13): read a WAV file as mono 16 kHz, and turn what a microphone offers
(any rate, channels, 8/16/32-bit or float samples) into that.

Recognisers and the VAD take 16 kHz mono 16-bit PCM (``core.ports.AudioInput``);
espeak-ng writes 22,050 Hz and sound cards prefer 44.1/48 kHz.
"""

from __future__ import annotations

import array
import struct
import sys
import wave
from pathlib import Path
from typing import Literal

RATE = 16000
"""The sample rate every speech-input port speaks."""

SampleKind = Literal["uint8", "int16", "int32", "float"]


def _samples(data: bytes, kind: SampleKind) -> array.array[int]:
    """Signed 16-bit samples from raw little-endian ``data`` of ``kind``."""
    if kind == "int16":
        out = array.array("h")
        out.frombytes(data[: len(data) - len(data) % 2])
        if sys.byteorder == "big":
            out.byteswap()
        return out
    if kind == "uint8":
        return array.array("h", ((b - 128) << 8 for b in data))
    if kind == "int32":
        count = len(data) // 4
        return array.array("h", (v >> 16 for v in struct.unpack(f"<{count}i", data[: count * 4])))
    count = len(data) // 4
    values = struct.unpack(f"<{count}f", data[: count * 4])
    return array.array("h", (max(-32768, min(32767, int(v * 32767))) for v in values))


def to_mono16(data: bytes, kind: SampleKind, channels: int) -> array.array[int]:
    """``data`` as mono signed 16-bit samples (the first channel: averaging
    costs a Python loop per sample and a microphone's channels are alike)."""
    samples = _samples(data, kind)
    if channels > 1:
        samples = samples[0 : len(samples) - len(samples) % channels : channels]
    return samples


class Resampler:
    """Linear-interpolation resampler that keeps its place across chunks,
    so a stream cut into frames resamples as one piece."""

    def __init__(self, source_rate: int, target_rate: int = RATE) -> None:
        if source_rate <= 0 or target_rate <= 0:
            raise ValueError(f"sample rates must be positive, got {source_rate} → {target_rate}")
        self._step = source_rate / target_rate
        self._pos = 0.0
        """Where the next output sample lies, in input samples from the start of the pending input."""
        self._last: int | None = None
        """The previous chunk's last sample (index -1 of the next chunk)."""

    def feed(self, samples: array.array[int]) -> array.array[int]:
        if self._step == 1.0:
            return samples
        source = array.array("h", [self._last]) + samples if self._last is not None else samples
        offset = 1 if self._last is not None else 0
        out = array.array("h")
        pos = self._pos + offset
        end = len(source) - 1
        while pos <= end:
            index = int(pos)
            frac = pos - index
            a = source[index]
            b = source[index + 1] if index < end else a
            out.append(int(a + (b - a) * frac))
            pos += self._step
        if len(source):
            self._last = source[-1]
            self._pos = pos - len(source)
        return out


def resample16(samples: array.array[int], source_rate: int, target_rate: int = RATE) -> array.array[int]:
    return Resampler(source_rate, target_rate).feed(samples)


def read_wav16(path: str | Path) -> bytes:
    """A PCM WAV file as 16 kHz mono 16-bit PCM bytes. Raises
    :class:`ValueError` when it is not one."""
    try:
        with wave.open(str(path), "rb") as reader:
            width, channels, rate = reader.getsampwidth(), reader.getnchannels(), reader.getframerate()
            data = reader.readframes(reader.getnframes())
    except (wave.Error, EOFError) as exc:
        raise ValueError(f"{path}: not a PCM WAV file ({exc})") from exc
    kinds: dict[int, SampleKind] = {1: "uint8", 2: "int16", 4: "int32"}
    if width not in kinds:
        raise ValueError(f"{path}: {8 * width}-bit samples are not supported")
    return resample16(to_mono16(data, kinds[width], channels), rate).tobytes()


def silence16(duration_s: float) -> bytes:
    """``duration_s`` of 16 kHz 16-bit silence."""
    return bytes(2 * round(duration_s * RATE))
