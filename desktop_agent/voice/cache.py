"""SpeechCache: finished audio kept across turns, so a segment said before
("好的。", "Done.") is not synthesised again.

Keys pair the engine's ``cache_key`` (its voice, rate and volume; the name
when it has none) with the text, so changing the voice in the settings never
replays the old one. Bounded by entry count and by total bytes; least
recently used entries go first. Failures are never cached.
"""

from __future__ import annotations

from collections import OrderedDict

from desktop_agent.core.ports import Speech, TTSEngine

CacheKey = tuple[str, str]


def engine_key(engine: TTSEngine) -> str:
    """What distinguishes this engine's sound: its ``cache_key`` when it has
    one (voice, rate, volume), else its name."""
    return str(getattr(engine, "cache_key", engine.name))


def cache_key(engine: TTSEngine, text: str) -> CacheKey:
    return (engine_key(engine), text)


class SpeechCache:
    """LRU of ``(engine key, text) -> Speech``."""

    def __init__(self, max_entries: int = 256, max_bytes: int = 32 * 1024 * 1024) -> None:
        if max_entries < 1 or max_bytes < 1:
            raise ValueError("SpeechCache limits must be positive")
        self._max_entries = max_entries
        self._max_bytes = max_bytes
        self._entries: OrderedDict[CacheKey, Speech] = OrderedDict()
        self._bytes = 0
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def total_bytes(self) -> int:
        return self._bytes

    def get(self, key: CacheKey) -> Speech | None:
        speech = self._entries.get(key)
        if speech is None:
            self.misses += 1
            return None
        self._entries.move_to_end(key)
        self.hits += 1
        return speech

    def put(self, key: CacheKey, speech: Speech) -> None:
        if len(speech.audio) > self._max_bytes:
            return
        old = self._entries.pop(key, None)
        if old is not None:
            self._bytes -= len(old.audio)
        self._entries[key] = speech
        self._bytes += len(speech.audio)
        while len(self._entries) > self._max_entries or self._bytes > self._max_bytes:
            _, evicted = self._entries.popitem(last=False)
            self._bytes -= len(evicted.audio)

    def clear(self) -> None:
        self._entries.clear()
        self._bytes = 0
