"""Speech input: recognisers behind core's ``SpeechRecognizer`` port —
``whisper`` (offline Chinese and English, faster-whisper), ``sensevoice``
(offline Chinese and English, sherpa-onnx), ``pocketsphinx`` (offline
English, a yes/no grammar for approvals) and ``openai``
(``/audio/transcriptions``) — the models they download, what stands in when
a download fails (:mod:`.fallback`), and the audio they take.

Microphone capture and voice activity detection are elsewhere
(:mod:`desktop_agent.voice.vad`, the window); this package only recognises.
"""

from typing import TYPE_CHECKING, Any

from desktop_agent.voice.stt.audio import pcm_to_wav, read_speech_wav
from desktop_agent.voice.stt.factory import STT_ENGINE_NAMES, build_recognizer, resolve_engine
from desktop_agent.voice.stt.sphinx import ANSWER_WORDS, PocketsphinxRecognizer

if TYPE_CHECKING:
    from desktop_agent.voice.stt.openai_stt import DEFAULT_STT_MODEL, OpenAIRecognizer
    from desktop_agent.voice.stt.whisper import WhisperRecognizer

__all__ = [
    "ANSWER_WORDS",
    "DEFAULT_STT_MODEL",
    "STT_ENGINE_NAMES",
    "OpenAIRecognizer",
    "PocketsphinxRecognizer",
    "WhisperRecognizer",
    "build_recognizer",
    "pcm_to_wav",
    "read_speech_wav",
    "resolve_engine",
]


def __getattr__(name: str) -> Any:
    """The ``openai`` recogniser's names, imported when first asked for: the
    openai SDK costs ~50 MiB of an idle window that does not use it."""
    if name in ("DEFAULT_STT_MODEL", "OpenAIRecognizer"):
        from desktop_agent.voice.stt import openai_stt

        return getattr(openai_stt, name)
    if name == "WhisperRecognizer":  # its module, when first asked for (an idle window may not need it)
        from desktop_agent.voice.stt.whisper import WhisperRecognizer

        return WhisperRecognizer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
