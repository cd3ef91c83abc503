"""Offline Chinese and English recognition with Whisper through
faster-whisper (CTranslate2, int8 on the CPU), its model downloaded on
first use (:mod:`.whisper_models`) or taken from a folder on disk.

Measured on this project's speech fixtures (2026-12-01): Whisper
base hears Mandarin and English, and a sentence mixing both, from one model;
beam search (5) where greedy decoding lost a quarter of the words; about
half of its Chinese comes back in traditional characters, so every result
goes through OpenCC's ``t2s`` (``tw2s`` also turns Taiwan's 著 into 着, but
turns an already simplified lone 么 into 幺: "你去么" → "你去幺", and
Whisper mixes both scripts); two seconds of silence came back as " You"
without a voice activity filter, so faster-whisper's Silero VAD cuts the
audio to its speech first and no speech means no text.

The language is detected once. faster-whisper's ``transcribe(language=None)``
runs the encoder once to detect and again to decode (each pass costs the
same ~0.5–1 CPU-s: Whisper pads every clip to 30 s). Here the first window
is encoded once, the language is read from that output (Chinese or English,
whichever the model finds likelier: this assistant speaks those two), and
:class:`_model_class`'s ``encode`` hands the same output to the decoder when
it asks for that window.

faster-whisper, CTranslate2, NumPy and OpenCC are imported in the worker
thread at the first use, never at import time: they would add ~100 MiB to
an idle window that may never hear a word. The model is loaded once (the
first utterance or :meth:`WhisperRecognizer.prepare`) and decodes one
utterance at a time.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from desktop_agent.core.ports import STTError
from desktop_agent.voice.cores import available_cores
from desktop_agent.voice.pcm import RATE, resample16, to_mono16
from desktop_agent.voice.stt.model_fetch import ModelFetch
from desktop_agent.voice.stt.model_spec import ModelSpec
from desktop_agent.voice.stt.models import DownloadProgress, ModelStore
from desktop_agent.voice.stt.sources import ModelSource
from desktop_agent.voice.stt.whisper_models import WHISPER_BASE, folder_problem

log = logging.getLogger(__name__)

BEAM_SIZE = 5
LANGUAGES = ("zh", "en")
"""The languages an utterance is heard in; the likelier one is picked."""


class WhisperRecognizer(ModelFetch):
    """The :class:`~desktop_agent.core.ports.SpeechRecognizer` for Whisper.

    ``spec``: the named model, downloaded into ``store`` from ``source`` on
    first use (:class:`~.model_fetch.ModelFetch` says what is told of it).
    ``model_dir``: a CTranslate2 Whisper folder used as it is; nothing is
    downloaded. ``threads``: default, the cores this process may use."""

    def __init__(
        self,
        store: ModelStore | None = None,
        spec: ModelSpec = WHISPER_BASE,
        *,
        source: ModelSource | None = None,
        model_dir: Path | None = None,
        on_progress: Callable[[DownloadProgress], None] | None = None,
        threads: int | None = None,
    ) -> None:
        super().__init__(store, spec, source=source, model_dir=model_dir, on_progress=on_progress)
        self._threads = threads or available_cores()
        self._model: Any = None
        self._converter: Any = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return "whisper"

    def folder_problem(self, folder: Path) -> str | None:
        return folder_problem(folder)

    async def prepare(self) -> None:
        """Download the model if missing and load it, so the first utterance
        is not the slow one. Raises :class:`STTError`."""
        await asyncio.to_thread(self._loaded, await self.fetch())

    async def transcribe(self, pcm16: bytes, sample_rate: int = RATE) -> str:
        if sample_rate != RATE:
            pcm16 = resample16(to_mono16(pcm16, "int16", 1), sample_rate).tobytes()
        return await asyncio.to_thread(self._decode, await self.fetch(), pcm16)

    def _decode(self, folder: Path, pcm16: bytes) -> str:
        model, converter = self._loaded(folder)
        with self._lock:
            try:
                text = _recognise(model, pcm16)
            except (RuntimeError, ValueError) as exc:
                raise STTError(f"Whisper could not decode the audio: {' '.join(str(exc).split())}") from exc
            return str(converter.convert(text)) if text else ""

    def _loaded(self, folder: Path) -> tuple[Any, Any]:
        with self._lock:
            if self._model is None:
                self._model, self._converter = _load(folder, self._threads)
            return self._model, self._converter


def _load(folder: Path, threads: int) -> tuple[Any, Any]:
    """The model and the traditional-to-simplified converter."""
    try:
        import opencc

        model_class = _model_class()
    except (ImportError, OSError) as exc:
        raise STTError(f"the Whisper engine needs faster-whisper and opencc, which are not usable: {exc}") from exc
    try:
        model = model_class(str(folder), device="cpu", compute_type="int8", cpu_threads=threads, num_workers=1)
    except (RuntimeError, ValueError, OSError) as exc:
        reason = " ".join(str(exc).split())
        raise STTError(f"could not load the Whisper model in {folder}: {reason}") from exc
    log.info("loaded the Whisper model in %s (%d threads)", folder, threads)
    return model, opencc.OpenCC("t2s")


def _recognise(model: Any, pcm16: bytes) -> str:
    """The utterance's text as Whisper writes it (before OpenCC)."""
    import numpy as np
    from faster_whisper.audio import pad_or_trim
    from faster_whisper.vad import VadOptions, collect_chunks, get_speech_timestamps

    audio = np.frombuffer(pcm16[: len(pcm16) - len(pcm16) % 2], dtype="<i2").astype(np.float32) / 32768.0
    if not audio.size:
        return ""
    chunks = get_speech_timestamps(audio, VadOptions())
    if not chunks:
        return ""
    audio = np.concatenate(collect_chunks(audio, chunks)[0])
    # The first 30 s window exactly as faster-whisper's decoder will cut it,
    # encoded once: the language is read from it, the decoder reuses it.
    features = model.feature_extractor(audio)
    frames = min(model.feature_extractor.nb_max_frames, features.shape[-1] - 1)
    window = pad_or_trim(features[:, :frames])
    encoded = model.encode(window)
    model.remember(window, encoded)
    try:
        probabilities = dict(model.model.detect_language(encoded)[0])
        language = max(LANGUAGES, key=lambda code: probabilities.get(f"<|{code}|>", 0.0))
        segments, _info = model.transcribe(audio, language=language, beam_size=BEAM_SIZE, vad_filter=False)
        text = "".join(segment.text for segment in segments)
    finally:
        model.remember(None, None)
    return " ".join(text.split())


_MODEL_CLASS: Any = None


def _model_class() -> Any:
    """faster-whisper's ``WhisperModel`` with an ``encode`` that returns the
    output :func:`_recognise` remembered for the same window instead of
    running the encoder again (made at the first use, when faster-whisper is
    imported)."""
    global _MODEL_CLASS
    if _MODEL_CLASS is None:
        import numpy as np
        from faster_whisper import WhisperModel

        class _EncodeOnce(WhisperModel):  # type: ignore[misc]
            _remembered: tuple[Any, Any] | None = None

            def remember(self, window: Any, encoded: Any) -> None:
                self._remembered = None if window is None else (window, encoded)

            def encode(self, features: Any) -> Any:
                remembered = self._remembered
                if remembered is not None:
                    window, encoded = remembered
                    if window.shape == features.shape and np.array_equal(window, features):
                        return encoded
                return super().encode(features)

        _MODEL_CLASS = _EncodeOnce
    return _MODEL_CLASS
