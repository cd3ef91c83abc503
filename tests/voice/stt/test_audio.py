"""Recordings for recognisers: espeak-ng's 22,050 Hz WAV read as 16 kHz mono
PCM; silent, unreadable and missing files are one STTError line."""

from __future__ import annotations

import io
import wave
from pathlib import Path

import pytest

from desktop_agent.core.ports import STTError
from desktop_agent.testing.spoken import HAVE_ESPEAK, espeak_wav
from desktop_agent.voice.stt import pcm_to_wav, read_speech_wav
from desktop_agent.voice.wav import silent_wav


@pytest.mark.skipif(not HAVE_ESPEAK, reason="espeak-ng is not installed")
def test_espeak_speech_is_read_at_16_khz(tmp_path: Path) -> None:
    path = espeak_wav("yes", tmp_path)
    with wave.open(str(path)) as reader:
        assert reader.getframerate() == 22050
        seconds = reader.getnframes() / 22050
    pcm = read_speech_wav(path)
    assert abs(len(pcm) / 2 / 16000 - seconds) < 0.01


def test_a_silent_recording_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "quiet.wav"
    path.write_bytes(silent_wav(1.0))
    with pytest.raises(STTError, match=r"quiet\.wav: the recording is silent$"):
        read_speech_wav(path)


def test_a_file_that_is_not_a_wav_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "text.wav"
    path.write_text("hello")
    with pytest.raises(STTError, match=r"text\.wav: not a PCM WAV file"):
        read_speech_wav(path)


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(STTError, match=r"^cannot read .*gone\.wav: No such file or directory$"):
        read_speech_wav(tmp_path / "gone.wav")


def test_pcm_becomes_a_16_bit_mono_wav() -> None:
    data = pcm_to_wav(b"\x01\x00\xff\xff" * 10)
    with wave.open(io.BytesIO(data)) as reader:
        assert (reader.getnchannels(), reader.getsampwidth(), reader.getframerate()) == (1, 2, 16000)
        assert reader.readframes(20) == b"\x01\x00\xff\xff" * 10
