"""Piper's settings: which fields hold its voices, and the options an
engine is built with (where a missing voice is downloaded from is the
speech models' source, ``stt_model_source`` / ``stt_model_base_url``)."""

from __future__ import annotations

from desktop_agent.storage.settings import Settings
from desktop_agent.voice.factory import PiperOptions
from desktop_agent.voice.piper_voices import VoiceError, language_of


def piper_options(settings: Settings) -> PiperOptions:
    return PiperOptions(
        english=settings.piper_voice_en,
        chinese=settings.piper_voice_zh,
        source=settings.stt_model_source,
        base_url=settings.stt_model_base_url,
    )


def piper_voice_setting(ref: str) -> str:
    """The field ``--tts-voice ref`` sets: ``piper_voice_zh`` for a Chinese
    voice, else ``piper_voice_en``. Raises ValueError in one line naming the
    flag (an unknown name, a file that is missing or not a voice)."""
    try:
        return "piper_voice_zh" if language_of(ref) == "zh" else "piper_voice_en"
    except VoiceError as exc:
        raise ValueError(f"--tts-voice: {exc}") from None
