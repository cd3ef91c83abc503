"""make_engine: the settings' ``tts_engine`` name to an engine.

edge-tts gets a total timeout well below the pipeline's per-segment timeout
(15 s) so that, in ``auto``, a stalled network still leaves time for an
offline engine to speak the same segment. ``auto``'s offline side is Piper
(only for a segment whose voice is on disk: it never downloads there), then
espeak-ng.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from desktop_agent.core.ports import TTSEngine
from desktop_agent.voice.auto import AutoEngine, SpeechNotice
from desktop_agent.voice.edge import EdgeTTSEngine
from desktop_agent.voice.espeak import EspeakEngine
from desktop_agent.voice.piper import PiperEngine
from desktop_agent.voice.silent import SilentEngine

ENGINE_NAMES = ("auto", "edge", "espeak", "piper", "none", "silent")
"""``silent`` is for demos and tests; the settings offer the others."""
EDGE_CONNECT_TIMEOUT_S = 4.0
EDGE_TOTAL_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class PiperOptions:
    """Piper's part of the settings: its two voices (a catalogue name or a
    ``FILE.onnx``; empty: the default) and where a missing voice comes from."""

    english: str = ""
    chinese: str = ""
    source: str = "huggingface"
    """``huggingface``, ``modelscope`` or ``custom`` (then ``base_url``)."""
    base_url: str = ""


def make_engine(
    name: str,
    *,
    voice: str = "",
    rate: str = "+0%",
    volume: str = "+0%",
    on_notice: Callable[[SpeechNotice], None] = lambda _kind: None,
    piper: PiperOptions | None = None,
) -> TTSEngine | None:
    """Build the engine called ``name``; ``none`` gives None (no audio
    messages at all); ``on_notice`` hears ``auto``'s fallback (see
    :mod:`desktop_agent.voice.auto`); ``voice`` is edge-tts's. Raises
    ValueError naming the bad value."""
    if name == "none":
        return None
    if name == "silent":
        return SilentEngine()
    if name == "espeak":
        return EspeakEngine(rate=rate, volume=volume)
    if name == "piper":
        return _piper(piper or PiperOptions(), rate, volume, download=True)
    if name in ("edge", "auto"):
        edge = EdgeTTSEngine(
            voice,
            rate,
            volume,
            connect_timeout_s=EDGE_CONNECT_TIMEOUT_S,
            total_timeout_s=EDGE_TOTAL_TIMEOUT_S,
        )
        if name == "edge":
            return edge
        offline: list[TTSEngine] = [
            _piper(piper or PiperOptions(), rate, volume, download=False),
            EspeakEngine(rate=rate, volume=volume),
        ]
        return AutoEngine(edge, offline, on_notice)
    raise ValueError(f"speech engine must be one of {', '.join(ENGINE_NAMES)}, got {name!r}")


def _piper(options: PiperOptions, rate: str, volume: str, *, download: bool) -> PiperEngine:
    return PiperEngine(
        options.english,
        options.chinese,
        rate=rate,
        volume=volume,
        download=download,
        source=options.source,
        base_url=options.base_url,
    )
