"""espeak-ng adapter: offline, robotic, always there (Debian ``espeak-ng``).

The text goes to the subprocess on stdin, never on the command line, so a
segment starting with ``-`` cannot be read as an option and long segments
hit no argument limit. The WAV that ``--stdout`` writes has placeholder
sizes; :func:`~desktop_agent.voice.wav.fix_streamed_wav` repairs them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from desktop_agent.core.ports import Speech, TTSError
from desktop_agent.voice.edge import check_percent
from desktop_agent.voice.text import is_chinese, one_line
from desktop_agent.voice.wav import WAV_HEADER_MIN, WavError, fix_streamed_wav

log = logging.getLogger(__name__)

CHINESE_VOICE = "cmn"
ENGLISH_VOICE = "en"
MIME = "audio/wav"
DEFAULT_WPM = 175
"""espeak-ng's own default speed (words per minute)."""
DEFAULT_AMPLITUDE = 100


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

    async def synthesize(self, text: str) -> Speech:
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
        try:
            stdout, stderr = await process.communicate(text.encode("utf-8"))
        finally:
            if process.returncode is None:  # cancelled (timeout or interrupt): leave no process behind
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
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
