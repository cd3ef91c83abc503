"""EdgeTTSEngine with the network replaced by FakeCommunicate."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from desktop_agent.core.ports import Speech, TTSError
from desktop_agent.testing.fake_tts import FakeCommunicate, FakeCommunicateFactory
from desktop_agent.voice import EdgeTTSEngine

CHUNKS: list[dict[str, Any]] = [
    {"type": "audio", "data": b"ID3-part-1"},
    {"type": "SentenceBoundary", "offset": 0, "duration": 100, "text": "你好"},
    {"type": "audio", "data": b"-part-2"},
]


async def test_audio_chunks_are_joined_into_one_mp3_clip() -> None:
    factory = FakeCommunicateFactory(FakeCommunicate(CHUNKS))
    engine = EdgeTTSEngine(rate="+10%", volume="-20%", communicate_factory=factory)
    async with asyncio.timeout(5):
        speech = await engine.synthesize("你好，世界。")
    assert speech == Speech(audio=b"ID3-part-1-part-2", mime="audio/mpeg", engine="edge")
    assert factory.calls == [
        {
            "text": "你好，世界。",
            "voice": "zh-CN-XiaoxiaoNeural",
            "rate": "+10%",
            "volume": "-20%",
            "connect_timeout": 5,
            "receive_timeout": 20,
        }
    ]
    assert factory.made[0].closed


async def test_voice_follows_the_language_unless_one_is_configured() -> None:
    factory = FakeCommunicateFactory(FakeCommunicate(CHUNKS))
    auto_voice = EdgeTTSEngine(communicate_factory=factory)
    fixed_voice = EdgeTTSEngine("en-GB-SoniaNeural", communicate_factory=factory)
    async with asyncio.timeout(5):
        await auto_voice.synthesize("Hello there.")
        await auto_voice.synthesize("Say 你好.")
        await fixed_voice.synthesize("你好")
    assert [call["voice"] for call in factory.calls] == [
        "en-US-AriaNeural",
        "zh-CN-XiaoxiaoNeural",
        "en-GB-SoniaNeural",
    ]


async def test_a_network_failure_becomes_a_one_line_tts_error() -> None:
    error = OSError("Cannot connect to host speech.platform.bing.com:443\n[Name or service not known]")
    engine = EdgeTTSEngine(communicate_factory=FakeCommunicateFactory(FakeCommunicate(error=error)))
    with pytest.raises(TTSError) as caught:
        async with asyncio.timeout(5):
            await engine.synthesize("hello")
    assert str(caught.value) == (
        "edge-tts failed: OSError: Cannot connect to host speech.platform.bing.com:443 "
        "[Name or service not known]"
    )


async def test_a_hanging_stream_becomes_a_tts_error_within_the_total_timeout() -> None:
    factory = FakeCommunicateFactory(FakeCommunicate(CHUNKS[:1], hang=True))
    engine = EdgeTTSEngine(total_timeout_s=0.05, communicate_factory=factory)
    with pytest.raises(TTSError, match=r"^edge-tts timed out after 0\.05 s$"):
        async with asyncio.timeout(5):
            await engine.synthesize("hello")
    assert factory.made[0].closed


async def test_its_own_receive_timeout_is_reported_as_such() -> None:
    factory = FakeCommunicateFactory(FakeCommunicate(error=TimeoutError("receive timed out")))
    engine = EdgeTTSEngine(communicate_factory=factory)
    with pytest.raises(TTSError, match=r"^edge-tts timed out: receive timed out$"):
        async with asyncio.timeout(5):
            await engine.synthesize("hello")


async def test_a_stream_without_audio_is_an_error() -> None:
    factory = FakeCommunicateFactory(FakeCommunicate(CHUNKS[1:2]))
    engine = EdgeTTSEngine(communicate_factory=factory)
    with pytest.raises(TTSError, match=r"^edge-tts returned no audio$"):
        async with asyncio.timeout(5):
            await engine.synthesize("hello")


async def test_cancellation_passes_through_untouched() -> None:
    communicate = FakeCommunicate(hang=True)
    engine = EdgeTTSEngine(communicate_factory=FakeCommunicateFactory(communicate))
    task = asyncio.get_running_loop().create_task(engine.synthesize("hello"))
    async with asyncio.timeout(5):
        await communicate.streaming.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert communicate.closed


@pytest.mark.parametrize(("field", "value"), [("rate", "fast"), ("volume", "10%"), ("rate", "+10")])
def test_a_malformed_rate_or_volume_is_refused_by_name(field: str, value: str) -> None:
    with pytest.raises(ValueError, match=f"speech {field} must look like"):
        EdgeTTSEngine(**{field: value})  # type: ignore[arg-type]
