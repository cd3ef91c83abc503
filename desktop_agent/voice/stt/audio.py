"""Speech-input audio for recognisers: a WAV file read as 16 kHz mono 16-bit
PCM (:func:`desktop_agent.voice.pcm.read_wav16` does the resampling: espeak-ng
writes 22,050 Hz), a silent recording told apart from speech, and PCM wrapped
as a WAV upload."""

from __future__ import annotations

import array
import sys
from pathlib import Path

from desktop_agent.core.ports import STTError
from desktop_agent.voice.pcm import RATE, read_wav16
from desktop_agent.voice.wav import pcm16_wav

SILENCE_PEAK = 300
"""Peak sample magnitude below which a recording holds nothing to recognise
(about -40 dBFS; a quiet room through a cheap microphone stays under it)."""


def peak(pcm16: bytes) -> int:
    samples = array.array("h")
    samples.frombytes(pcm16[: len(pcm16) - len(pcm16) % 2])
    if sys.byteorder == "big":
        samples.byteswap()
    return max((abs(s) for s in samples), default=0)


def read_speech_wav(path: str | Path) -> bytes:
    """The file as 16 kHz mono PCM. Raises :class:`STTError` with one line
    when it cannot be read or holds only silence."""
    try:
        pcm = read_wav16(path)
    except OSError as exc:
        raise STTError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise STTError(str(exc)) from exc
    if peak(pcm) < SILENCE_PEAK:
        raise STTError(f"{path}: the recording is silent")
    return pcm


def pcm_to_wav(pcm16: bytes, sample_rate: int = RATE) -> bytes:
    """Mono 16-bit PCM as a WAV file (what ``/audio/transcriptions`` takes)."""
    return pcm16_wav(pcm16, sample_rate)
