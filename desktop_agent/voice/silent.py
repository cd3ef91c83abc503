"""The silent engine: a valid WAV of silence as long as the text would take
to say.

Why not zero bytes: the playback queue paces text by its audio (a voice
segment is shown as its audio starts, and the next waits for the clip to
end), so a silent clip of speech-like length keeps the window's rhythm when
speech is unavailable or unwanted, and exercises the real player in demos
and tests. No audio at all is the ``none`` setting, which makes no engine.
"""

from __future__ import annotations

from desktop_agent.core.ports import Speech
from desktop_agent.voice.text import is_chinese
from desktop_agent.voice.wav import silent_wav

HAN_CHAR_S = 0.2
"""About five Chinese characters a second."""
OTHER_CHAR_S = 0.06
"""About fifteen Latin characters (three words) a second."""
MIN_S = 0.2
MAX_S = 10.0


def speech_duration_s(text: str) -> float:
    """How long a person would take to say ``text``, roughly, clamped."""
    total = sum(HAN_CHAR_S if is_chinese(ch) else OTHER_CHAR_S for ch in text if not ch.isspace())
    return max(MIN_S, min(MAX_S, total))


class SilentEngine:
    """:class:`~desktop_agent.core.ports.TTSEngine` producing silence."""

    def __init__(self, sample_rate: int = 8000) -> None:
        self._sample_rate = sample_rate

    @property
    def name(self) -> str:
        return "silent"

    @property
    def cache_key(self) -> str:
        return "silent"

    async def synthesize(self, text: str) -> Speech:
        audio = silent_wav(speech_duration_s(text), sample_rate=self._sample_rate)
        return Speech(audio=audio, mime="audio/wav", engine=self.name)
