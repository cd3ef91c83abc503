"""build_recognizer: an engine name (setting ``stt_engine`` or ``--stt``) to
a :class:`~desktop_agent.core.ports.SpeechRecognizer`.

The default is ``pocketsphinx``: a fresh install has no endpoint, and it
works offline for English. ``openai`` uses the chat endpoint's base URL and
key unless the settings give speech recognition its own base URL.
``sensevoice`` is offline Chinese and English; its model is downloaded the
first time it is needed (from ``model_base_url`` when given), with progress
told to ``on_progress``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from desktop_agent.core.ports import SpeechRecognizer, STTError
from desktop_agent.voice.stt.models import DownloadProgress, ModelStore
from desktop_agent.voice.stt.sensevoice import SenseVoiceRecognizer
from desktop_agent.voice.stt.sphinx import PocketsphinxRecognizer

STT_ENGINE_NAMES = ("pocketsphinx", "openai", "sensevoice")


def build_recognizer(
    name: str,
    *,
    base_url: str = "",
    api_key: str = "",
    model: str = "",
    answers: bool = False,
    model_base_url: str = "",
    model_store: ModelStore | None = None,
    model_dir: str = "",
    on_progress: Callable[[DownloadProgress], None] | None = None,
) -> SpeechRecognizer:
    """``answers``: the recognizer hears approval answers (yes/no). For
    pocketsphinx that is its grammar mode; a whisper endpoint hears them as
    well as anything. ``base_url``/``api_key``: already resolved (own setting
    first, then the chat endpoint's). Raises :class:`STTError` in one line."""
    if name == "pocketsphinx":
        return PocketsphinxRecognizer("answer" if answers else "dictation")
    if name == "openai":
        if not base_url:
            raise STTError(
                "speech recognition 'openai' needs an endpoint: set a base URL (--base-url or Settings)"
            )
        # Here, not at the top: only this engine needs the openai SDK (~50 MiB).
        from desktop_agent.voice.stt.openai_stt import DEFAULT_STT_MODEL, OpenAIRecognizer

        return OpenAIRecognizer(base_url, api_key=api_key, model=model or DEFAULT_STT_MODEL)
    if name == "sensevoice":
        if model_base_url and not model_base_url.startswith(("http://", "https://")):
            raise STTError(f"the speech model's download address must start with http:// or https://, "
                           f"got {model_base_url!r}")
        return SenseVoiceRecognizer(model_store, base_url=model_base_url, on_progress=on_progress,
                                    model_dir=Path(model_dir).expanduser() if model_dir else None)
    raise STTError(f"speech recognition engine must be one of {', '.join(STT_ENGINE_NAMES)}, got {name!r}")
