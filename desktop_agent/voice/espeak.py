"""espeak-ng adapter: offline, robotic, always there (Debian ``espeak-ng``).

The text goes to the subprocess on stdin, never on the command line, so a
segment starting with ``-`` cannot be read as an option and long segments
hit no argument limit. The WAV that ``--stdout`` writes has placeholder
sizes; :func:`~desktop_agent.voice.wav.fix_streamed_wav` repairs them.

:meth:`EspeakEngine.open_stream` reads the same output as it is written:
the 44-byte header first (its sizes are placeholders, its sample rate is
real: 22,050 Hz), then raw 16-bit mono PCM, fed to a
:class:`~desktop_agent.core.speech_stream.SpeechStream` chunk by chunk, so
playback starts before synthesis of a long segment ends (speech starts
sooner).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import struct

from desktop_agent.core.ports import Speech, TTSError
from desktop_agent.core.speech_stream import SpeechStream
from desktop_agent.voice.edge import check_percent
from desktop_agent.voice.text import is_chinese, one_line
from desktop_agent.voice.wav import WAV_HEADER_MIN, WavError, fix_streamed_wav

log = logging.getLogger(__name__)

CHINESE_VOICE = "cmn-latn-pinyin"
"""Mandarin. Not ``cmn``: in espeak-ng 1.51 (Debian 12) that voice reads each
character's pinyin with English rules ("现在" comes out ``(en)z,aI55@55n``,
"zian"); ``cmn-latn-pinyin`` reads the same characters as Mandarin syllables
with their tones (``S;'iE51n ts'ai51``). Both name the same language (zh)."""
ENGLISH_VOICE = "en"
MIME = "audio/wav"
DEFAULT_WPM = 175
"""espeak-ng's own default speed (words per minute)."""
DEFAULT_AMPLITUDE = 100
READ_SIZE = 4096
"""Bytes per read of the PCM stream (~93 ms of 22,050 Hz speech): a pipe
read returns what is there, so the first chunk is as small as espeak-ng's
first write."""


def _scaled(base: int, percent: str, low: int, high: int) -> int:
    return max(low, min(high, round(base * (1 + int(percent[:-1]) / 100))))


class EspeakEngine:
    """:class:`~desktop_agent.core.ports.TTSEngine` over the espeak-ng CLI.

    ``rate`` and ``volume`` take the same ``+10%`` form as edge-tts (so the
    fallback honours the user's settings) and scale espeak-ng's ``-s`` speed
    and ``-a`` amplitude.
    """

    def __init__(self, executable: str = "espeak-ng", *, rate: str = "+0%", volume: str = "+0%") -> None:
        if not executable:
            raise ValueError("espeak-ng executable must not be empty")
        self._executable = executable
        self._rate = check_percent("rate", rate)
        self._volume = check_percent("volume", volume)
        self._pumps: set[asyncio.Task[None]] = set()
        """Streams being read (a reference, so they are not collected)."""

    @property
    def name(self) -> str:
        return "espeak"

    @property
    def cache_key(self) -> str:
        return f"espeak:{self._rate}:{self._volume}"

    def voice_for(self, text: str) -> str:
        return CHINESE_VOICE if is_chinese(text) else ENGLISH_VOICE

    def command(self, text: str) -> list[str]:
        """The command line for one segment (the text itself goes on stdin)."""
        return [
            self._executable,
            "-v",
            self.voice_for(text),
            "-s",
            str(_scaled(DEFAULT_WPM, self._rate, 80, 450)),
            "-a",
            str(_scaled(DEFAULT_AMPLITUDE, self._volume, 0, 200)),
            "--stdout",
        ]

    async def _start(self, text: str) -> asyncio.subprocess.Process:
        argv = self.command(text)
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
        except FileNotFoundError:
            raise TTSError(
                f"{self._executable} not found: install the espeak-ng package or choose another speech engine"
            ) from None
        except OSError as exc:
            raise TTSError(one_line(f"cannot run {self._executable}: {exc}")) from exc
        return process

    async def synthesize(self, text: str) -> Speech:
        process = await self._start(text)
        try:
            stdout, stderr = await process.communicate(text.encode("utf-8"))
        finally:
            if process.returncode is None:  # cancelled (timeout or interrupt): leave no process behind
                _kill(process)
                await asyncio.shield(process.wait())
        if process.returncode != 0:
            reason = stderr.decode("utf-8", "replace").strip() or "no message"
            raise TTSError(one_line(f"espeak-ng failed (exit {process.returncode}): {reason}"))
        if len(stdout) <= WAV_HEADER_MIN:
            raise TTSError("espeak-ng produced no audio")
        try:
            audio = fix_streamed_wav(stdout)
        except WavError as exc:
            raise TTSError(f"espeak-ng wrote unexpected output: {exc}") from exc
        return Speech(audio=audio, mime=MIME, engine=self.name)

    async def wait_streams(self) -> None:
        """Until every stream's process was read to its end and reaped
        (benchmarks and tests that close their loop right after)."""
        await asyncio.gather(*self._pumps, return_exceptions=True)

    async def open_stream(self, text: str) -> SpeechStream:
        """:class:`~desktop_agent.core.ports.StreamingTTSEngine`: return once
        the first PCM chunk is read; a task keeps reading into the stream."""
        process = await self._start(text)
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(text.encode("utf-8"))
            await process.stdin.drain()
            process.stdin.close()
            header = await process.stdout.readexactly(WAV_HEADER_MIN)
            first = await process.stdout.read(READ_SIZE)
        except asyncio.IncompleteReadError:
            raise TTSError(_failure(process, await _reap(process), "espeak-ng produced no audio")) from None
        except BaseException:
            await _reap(process)
            raise
        if header[:4] != b"RIFF" or header[8:12] != b"WAVE":
            await _reap(process)
            raise TTSError("espeak-ng wrote unexpected output: not a WAV stream")
        if not first:
            raise TTSError(_failure(process, await _reap(process), "espeak-ng produced no audio"))
        (rate,) = struct.unpack_from("<I", header, 24)
        stream = SpeechStream(sample_rate=rate, engine=self.name)
        stream.feed(first)
        pump = asyncio.get_running_loop().create_task(_pump(process, stream))
        self._pumps.add(pump)
        pump.add_done_callback(self._pumps.discard)

        def cancel() -> None:
            # Kill only: the pump then reads the end of the output and reaps
            # the process (a task cancelled before it first ran never would).
            _kill(process)

        stream.set_canceller(cancel)
        return stream


async def _pump(process: asyncio.subprocess.Process, stream: SpeechStream) -> None:
    """Feed the rest of espeak-ng's output; kill it if cancelled."""
    assert process.stdout is not None
    try:
        while chunk := await process.stdout.read(READ_SIZE):
            if not stream.finished:  # cancelled: drain what is left, unread
                stream.feed(chunk)
        _, stderr = await process.communicate()
        if process.returncode != 0:
            stream.finish(_failure(process, stderr, "espeak-ng failed"))
        stream.finish()
    finally:
        if process.returncode is None:
            await _reap(process)
        stream.finish("cancelled")


async def _reap(process: asyncio.subprocess.Process) -> bytes:
    """Kill if still running, then read the pipes to their end and wait, so
    that no process or pipe is left behind; what it wrote on stderr."""
    _kill(process)
    _, stderr = await asyncio.shield(process.communicate())
    return stderr or b""


def _kill(process: asyncio.subprocess.Process) -> None:
    """SIGKILL a process not yet known to have ended, by its pid.

    Not ``process.kill()``: that polls first (``waitpid(pid, WNOHANG)``), so
    a child that has just exited is reaped there, before asyncio's child
    watcher, which then reports exit status 255 instead of the real one
    (seen: "espeak-ng failed (exit 255)" for an exit 3, 12 times in 300).
    Until the watcher reaps it the pid stays the child's (a zombie keeps
    it); after that, the kill finds no process (ignored) unless the pid was
    reused in the instant before the watcher's result arrives.
    """
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, getattr(signal, "SIGKILL", signal.SIGTERM))


def _failure(process: asyncio.subprocess.Process, stderr: bytes, fallback: str) -> str:
    reason = stderr.decode("utf-8", "replace").strip()
    if process.returncode:
        return one_line(f"espeak-ng failed (exit {process.returncode}): {reason or 'no message'}")
    return one_line(reason) or fallback
