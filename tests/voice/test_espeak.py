"""EspeakEngine: real espeak-ng synthesis, voice choice, failures."""

from __future__ import annotations

import asyncio
import os
import shutil
import struct
import wave
from io import BytesIO
from pathlib import Path

import pytest

from desktop_agent.core.ports import TTSError
from desktop_agent.voice import EspeakEngine

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")


def read_wav(audio: bytes) -> tuple[int, int, int, int]:
    with wave.open(BytesIO(audio), "rb") as reader:
        return reader.getnchannels(), reader.getsampwidth(), reader.getframerate(), reader.getnframes()


def test_chinese_text_gets_the_cmn_voice_and_english_the_en_voice() -> None:
    engine = EspeakEngine()
    assert engine.command("你好，世界。") == ["espeak-ng", "-v", "cmn", "-s", "175", "-a", "100", "--stdout"]
    assert engine.command("Hello, world.") == ["espeak-ng", "-v", "en", "-s", "175", "-a", "100", "--stdout"]


def test_rate_and_volume_scale_speed_and_amplitude() -> None:
    engine = EspeakEngine("/opt/espeak-ng", rate="+20%", volume="-50%")
    assert engine.command("hi") == ["/opt/espeak-ng", "-v", "en", "-s", "210", "-a", "50", "--stdout"]


@needs_espeak
@pytest.mark.parametrize(
    ("text", "min_seconds"),
    [("你好，今天天气很好，我们出去走走吧。", 1.5), ("Hello, the weather is fine today.", 1.0)],
)
async def test_real_synthesis_gives_a_valid_wav_with_true_sizes(text: str, min_seconds: float) -> None:
    async with asyncio.timeout(20):
        speech = await EspeakEngine().synthesize(text)
    channels, width, rate, frames = read_wav(speech.audio)
    assert (speech.mime, speech.engine, channels, width, rate) == ("audio/wav", "espeak", 1, 2, 22050)
    assert frames / rate >= min_seconds
    riff_size, data_size = (
        struct.unpack_from("<I", speech.audio, 4)[0],
        struct.unpack_from("<I", speech.audio, 40)[0],
    )
    assert (riff_size, data_size) == (len(speech.audio) - 8, len(speech.audio) - 44)
    assert frames == data_size // 2


@needs_espeak
async def test_text_starting_with_a_dash_is_spoken_not_parsed_as_an_option() -> None:
    async with asyncio.timeout(20):
        speech = await EspeakEngine().synthesize("--version is not an option here")
    assert read_wav(speech.audio)[3] > 22050


async def test_a_missing_executable_is_a_clear_tts_error() -> None:
    engine = EspeakEngine("espeak-ng-not-installed-here")
    with pytest.raises(
        TTSError, match=r"^espeak-ng-not-installed-here not found: install the espeak-ng package"
    ):
        async with asyncio.timeout(5):
            await engine.synthesize("hello")


def _fake_espeak(tmp_path: Path, body: str, name: str = "fake-espeak") -> Path:
    """An executable shell script standing in for espeak-ng."""
    script = tmp_path / name
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(0o755)
    return script


async def test_a_failing_executable_reports_its_exit_status_and_message(tmp_path: Path) -> None:
    script = _fake_espeak(tmp_path, "echo 'voice not found' >&2\nexit 3")
    with pytest.raises(TTSError, match=r"^espeak-ng failed \(exit 3\): voice not found$"):
        async with asyncio.timeout(5):
            await EspeakEngine(str(script)).synthesize("hello")


async def test_output_that_is_not_a_wav_is_an_error(tmp_path: Path) -> None:
    script = _fake_espeak(tmp_path, "cat >/dev/null\nhead -c 100 /dev/zero")
    with pytest.raises(TTSError, match=r"^espeak-ng wrote unexpected output: not a RIFF/WAVE file$"):
        async with asyncio.timeout(5):
            await EspeakEngine(str(script)).synthesize("hello")


async def test_cancelled_synthesis_kills_and_reaps_the_process(tmp_path: Path) -> None:
    pid_fifo = tmp_path / "pid"
    os.mkfifo(pid_fifo)
    script = _fake_espeak(tmp_path, f"echo $$ > {pid_fifo}\nexec sleep 60", "slow-espeak")
    task = asyncio.get_running_loop().create_task(EspeakEngine(str(script)).synthesize("hello"))
    async with asyncio.timeout(5):
        pid = int(await asyncio.to_thread(pid_fifo.read_text))  # returns once the script is running
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
