"""SilentEngine and the text helpers it shares with the engines."""

from __future__ import annotations

import asyncio

from desktop_agent.voice import SilentEngine
from desktop_agent.voice.silent import speech_duration_s
from desktop_agent.voice.text import has_speakable, is_chinese, one_line
from desktop_agent.voice.wav import wav_duration_s


async def test_silence_lasts_about_as_long_as_saying_the_text() -> None:
    engine = SilentEngine()
    async with asyncio.timeout(5):
        short = await engine.synthesize("Hi.")
        chinese = await engine.synthesize("今天天气很好。")
    assert (short.mime, short.engine) == ("audio/wav", "silent")
    assert wav_duration_s(short.audio) == 0.2  # the floor
    assert round(wav_duration_s(chinese.audio), 2) == round(6 * 0.2 + 0.06, 2)
    assert speech_duration_s("x" * 1000) == 10.0


def test_language_and_speakability() -> None:
    assert [is_chinese(t) for t in ("Hello", "Say 你好", "３.１４")] == [False, True, False]
    assert [has_speakable(t) for t in ("…。", " ", "3", "好")] == [False, False, True, True]
    assert one_line("a\n  b\tc") == "a b c"
    assert one_line("x" * 300, limit=10) == "x" * 9 + "…"
