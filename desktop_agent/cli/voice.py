"""Speech input in the headless mode (DESIGN §10): ``--audio-in`` (a
recorded message) and ``--approve voice`` with ``--approval-audio`` (a
recorded answer to every approval), recognised by ``--stt`` (default: the
setting ``stt_engine``).

The recogniser's endpoint, for ``openai``: the setting ``stt_base_url``,
else the chat endpoint's (``--base-url``, the setting, ``OPENAI_BASE_URL``);
its key is the chat endpoint's (``--api-key``, the stored key,
``OPENAI_API_KEY``).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from desktop_agent.cli.model_progress import ModelProgressPrinter
from desktop_agent.core.messages import TranscriptMessage
from desktop_agent.core.ports import SpeechRecognizer, STTError
from desktop_agent.storage import secrets
from desktop_agent.storage.settings import Settings
from desktop_agent.voice.stt import build_recognizer, read_speech_wav
from desktop_agent.voice.stt.sensevoice import SenseVoiceRecognizer


class VoiceConfigError(ValueError):
    """The voice flags do not fit together; one line."""


@dataclass
class Recording:
    """A WAV file read once, recognised on demand."""

    path: Path
    pcm: bytes
    recognizer: SpeechRecognizer

    async def recognise(self) -> TranscriptMessage:
        """The final transcript. Raises :class:`STTError` in one line."""
        text = " ".join((await self.recognizer.transcribe(self.pcm)).split())
        return TranscriptMessage(text=text, final=True, engine=self.recognizer.name)

    async def aclose(self) -> None:
        close = getattr(self.recognizer, "aclose", None)
        if close is not None:
            await close()


def check_flags(args: argparse.Namespace) -> None:
    """Raises :class:`VoiceConfigError` for flags that do not fit together."""
    if args.approve == "voice" and args.approval_audio is None:
        raise VoiceConfigError("--approve voice needs --approval-audio FILE.wav")
    if args.approval_audio is not None and args.approve != "voice":
        raise VoiceConfigError("--approval-audio is only used with --approve voice")
    if args.audio_in is not None and args.prompt is not None:
        raise VoiceConfigError("use either --prompt or --audio-in, not both")


def recording(
    args: argparse.Namespace, settings: Settings, path: Path, *, answers: bool, share: Recording | None = None
) -> Recording:
    """Read ``path`` and build its recogniser. Raises :class:`STTError` in one
    line (an unreadable or silent file, an unknown engine, no endpoint).
    ``share``: a recording whose SenseVoice recogniser is reused (one model
    in memory, not two)."""
    pcm = read_speech_wav(path)
    if share is not None and isinstance(share.recognizer, SenseVoiceRecognizer):
        return Recording(path, pcm, share.recognizer)
    base_url = settings.stt_base_url or _first(args.base_url, settings.base_url, os.environ.get("OPENAI_BASE_URL"))
    api_key = _first(args.api_key, secrets.get_api_key(), os.environ.get("OPENAI_API_KEY"))
    recognizer = build_recognizer(
        args.stt or settings.stt_engine,
        base_url=base_url,
        api_key=api_key,
        model=args.stt_model or settings.stt_model,
        answers=answers,
        model_base_url=settings.stt_model_base_url,
        model_dir=settings.stt_model_dir,
    )
    return Recording(path, pcm, recognizer)


def report_downloads(recordings: Iterable[Recording | None], err: IO[str]) -> None:
    """A SenseVoice model not on disk yet is downloaded at the first
    recognition: its progress goes to ``err`` (one line rewritten on a
    terminal, a line per 10 % otherwise)."""
    for rec in recordings:
        recognizer = rec.recognizer if rec is not None else None
        if isinstance(recognizer, SenseVoiceRecognizer) and not recognizer.ready and recognizer.on_progress is None:
            printer = ModelProgressPrinter(err, recognizer.model_folder)
            recognizer.on_progress = printer
            recognizer.on_failure = lambda _why, printer=printer: printer.end_line()  # the error follows


async def recognise_message(rec: Recording) -> TranscriptMessage:
    """``--audio-in``: the transcript, which must hold words."""
    transcript = await rec.recognise()
    if not transcript.text:
        raise STTError(f"{rec.path}: no speech was recognised")
    return transcript


def _first(*values: str | None) -> str:
    for value in values:
        if value and value.strip():
            return value.strip()
    return ""
