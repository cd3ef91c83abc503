"""SpeechCache: LRU by entries and bytes."""

from __future__ import annotations

import pytest

from desktop_agent.core.ports import Speech
from desktop_agent.voice import SpeechCache


def speech(size: int) -> Speech:
    return Speech(b"x" * size, "audio/wav", "fake")


def test_least_recently_used_entries_go_first_when_full() -> None:
    cache = SpeechCache(max_entries=2)
    cache.put(("e", "a"), speech(1))
    cache.put(("e", "b"), speech(1))
    assert cache.get(("e", "a")) is not None  # a is now the most recent
    cache.put(("e", "c"), speech(1))
    assert [cache.get(("e", k)) is not None for k in "abc"] == [True, False, True]
    assert (cache.hits, cache.misses, len(cache)) == (3, 1, 2)


def test_total_bytes_are_bounded_and_an_oversized_clip_is_not_kept() -> None:
    cache = SpeechCache(max_bytes=10)
    cache.put(("e", "a"), speech(4))
    cache.put(("e", "b"), speech(4))
    cache.put(("e", "c"), speech(4))
    cache.put(("e", "huge"), speech(11))
    assert ([cache.get(("e", k)) is not None for k in ("a", "b", "c", "huge")], cache.total_bytes) == (
        [False, True, True, False],
        8,
    )


def test_replacing_an_entry_keeps_the_byte_count_right() -> None:
    cache = SpeechCache()
    cache.put(("e", "a"), speech(4))
    cache.put(("e", "a"), speech(6))
    assert (len(cache), cache.total_bytes) == (1, 6)
    cache.clear()
    assert (len(cache), cache.total_bytes) == (0, 0)


def test_limits_must_be_positive() -> None:
    with pytest.raises(ValueError, match="must be positive"):
        SpeechCache(max_entries=0)
