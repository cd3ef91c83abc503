"""build_recognizer: an engine name (setting ``stt_engine`` or ``--stt``) to
a :class:`~desktop_agent.core.ports.SpeechRecognizer`.

The default is ``pocketsphinx``: a fresh install has no endpoint, and it
works offline for English. ``openai`` uses the chat endpoint's base URL and
key unless the settings give speech recognition its own base URL.

Not here yet: an offline Chinese/English engine (sherpa-onnx or
faster-whisper, with a model download on first use); until then Chinese
speech needs ``openai``.
"""

from __future__ import annotations

from desktop_agent.core.ports import SpeechRecognizer, STTError
from desktop_agent.voice.stt.openai_stt import DEFAULT_STT_MODEL, OpenAIRecognizer
from desktop_agent.voice.stt.sphinx import PocketsphinxRecognizer

STT_ENGINE_NAMES = ("pocketsphinx", "openai")


def build_recognizer(
    name: str,
    *,
    base_url: str = "",
    api_key: str = "",
    model: str = "",
    answers: bool = False,
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
        return OpenAIRecognizer(base_url, api_key=api_key, model=model or DEFAULT_STT_MODEL)
    raise STTError(f"speech recognition engine must be one of {', '.join(STT_ENGINE_NAMES)}, got {name!r}")
