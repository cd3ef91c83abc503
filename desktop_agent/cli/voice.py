"""Speech input in the headless mode (contracts §10): ``--audio-in`` (a
recorded message) and ``--approve voice`` with ``--approval-audio`` (a
recorded answer to every approval), recognised by ``--stt`` (default: the
setting ``stt_engine``, ``auto``: Whisper when its model is here).

The recogniser's endpoint, for ``openai``: the setting ``stt_base_url``,
else the chat endpoint's (``--base-url``, the setting, ``OPENAI_BASE_URL``);
its key is the chat endpoint's (``--api-key``, the stored key,
``OPENAI_API_KEY``). ``--stt-model``: the endpoint's model for ``openai``;
for ``whisper`` (and ``auto``) ``base``, ``small`` or a model folder, which
then wins over the settings' ``stt_whisper_model`` and ``stt_model_dir``.

A model that cannot be downloaded does not lose the recording: one line
says which source failed and why, and the best engine ready now hears it
instead (:mod:`desktop_agent.voice.stt.fallback`); the transcript names it.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from desktop_agent.cli.model_progress import ModelProgressPrinter
from desktop_agent.core.messages import TranscriptMessage
from desktop_agent.core.ports import SpeechRecognizer, STTError
from desktop_agent.storage import secrets
from desktop_agent.storage.settings import Settings
from desktop_agent.voice.stt import build_recognizer, read_speech_wav
from desktop_agent.voice.stt.fallback import PREFERENCE, RecognizerChain
from desktop_agent.voice.stt.model_fetch import ModelFetch
from desktop_agent.voice.stt.models import ModelDownloadError


class VoiceConfigError(ValueError):
    """The voice flags do not fit together; one line."""


@dataclass
class Recording:
    """A WAV file read once, recognised on demand: by ``recognizer``, or by
    the first of ``stand_ins`` that can when its model cannot be
    downloaded (``say`` is told which, in one line)."""

    path: Path
    pcm: bytes
    recognizer: SpeechRecognizer
    stand_ins: list[SpeechRecognizer] = field(default_factory=list)
    say: Callable[[str], None] | None = None

    async def recognise(self) -> TranscriptMessage:
        """The final transcript. Raises :class:`STTError` in one line."""
        chain = RecognizerChain(self.recognizer, self.stand_ins, on_stand_in=self._stood_in)
        heard = await chain.recognise(self.pcm)
        return TranscriptMessage(text=" ".join(heard.text.split()), final=True, engine=heard.engine)

    def _stood_in(self, failure: ModelDownloadError, engine: str) -> None:
        if self.say is not None:
            self.say(f"warning: {failure}; recognised {self.path.name} with {engine} instead")

    async def aclose(self) -> None:
        for recognizer in (self.recognizer, *self.stand_ins):
            close = getattr(recognizer, "aclose", None)
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
    ``share``: a recording whose Whisper or SenseVoice recogniser is reused
    (one model in memory, not two)."""
    pcm = read_speech_wav(path)
    engine = args.stt or settings.stt_engine
    if share is not None and isinstance(share.recognizer, ModelFetch):
        return Recording(path, pcm, share.recognizer, _stand_ins(args, settings, share.recognizer.name, answers))
    recognizer = _build(args, settings, engine, answers=answers)
    return Recording(path, pcm, recognizer, _stand_ins(args, settings, recognizer.name, answers))


def _build(args: argparse.Namespace, settings: Settings, engine: str, *, answers: bool) -> SpeechRecognizer:
    base_url = settings.stt_base_url or _first(args.base_url, settings.base_url, os.environ.get("OPENAI_BASE_URL"))
    api_key = _first(args.api_key, secrets.get_api_key(), os.environ.get("OPENAI_API_KEY")) if engine == "openai" else ""
    # An explicit --stt-model names the Whisper model (or folder) to use, over the settings' folder.
    whisper_model = args.stt_model or settings.stt_whisper_model
    explicit_whisper = bool(args.stt_model) and engine in ("whisper", "auto")
    return build_recognizer(
        engine,
        base_url=base_url,
        api_key=api_key,
        model=args.stt_model or settings.stt_model,
        answers=answers,
        model_base_url=settings.stt_model_base_url,
        model_source=settings.stt_model_source,
        model_dir="" if explicit_whisper else settings.stt_model_dir,
        whisper_model=whisper_model,
    )


def _stand_ins(args: argparse.Namespace, settings: Settings, chosen: str, answers: bool) -> list[SpeechRecognizer]:
    """The engines that may hear a recording when ``chosen``'s model cannot
    be downloaded, best first: the offline ones whose model is here, a
    transcription endpoint when one is set for speech (``stt_base_url``),
    pocketsphinx. None is loaded until it is used."""
    if chosen in ("pocketsphinx", "openai"):
        return []  # nothing to download: nothing to stand in for
    found: list[SpeechRecognizer] = []
    for name in PREFERENCE:
        if name == chosen or (name == "openai" and not settings.stt_base_url):
            continue
        try:
            recognizer = _build(args, settings, name, answers=answers)
        except STTError:
            continue  # that engine is not set up: it cannot stand in
        if getattr(recognizer, "ready", True):
            found.append(recognizer)
    return found


def report_downloads(recordings: Iterable[Recording | None], err: IO[str]) -> None:
    """A Whisper or SenseVoice model not on disk yet is downloaded at the
    first recognition: its progress goes to ``err`` (one line rewritten on
    a terminal, a line per 10 % otherwise); a stand-in is said there too."""
    for rec in recordings:
        if rec is None:
            continue
        rec.say = lambda line: _say(err, line)
        recognizer = rec.recognizer
        if isinstance(recognizer, ModelFetch) and not recognizer.ready and recognizer.on_progress is None:
            printer = ModelProgressPrinter(err, recognizer.model_folder)
            recognizer.on_progress = printer
            recognizer.on_failure = lambda _why, printer=printer: printer.end_line()  # the error follows


async def recognise_message(rec: Recording) -> TranscriptMessage:
    """``--audio-in``: the transcript, which must hold words."""
    transcript = await rec.recognise()
    if not transcript.text:
        raise STTError(f"{rec.path}: no speech was recognised")
    return transcript


def _say(err: IO[str], line: str) -> None:
    err.write(line + "\n")
    err.flush()


def _first(*values: str | None) -> str:
    for value in values:
        if value and value.strip():
            return value.strip()
    return ""
