"""A scripted :class:`~desktop_agent.core.ports.SpeechRecognizer` for tests:
it answers each utterance with the next scripted text (or raises the next
scripted :class:`STTError`) and records how much audio it was given."""

from __future__ import annotations

from collections.abc import Iterable

from desktop_agent.core.ports import STTError


class ScriptedRecognizer:
    name = "scripted"

    def __init__(self, replies: Iterable[str | STTError] = ()) -> None:
        self.replies = list(replies)
        self.heard: list[int] = []
        """Bytes of PCM of each utterance transcribed."""

    async def transcribe(self, pcm16: bytes, sample_rate: int = 16000) -> str:
        self.heard.append(len(pcm16))
        reply = self.replies.pop(0) if self.replies else ""
        if isinstance(reply, STTError):
            raise reply
        return reply
