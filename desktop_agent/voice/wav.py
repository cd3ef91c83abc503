"""Small WAV helpers, stdlib only.

``espeak-ng --stdout`` cannot seek back to fill in the RIFF and ``data``
sizes, so it writes 0x7ffff024/0x7ffff000 placeholders. FFmpeg (inside
QMediaPlayer) then reports a duration of hours; :func:`fix_streamed_wav`
writes the real sizes so the player knows when the clip ends.
"""

from __future__ import annotations

import io
import math
import struct
import wave

WAV_HEADER_MIN = 44


class WavError(ValueError):
    """The bytes are not a RIFF/WAVE file this module can repair."""


def fix_streamed_wav(data: bytes) -> bytes:
    """Return ``data`` with the RIFF and ``data`` chunk sizes set to what is
    actually there. Raises :class:`WavError` when it is not a WAV file."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise WavError("not a RIFF/WAVE file")
    out = bytearray(data)
    struct.pack_into("<I", out, 4, len(out) - 8)
    pos = 12
    while pos + 8 <= len(out):
        chunk_id = bytes(out[pos : pos + 4])
        (size,) = struct.unpack_from("<I", out, pos + 4)
        body = pos + 8
        if chunk_id == b"data":
            struct.pack_into("<I", out, pos + 4, len(out) - body)
            return bytes(out)
        pos = body + size + (size & 1)
    raise WavError("WAV file has no data chunk")


def wav_duration_s(data: bytes) -> float:
    """Duration of a well-formed PCM WAV file, in seconds."""
    try:
        with wave.open(io.BytesIO(data), "rb") as reader:
            return reader.getnframes() / float(reader.getframerate())
    except (wave.Error, EOFError) as exc:
        raise WavError(f"not a readable WAV file: {exc}") from exc


def pcm16_wav(pcm: bytes, sample_rate: int = 16000) -> bytes:
    """Mono 16-bit PCM as a WAV file."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(sample_rate)
        writer.writeframes(pcm)
    return buffer.getvalue()


def silent_wav(duration_s: float, *, sample_rate: int = 16000) -> bytes:
    """A mono 16-bit PCM WAV file of silence."""
    if duration_s < 0:
        raise ValueError(f"silent_wav: duration must not be negative, got {duration_s!r}")
    return pcm16_wav(b"\0\0" * round(duration_s * sample_rate), sample_rate)


def tone_wav(duration_s: float, *, frequency_hz: float = 440.0, sample_rate: int = 16000) -> bytes:
    """A mono 16-bit PCM sine tone (test clips and benchmarks)."""
    frames = round(duration_s * sample_rate)
    step = 2 * math.pi * frequency_hz / sample_rate
    samples = struct.pack(f"<{frames}h", *(int(12000 * math.sin(i * step)) for i in range(frames)))
    return pcm16_wav(samples, sample_rate)
