"""edge-tts adapter: Microsoft's online neural voices, streamed as MP3.

Offline, edge-tts fails at once (DNS); on a stalled network it can hang past
its own connect/receive timeouts (seen here), so every call is also
wrapped in ``asyncio.timeout``. Everything it raises becomes a one-line
:class:`TTSError`; cancellation passes through untouched.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import AsyncGenerator, Callable, Mapping
from typing import Any, Protocol

from desktop_agent.core.ports import Speech, TTSError
from desktop_agent.voice.text import is_chinese, one_line

log = logging.getLogger(__name__)

CHINESE_VOICE = "zh-CN-XiaoxiaoNeural"
ENGLISH_VOICE = "en-US-AriaNeural"
MIME = "audio/mpeg"
_PERCENT = re.compile(r"^[+-]\d+%$")


class Communicator(Protocol):
    """The part of ``edge_tts.Communicate`` this adapter uses."""

    def stream(self) -> AsyncGenerator[Mapping[str, Any], None]: ...


CommunicateFactory = Callable[..., Communicator]


def pick_edge_voice(text: str) -> str:
    """The default voice for a segment when the settings name none."""
    return CHINESE_VOICE if is_chinese(text) else ENGLISH_VOICE


def check_percent(what: str, value: str) -> str:
    """Validate an edge-tts style adjustment such as ``+10%``."""
    if not isinstance(value, str) or not _PERCENT.match(value):
        raise ValueError(f"speech {what} must look like +10% or -5%, got {value!r}")
    return value


class EdgeTTSEngine:
    """:class:`~desktop_agent.core.ports.TTSEngine` over edge-tts.

    ``voice`` empty picks :data:`CHINESE_VOICE` or :data:`ENGLISH_VOICE` per
    segment. ``communicate_factory`` is ``edge_tts.Communicate`` (the
    default, imported at the first synthesis: edge-tts and aiohttp are not
    worth their memory in a window that never speaks online) or
    a fake with the same call shape.
    """

    def __init__(
        self,
        voice: str = "",
        rate: str = "+0%",
        volume: str = "+0%",
        connect_timeout_s: float = 5,
        total_timeout_s: float = 20,
        communicate_factory: CommunicateFactory | None = None,
    ) -> None:
        if connect_timeout_s <= 0 or total_timeout_s <= 0:
            raise ValueError("edge-tts timeouts must be positive")
        self._voice = voice.strip()
        self._rate = check_percent("rate", rate)
        self._volume = check_percent("volume", volume)
        self._connect_timeout_s = connect_timeout_s
        self._total_timeout_s = total_timeout_s
        self._factory = communicate_factory

    @property
    def name(self) -> str:
        return "edge"

    @property
    def cache_key(self) -> str:
        """Identifies the sound this engine makes (see SpeechCache)."""
        return f"edge:{self._voice}:{self._rate}:{self._volume}"

    def voice_for(self, text: str) -> str:
        return self._voice or pick_edge_voice(text)

    async def synthesize(self, text: str) -> Speech:
        voice = self.voice_for(text)
        chunks: list[bytes] = []
        deadline = asyncio.timeout(self._total_timeout_s)
        try:
            async with deadline:
                # In a worker thread: importing edge-tts (aiohttp) would hold the window ~0.2 s.
                factory = self._factory
                if factory is None:
                    factory = self._factory = await asyncio.to_thread(_edge_communicate)
                communicate = factory(
                    text,
                    voice,
                    rate=self._rate,
                    volume=self._volume,
                    connect_timeout=max(1, round(self._connect_timeout_s)),
                    receive_timeout=max(1, round(self._total_timeout_s)),
                )
                async with contextlib.aclosing(communicate.stream()) as stream:
                    async for chunk in stream:
                        if chunk.get("type") == "audio" and chunk.get("data"):
                            chunks.append(bytes(chunk["data"]))
        except TimeoutError as exc:
            if deadline.expired():
                raise TTSError(f"edge-tts timed out after {self._total_timeout_s:g} s") from None
            raise TTSError(one_line(f"edge-tts timed out: {exc}")) from exc
        except Exception as exc:
            log.debug("edge-tts failed", exc_info=True)
            raise TTSError(one_line(f"edge-tts failed: {type(exc).__name__}: {exc}")) from exc
        if not chunks:
            raise TTSError("edge-tts returned no audio")
        return Speech(audio=b"".join(chunks), mime=MIME, engine=self.name)


def _edge_communicate() -> CommunicateFactory:
    import edge_tts

    return edge_tts.Communicate
