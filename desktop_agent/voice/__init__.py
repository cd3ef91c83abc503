"""Speech: TTS engines (edge-tts online, espeak-ng offline, silent), the
``auto`` fallback between them, and the pipeline that synthesises a turn's
voice segments concurrently and pushes their audio onto the bus in order.

Speech recognisers (speech input) are in :mod:`desktop_agent.voice.stt`.

Nothing here imports Qt; the player is :mod:`desktop_agent.ui.voice.audio_sink`.
"""

from desktop_agent.voice.auto import AutoEngine, SpeechNotice
from desktop_agent.voice.cache import SpeechCache
from desktop_agent.voice.edge import EdgeTTSEngine
from desktop_agent.voice.espeak import EspeakEngine
from desktop_agent.voice.factory import ENGINE_NAMES, make_engine
from desktop_agent.voice.pipeline import SpeechPipeline
from desktop_agent.voice.silent import SilentEngine

__all__ = [
    "ENGINE_NAMES",
    "AutoEngine",
    "EdgeTTSEngine",
    "EspeakEngine",
    "SilentEngine",
    "SpeechCache",
    "SpeechNotice",
    "SpeechPipeline",
    "make_engine",
]
