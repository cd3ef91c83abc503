"""EspeakEngine: real espeak-ng synthesis, voice choice, failures."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import struct
import subprocess
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


def test_chinese_text_gets_the_mandarin_voice_and_english_the_en_voice() -> None:
    engine = EspeakEngine()
    assert engine.command("你好，世界。") == [
        "espeak-ng", "-v", "cmn-latn-pinyin", "-s", "175", "-a", "100", "--stdout"]
    assert engine.command("Hello, world.") == ["espeak-ng", "-v", "en", "-s", "175", "-a", "100", "--stdout"]


_TONED_SYLLABLE = re.compile(r"[1-5]{2,3}")
"""espeak-ng writes a Mandarin syllable's tone as its contour digits (51, 35, 214…)."""


@needs_espeak
@pytest.mark.parametrize("text", ["现在几点了", "打开日历看看明天有什么会议。", "帮我设置一个十分钟的计时器！", "你好，世界。"])
def test_chinese_text_is_spoken_as_mandarin_with_tones(text: str) -> None:
    # The engine's own command, with -x (print the phonemes) in place of --stdout: what it would say.
    command = [arg for arg in EspeakEngine().command(text) if arg != "--stdout"] + ["-q", "-x"]
    done = subprocess.run(command, input=text, capture_output=True, text=True, timeout=20, check=True)
    phonemes = done.stdout.strip()
    assert "(en)" not in phonemes, phonemes  # no switch to English rules
    syllables = [s.strip() for s in re.split(r"_\|?|\s+", phonemes) if s.strip(" |")]
    assert syllables and all(_TONED_SYLLABLE.search(s) for s in syllables), phonemes
    assert len(syllables) >= len(re.findall(r"[\u4e00-\u9fff]", text)) // 2


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


LONG_TEXT = " ".join(
    f"Sentence number {n} of a long reply goes on for a while, so that synthesis takes some time." for n in range(20)
)


@needs_espeak
async def test_streamed_pcm_arrives_chunk_by_chunk_before_espeak_finishes() -> None:
    engine = EspeakEngine()
    async with asyncio.timeout(30):
        stream = await engine.open_stream(LONG_TEXT)
        finished_when_opened = stream.finished
        arrivals: list[tuple[int, bool]] = []
        async for chunk in stream.chunks():
            arrivals.append((len(chunk), stream.finished))
        whole = await engine.synthesize(LONG_TEXT)
    assert not finished_when_opened  # the first chunk came while espeak-ng was still speaking
    assert len(arrivals) > 10 and not arrivals[0][1]
    assert (stream.sample_rate, stream.error, stream.mime) == (22050, None, "audio/L16;rate=22050;channels=1")
    assert stream.pcm() == whole.audio[44:]  # the same samples as the whole-clip path


async def test_a_missing_executable_cannot_open_a_stream() -> None:
    with pytest.raises(TTSError, match=r"^espeak-ng-not-installed-here not found"):
        async with asyncio.timeout(5):
            await EspeakEngine("espeak-ng-not-installed-here").open_stream("hello")


async def test_a_stream_failing_before_any_audio_reports_the_exit_status(tmp_path: Path) -> None:
    script = _fake_espeak(tmp_path, "cat >/dev/null\necho 'voice not found' >&2\nexit 3")
    with pytest.raises(TTSError, match=r"^espeak-ng failed \(exit 3\): voice not found$"):
        async with asyncio.timeout(5):
            await EspeakEngine(str(script)).open_stream("hello")


async def test_the_exit_status_is_never_lost_to_the_child_watcher(tmp_path: Path) -> None:
    # The stream's clean-up used process.kill(), which reaps a child that has
    # just exited before asyncio's watcher can: the watcher then says "exit
    # 255" (about 1 start in 25). A hundred starts catch that nearly always.
    engine = EspeakEngine(str(_fake_espeak(tmp_path, "cat >/dev/null\necho 'voice not found' >&2\nexit 3")))
    messages = set()
    async with asyncio.timeout(60):
        for _ in range(100):
            with pytest.raises(TTSError) as caught:
                await engine.open_stream("hello")
            messages.add(str(caught.value))
    assert messages == {"espeak-ng failed (exit 3): voice not found"}


async def test_a_stream_that_is_not_a_wav_is_an_error(tmp_path: Path) -> None:
    script = _fake_espeak(tmp_path, "cat >/dev/null\nhead -c 100 /dev/zero")
    with pytest.raises(TTSError, match=r"^espeak-ng wrote unexpected output: not a WAV stream$"):
        async with asyncio.timeout(5):
            await EspeakEngine(str(script)).open_stream("hello")


HEADER = "RIFF\\377\\377\\377\\377WAVEfmt \\020\\0\\0\\0\\001\\0\\001\\0\\042\\126\\0\\0\\104\\254\\0\\0\\002\\0\\020\\0"
"""A 22,050 Hz mono 16-bit WAV header with espeak-ng's placeholder sizes, for printf."""


async def test_a_stream_failing_after_some_audio_keeps_it_and_reports_why(tmp_path: Path) -> None:
    body = f"cat >/dev/null\nprintf '{HEADER}data\\377\\377\\377\\377abcd'\necho 'ran out' >&2\nexit 4"
    engine = EspeakEngine(str(_fake_espeak(tmp_path, body)))
    async with asyncio.timeout(5):
        stream = await engine.open_stream("hello")
        await stream.wait_finished()
    assert (stream.pcm(), stream.error) == (b"abcd", "espeak-ng failed (exit 4): ran out")


async def test_cancelling_a_stream_kills_and_reaps_the_process(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    body = f"echo $$ > {pid_file}\ncat >/dev/null\nprintf '{HEADER}data\\377\\377\\377\\377abcd'\nexec sleep 60"
    stream = await EspeakEngine(str(_fake_espeak(tmp_path, body, "slow-espeak"))).open_stream("hello")
    pid = int(pid_file.read_text())
    assert (stream.sample_rate, stream.pcm(), stream.finished) == (22050, b"abcd", False)
    stream.cancel()
    async with asyncio.timeout(5):
        while True:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            await asyncio.sleep(0.01)
    assert stream.error == "cancelled"
