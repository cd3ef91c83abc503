"""Offline Chinese and English recognition: SenseVoice Small (int8) run by
sherpa-onnx, its model downloaded on first use (:mod:`.models`).

Why this engine: one model hears Chinese, English, Japanese,
Korean and Cantonese with no language setting; it is non-autoregressive, so
an utterance costs one pass of the network (no decoding loop that can run
on or repeat itself, as whisper's can on silence); the int8 model is 240 MB
and sherpa-onnx's wheels (about 42 MB installed, no PyTorch) exist for
Linux, macOS and Windows on x86-64 and ARM. faster-whisper needs
CTranslate2 plus a tokenizer stack and, at a comparable size (``base``),
is weaker in Chinese; a streaming zipformer would give partial results but
is bilingual only with a larger pair of models.

Loading the model and decoding are blocking C++ calls: they run in a worker
thread, one utterance at a time per recognizer. The model is loaded once,
on the first utterance (or :meth:`SenseVoiceRecognizer.prepare`).
"""

from __future__ import annotations

import array
import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop_agent.core.ports import STTError
from desktop_agent.voice.pcm import RATE
from desktop_agent.voice.stt.model_fetch import ModelFetch
from desktop_agent.voice.stt.model_spec import ModelSpec
from desktop_agent.voice.stt.models import SENSEVOICE, DownloadProgress, ModelStore
from desktop_agent.voice.stt.sources import ModelSource

if TYPE_CHECKING:
    ProgressCallback = Callable[[DownloadProgress], None]

MODEL_FILE = "model.int8.onnx"
TOKENS_FILE = "tokens.txt"
_SCALE = 1.0 / 32768.0


class SenseVoiceRecognizer(ModelFetch):
    """The :class:`~desktop_agent.core.ports.SpeechRecognizer` for
    SenseVoice. The model is downloaded into ``store`` from ``source`` on
    first use (:class:`~.model_fetch.ModelFetch` says what is told of it).
    ``model_dir``: a model already on disk (the unpacked archive that
    sherpa-onnx publishes), used as it is: nothing is downloaded."""

    def __init__(
        self,
        store: ModelStore | None = None,
        spec: ModelSpec = SENSEVOICE,
        *,
        source: ModelSource | None = None,
        on_progress: ProgressCallback | None = None,
        threads: int = 2,
        model_dir: Path | None = None,
    ) -> None:
        super().__init__(store, spec, source=source, model_dir=model_dir, on_progress=on_progress)
        self._threads = threads
        self._recognizer: Any = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return "sensevoice"

    def folder_problem(self, folder: Path) -> str | None:
        if model_file(folder) is None:
            return f"no SenseVoice model in {folder}: it needs {MODEL_FILE} (or model.onnx) and {TOKENS_FILE}"
        return None

    async def prepare(self) -> None:
        """Download the model if missing and load it, so the first utterance
        is not the slow one. Raises :class:`STTError`."""
        await asyncio.to_thread(self._loaded, await self.fetch())

    async def transcribe(self, pcm16: bytes, sample_rate: int = RATE) -> str:
        return await asyncio.to_thread(self._decode, await self.fetch(), pcm16, sample_rate)

    def _decode(self, folder: Path, pcm16: bytes, sample_rate: int) -> str:
        samples = array.array("h")
        samples.frombytes(pcm16[: len(pcm16) - len(pcm16) % 2])
        if not samples:
            return ""
        recognizer = self._loaded(folder)
        with self._lock:
            try:
                stream = recognizer.create_stream()
                stream.accept_waveform(sample_rate, [s * _SCALE for s in samples])
                recognizer.decode_stream(stream)
            except RuntimeError as exc:
                raise STTError(f"SenseVoice could not decode the audio: {exc}") from exc
            return " ".join(str(stream.result.text).split())

    def _loaded(self, folder: Path) -> Any:
        with self._lock:
            if self._recognizer is None:
                self._recognizer = _load(folder, self._threads)
            return self._recognizer


def model_file(folder: Path) -> Path | None:
    """The folder's model (the int8 one first), when it has its tokens too."""
    if not (folder / TOKENS_FILE).is_file():
        return None
    return next((folder / n for n in (MODEL_FILE, "model.onnx") if (folder / n).is_file()), None)


def _load(folder: Path, threads: int) -> Any:
    try:
        import sherpa_onnx
    except (ImportError, OSError) as exc:
        raise STTError(f"the SenseVoice engine needs the sherpa-onnx package, which is not usable: {exc}") from exc
    try:
        return sherpa_onnx.OfflineRecognizer.from_sense_voice(
            model=str(model_file(folder) or folder / MODEL_FILE),
            tokens=str(folder / TOKENS_FILE),
            num_threads=threads,
            use_itn=True,
            language="auto",
        )
    except (RuntimeError, ValueError) as exc:
        reason = " ".join(str(exc).split())
        raise STTError(f"could not load the SenseVoice model in {folder}: {reason}") from exc
