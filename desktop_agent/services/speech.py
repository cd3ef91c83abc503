"""The speech part of :class:`~desktop_agent.services.Services`: the TTS
engine made from the settings (remade only when its configuration changes),
one speech pipeline per conversation sharing one cache, and the engine's
notices said once per session."""

from __future__ import annotations

from dataclasses import astuple

from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.ports import SpeechPort, TTSEngine
from desktop_agent.services.listener import Notifying
from desktop_agent.storage.settings import Settings
from desktop_agent.voice import SpeechCache, SpeechNotice, SpeechPipeline, make_engine
from desktop_agent.voice.piper_settings import piper_options


class SpeechServices(Notifying):
    """The speech part of the services; :attr:`tts` is None: no speech."""

    tts: TTSEngine | None
    _speech_cache: SpeechCache
    _tts_config: tuple[str, ...]
    _speech_said: set[SpeechNotice]

    def speech_factory(self, bus: SessionMessageBus) -> SpeechPort | None:
        """A conversation's speech pipeline (None when there is no engine)."""
        if self.tts is None:
            return None
        return SpeechPipeline(self.tts, bus, cache=self._speech_cache)

    def _make_tts(self, settings: Settings) -> None:
        self.tts = make_engine(
            settings.tts_engine,
            voice=settings.voice,
            rate=settings.tts_rate,
            volume=settings.tts_volume,
            on_notice=self._speech_notice,
            piper=piper_options(settings),
        )
        self._tts_config = speech_config(settings)

    def _speech_notice(self, kind: SpeechNotice) -> None:
        # Once per session: a remade engine (a settings change) would say it again.
        if kind in self._speech_said:
            return
        self._speech_said.add(kind)
        if self.listener is not None:
            self.listener.speech_notice(kind)


def speech_config(settings: Settings) -> tuple[str, ...]:
    """What the engine is made from: a change to any of it remakes the engine."""
    return (settings.tts_engine, settings.voice, settings.tts_rate, settings.tts_volume, *astuple(piper_options(settings)))
