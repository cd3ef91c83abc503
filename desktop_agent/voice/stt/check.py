"""``--self-test``'s speech recognition line: is each offline engine's code
here (a bundle that lost CTranslate2, OpenCC, sherpa-onnx or pocketsphinx
fails here, not at the first utterance), and is its model? An engine whose
model is on disk hears half a second of silence (Whisper must give "" —
its VAD is in the bundle; pocketsphinx only has to decode it); one whose
model is not is
reported with its download size, which is not a failure.
"""

from __future__ import annotations

import asyncio
import importlib

from desktop_agent.core.ports import SpeechRecognizer, STTError
from desktop_agent.voice.stt.models import SENSEVOICE, ModelStore, default_store, format_mb
from desktop_agent.voice.stt.whisper_models import WHISPER_MODELS, present_model

LIBRARIES = {
    "whisper": ("faster_whisper", "ctranslate2", "opencc"),
    "sensevoice": ("sherpa_onnx",),
    "pocketsphinx": ("pocketsphinx",),
}
SILENCE = b"\0\0" * 8000
"""Half a second at 16 kHz."""


def stt_report(store: ModelStore | None = None) -> tuple[bool, str]:
    """(works, one line), e.g. ``whisper ready (Whisper base); sensevoice
    needs a model (228 MB); pocketsphinx ready``."""
    store = store or default_store()
    parts: list[str] = []
    for engine, modules in LIBRARIES.items():
        for module in modules:
            try:
                importlib.import_module(module)
            except (ImportError, OSError) as exc:
                return False, f"{engine}: its library {module} cannot be loaded ({exc})"
        try:
            parts.append(_engine_line(engine, store))
        except STTError as exc:
            return False, f"{engine}: {exc}"
    return True, "; ".join(parts)


def _engine_line(engine: str, store: ModelStore) -> str:
    from desktop_agent.voice.stt.factory import build_recognizer

    if engine == "whisper":
        spec = present_model(store)
        if spec is None:
            return f"whisper needs a model ({format_mb(WHISPER_MODELS['base'].total_size)} MB for base)"
        name = next(n for n, s in WHISPER_MODELS.items() if s is spec)
        _hears_silence(build_recognizer("whisper", whisper_model=name, model_store=store))
        return f"whisper ready ({spec.label})"
    if engine == "sensevoice":
        if not store.ready(SENSEVOICE):
            return f"sensevoice needs a model ({format_mb(SENSEVOICE.total_size)} MB)"
        _hears_silence(build_recognizer("sensevoice", model_store=store))
        return "sensevoice ready"
    _hears_silence(build_recognizer("pocketsphinx"), must_be_empty=False)  # it hears words in anything
    return "pocketsphinx ready (English)"


def _hears_silence(recognizer: SpeechRecognizer, *, must_be_empty: bool = True) -> None:
    async def hear() -> str:
        async with asyncio.timeout(120):
            return await recognizer.transcribe(SILENCE)

    heard = asyncio.run(hear())
    if must_be_empty and heard.strip():
        raise STTError(f"heard {heard!r} in silence")


__all__ = ["stt_report"]
