"""make_engine: the settings' ``tts_engine`` name to an engine.

edge-tts gets a total timeout well below the pipeline's per-segment timeout
(15 s) so that, in ``auto``, a stalled network still leaves time for the
espeak-ng fallback to speak the same segment.
"""

from __future__ import annotations

from collections.abc import Callable

from desktop_agent.core.ports import TTSEngine
from desktop_agent.voice.auto import AutoEngine, SpeechNotice
from desktop_agent.voice.edge import EdgeTTSEngine
from desktop_agent.voice.espeak import EspeakEngine
from desktop_agent.voice.silent import SilentEngine

ENGINE_NAMES = ("auto", "edge", "espeak", "none", "silent")
"""``silent`` is for demos and tests; the settings offer the first four."""
EDGE_CONNECT_TIMEOUT_S = 4.0
EDGE_TOTAL_TIMEOUT_S = 10.0


def make_engine(
    name: str,
    *,
    voice: str = "",
    rate: str = "+0%",
    volume: str = "+0%",
    on_notice: Callable[[SpeechNotice], None] = lambda _kind: None,
) -> TTSEngine | None:
    """Build the engine called ``name``; ``none`` gives None (no audio
    messages at all); ``on_notice`` hears ``auto``'s fallback (see
    :mod:`desktop_agent.voice.auto`). Raises ValueError naming the bad value."""
    if name == "none":
        return None
    if name == "silent":
        return SilentEngine()
    if name == "espeak":
        return EspeakEngine(rate=rate, volume=volume)
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
        return AutoEngine(edge, EspeakEngine(rate=rate, volume=volume), on_notice)
    raise ValueError(f"speech engine must be one of {', '.join(ENGINE_NAMES)}, got {name!r}")
