"""Recognition by an OpenAI-compatible ``/audio/transcriptions`` endpoint
(OpenAI's whisper-1, a local whisper server, …), through the openai SDK.

The utterance goes up as a 16 kHz mono 16-bit WAV file. Every failure
becomes one :class:`STTError` line (the endpoint's own message when it sent
one), never a traceback.
"""

from __future__ import annotations

import openai

from desktop_agent.core.ports import STTError
from desktop_agent.voice.pcm import RATE
from desktop_agent.voice.stt.audio import pcm_to_wav

DEFAULT_STT_MODEL = "whisper-1"
_NO_KEY = "not-needed"
"""The SDK insists on a key; local servers take any."""


class OpenAIRecognizer:
    """The :class:`~desktop_agent.core.ports.SpeechRecognizer` for
    ``<base_url>/audio/transcriptions``."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str = "",
        model: str = DEFAULT_STT_MODEL,
        language: str | None = None,
        timeout_s: float = 30.0,
        max_retries: int = 1,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise STTError(f"speech recognition needs an http(s) base URL, got {base_url!r}")
        self.model = model or DEFAULT_STT_MODEL
        self.language = language
        self._base_url = base_url
        self._client = openai.AsyncOpenAI(
            base_url=base_url, api_key=api_key or _NO_KEY, timeout=timeout_s, max_retries=max_retries
        )

    @property
    def name(self) -> str:
        return "openai"

    async def transcribe(self, pcm16: bytes, sample_rate: int = RATE) -> str:
        upload = ("speech.wav", pcm_to_wav(pcm16, sample_rate), "audio/wav")
        try:
            if self.language:
                result = await self._client.audio.transcriptions.create(
                    model=self.model, file=upload, language=self.language
                )
            else:
                result = await self._client.audio.transcriptions.create(model=self.model, file=upload)
        except openai.APIStatusError as exc:
            raise STTError(f"speech recognition failed: HTTP {exc.status_code}: {_one_line(exc)}") from exc
        except openai.APIConnectionError as exc:
            raise STTError(f"speech recognition failed: cannot reach {self._base_url}: {_one_line(exc)}") from exc
        except openai.OpenAIError as exc:
            raise STTError(f"speech recognition failed: {_one_line(exc)}") from exc
        text = getattr(result, "text", result if isinstance(result, str) else "")
        return " ".join(str(text).split())

    async def aclose(self) -> None:
        await self._client.close()


def _one_line(exc: openai.OpenAIError) -> str:
    body = getattr(exc, "body", None)
    message = body.get("message") if isinstance(body, dict) else None
    message = message or getattr(exc, "message", None) or str(exc) or type(exc).__name__
    line = " ".join(str(message).split())
    return line if len(line) <= 300 else line[:299] + "…"
