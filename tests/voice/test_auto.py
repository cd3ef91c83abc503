"""AutoEngine: primary, fallback on failure, back after the retry interval."""

from __future__ import annotations

import asyncio

import pytest

from desktop_agent.core.ports import Speech, TTSError
from desktop_agent.testing.fake_tts import FakeTTS
from desktop_agent.voice import AutoEngine


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def make(retry_s: float = 30) -> tuple[AutoEngine, FakeTTS, FakeTTS, list[str], FakeClock]:
    primary, fallback = FakeTTS(name="edge"), FakeTTS(name="espeak")
    notices: list[str] = []
    clock = FakeClock()
    engine = AutoEngine(primary, fallback, notices.append, retry_primary_after_s=retry_s, clock=clock)
    return engine, primary, fallback, notices, clock


async def say(engine: AutoEngine, text: str) -> str:
    async with asyncio.timeout(5):
        speech = await engine.synthesize(text)
    assert speech == Speech(FakeTTS.audio_for(text), "audio/wav", speech.engine)
    return speech.engine


async def test_the_primary_speaks_while_it_works_and_nothing_is_announced() -> None:
    engine, primary, fallback, notices, _ = make()
    assert [await say(engine, t) for t in ("a", "b")] == ["edge", "edge"]
    assert (primary.calls, fallback.calls, notices, engine.using_fallback) == (["a", "b"], [], [], False)


async def test_fallback_is_announced_once_then_used_directly_until_the_interval_passes() -> None:
    engine, primary, fallback, notices, clock = make()
    primary.failing = "edge-tts failed: ClientConnectorDNSError: Name or service not known"
    spoken = [await say(engine, "a")]
    clock.now += 29.9
    spoken.append(await say(engine, "b"))
    assert spoken == ["espeak", "espeak"]
    assert (primary.calls, fallback.calls) == (["a"], ["a", "b"])
    assert notices == [
        "edge speech unavailable (edge-tts failed: ClientConnectorDNSError: Name or service not known); "
        "speaking with espeak"
    ]
    assert engine.using_fallback


async def test_after_the_interval_a_failed_probe_stays_silent_and_a_good_one_announces_the_return() -> None:
    engine, primary, fallback, notices, clock = make(retry_s=30)
    primary.failing = "offline"
    spoken = [await say(engine, "a")]
    clock.now += 30
    spoken.append(await say(engine, "b"))  # probe fails: no second notice
    clock.now += 10
    spoken.append(await say(engine, "c"))  # interval restarted at the failed probe
    clock.now += 20
    primary.failing = None
    spoken += [await say(engine, "d"), await say(engine, "e")]
    assert spoken == ["espeak", "espeak", "espeak", "edge", "edge"]
    assert (primary.calls, fallback.calls) == (["a", "b", "d", "e"], ["a", "b", "c"])
    assert notices == ["edge speech unavailable (offline); speaking with espeak", "edge speech is back"]
    assert not engine.using_fallback


async def test_while_one_segment_probes_the_primary_others_use_the_fallback() -> None:
    engine, primary, fallback, notices, clock = make()
    primary.failing = "offline"
    await say(engine, "a")
    primary.failing = None
    primary.hold = True
    clock.now += 30
    probe = asyncio.get_running_loop().create_task(engine.synthesize("slow probe"))
    async with asyncio.timeout(5):
        await primary.started("slow probe").wait()
        assert await say(engine, "meanwhile") == "espeak"
        primary.release("slow probe")
        assert (await probe).engine == "edge"
    assert fallback.calls == ["a", "meanwhile"]
    assert notices[-1] == "edge speech is back"


async def test_when_both_fail_the_error_names_both() -> None:
    engine, primary, fallback, notices, _ = make()
    primary.failing = "offline"
    fallback.failing = "espeak-ng not found"
    with pytest.raises(TTSError, match=r"^espeak-ng not found \(and edge: offline\)$"):
        async with asyncio.timeout(5):
            await engine.synthesize("a")
    fallback.failing = "still missing"
    with pytest.raises(TTSError, match=r"^still missing$"):
        async with asyncio.timeout(5):
            await engine.synthesize("b")
    assert len(notices) == 1


async def test_a_primary_that_raises_something_else_still_falls_back() -> None:
    class Buggy:
        name = "edge"

        async def synthesize(self, text: str) -> Speech:
            raise RuntimeError("adapter bug")

    fallback = FakeTTS(name="espeak")
    notices: list[str] = []
    engine = AutoEngine(Buggy(), fallback, notices.append)
    async with asyncio.timeout(5):
        assert (await engine.synthesize("a")).engine == "espeak"
    assert notices == ["edge speech unavailable (RuntimeError: adapter bug); speaking with espeak"]


def test_a_negative_retry_interval_is_refused() -> None:
    with pytest.raises(ValueError, match="retry_primary_after_s"):
        AutoEngine(FakeTTS(), FakeTTS(), print, retry_primary_after_s=-1)
