"""AutoEngine: primary, fallback on failure, back after the retry interval;
the fallback is told once, as a kind, and its reason only to the log."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import get_args

import pytest

from desktop_agent.core.ports import Speech, TTSError
from desktop_agent.testing.fake_tts import FakeStreamingTTS, FakeTTS
from desktop_agent.texts import keys
from desktop_agent.voice import AutoEngine, SpeechNotice

# What edge-tts raised on a real machine whose TLS handshake failed: a long
# reason that goes to the log only, never to the user's line.
SSL_FAILURE = (
    "edge-tts failed: ClientConnectorCertificateError: Cannot connect to host speech.platform.bing.com:443 "
    "ssl:<ssl.SSLContext object at 0x7f3a2c1e5b50> [SSLCertVerificationError: (1, '[SSL: "
    "CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate')]"
)


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def make(retry_s: float = 30) -> tuple[AutoEngine, FakeTTS, FakeTTS, list[SpeechNotice], FakeClock]:
    primary, fallback = FakeTTS(name="edge"), FakeTTS(name="espeak")
    notices: list[SpeechNotice] = []
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
    assert notices == ["speech_offline_fallback"]
    assert engine.using_fallback


async def test_after_the_interval_a_failed_probe_stays_silent_and_a_good_one_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="desktop_agent.voice.auto")
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
    assert notices == ["speech_offline_fallback"]  # the return is for the log
    assert [r.getMessage() for r in caplog.records] == [
        "speech: edge failed (offline); falling back to espeak",
        "speech: edge is back",
    ]
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
    assert notices == ["speech_offline_fallback"] and not engine.using_fallback


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
    notices: list[SpeechNotice] = []
    engine = AutoEngine(Buggy(), fallback, notices.append)
    async with asyncio.timeout(5):
        assert (await engine.synthesize("a")).engine == "espeak"
    assert notices == ["speech_offline_fallback"]


async def test_the_fallback_is_told_once_however_often_the_primary_comes_and_goes(
    caplog: pytest.LogCaptureFixture,
) -> None:
    engine, primary, fallback, notices, clock = make(retry_s=30)
    spoken: list[str] = []
    for text in ("a", "b", "c"):
        primary.failing = SSL_FAILURE
        spoken.append(await say(engine, f"down {text}"))
        clock.now += 30
        primary.failing = None
        spoken.append(await say(engine, f"up {text}"))
    assert spoken == ["espeak", "edge"] * 3
    assert fallback.calls == ["down a", "down b", "down c"]
    assert notices == ["speech_offline_fallback"]
    # Every switch is in the log, with its whole reason.
    falls = [r.getMessage() for r in caplog.records if "falling back" in r.getMessage()]
    assert falls == [f"speech: edge failed ({SSL_FAILURE}); falling back to espeak"] * 3


async def test_concurrent_segments_that_all_fail_tell_the_fallback_once_and_log_the_reason(
    caplog: pytest.LogCaptureFixture,
) -> None:
    engine, primary, fallback, notices, _ = make()
    primary.hold = True
    texts = ["one", "two", "three", "four"]
    for text in texts:
        primary.fail_on(text, SSL_FAILURE)
    async with asyncio.timeout(5):
        calls = [asyncio.ensure_future(engine.synthesize(text)) for text in texts]
        for text in texts:  # every segment is inside the primary at once
            await primary.started(text).wait()
        for text in texts:
            primary.release(text)
        spoken = await asyncio.gather(*calls)
    assert [s.engine for s in spoken] == ["espeak"] * 4 and sorted(fallback.calls) == sorted(texts)
    assert notices == ["speech_offline_fallback"]
    assert "ssl.SSLContext" in caplog.text and "CERTIFICATE_VERIFY_FAILED" in caplog.text


def test_a_negative_retry_interval_is_refused() -> None:
    with pytest.raises(ValueError, match="retry_primary_after_s"):
        AutoEngine(FakeTTS(), FakeTTS(), print, retry_primary_after_s=-1)


def test_every_speech_notice_is_a_line_of_the_ui_text_table() -> None:
    assert set(get_args(SpeechNotice)) <= keys()


class OfflineVoice(FakeStreamingTTS):
    """An offline engine that has a voice for some texts only (Piper with
    its English voice and no Chinese one)."""

    def __init__(self, name: str, speaks: Callable[[str], bool]) -> None:
        super().__init__(name=name)
        self.speaks = speaks

    def can_speak(self, text: str) -> bool:
        return self.speaks(text)


def make_chain() -> tuple[AutoEngine, FakeTTS, OfflineVoice, FakeStreamingTTS, list[SpeechNotice]]:
    primary = FakeTTS(name="edge")
    piper = OfflineVoice("piper", lambda text: text.isascii())
    espeak = FakeStreamingTTS(name="espeak")
    notices: list[SpeechNotice] = []
    return AutoEngine(primary, [piper, espeak], notices.append), primary, piper, espeak, notices


async def test_offline_piper_speaks_what_it_has_a_voice_for_and_espeak_the_rest() -> None:
    engine, primary, piper, espeak, notices = make_chain()
    primary.failing = "offline"
    spoken = [await say(engine, text) for text in ("Hello.", "你好。", "Bye.")]
    assert spoken == ["piper", "espeak", "piper"]
    assert (piper.calls, espeak.calls) == (["Hello.", "Bye."], ["你好。"])
    assert notices == ["speech_offline_fallback_piper"]


async def test_the_notice_names_espeak_when_the_first_offline_segment_is_one_piper_has_no_voice_for() -> None:
    engine, primary, _, _, notices = make_chain()
    primary.failing = "offline"
    assert [await say(engine, text) for text in ("你好。", "Hello.")] == ["espeak", "piper"]
    assert notices == ["speech_offline_fallback"]


async def test_a_segment_piper_fails_on_goes_to_espeak_and_all_failing_names_each() -> None:
    engine, primary, piper, espeak, _ = make_chain()
    primary.failing = "offline"
    piper.fail_on("Hello.", "cannot load the Piper voice")
    assert await say(engine, "Hello.") == "espeak"
    espeak.failing = "espeak-ng not found"
    with pytest.raises(TTSError, match=r"^espeak-ng not found \(and piper: cannot load the Piper voice\)$"):
        async with asyncio.timeout(5):
            await engine.synthesize("Hello.")


async def test_while_the_primary_is_down_offline_segments_stream_from_their_engine() -> None:
    engine, primary, piper, _, _ = make_chain()
    assert not engine.streaming  # the primary is tried first
    primary.failing = "offline"
    await say(engine, "Hello.")
    assert engine.streaming
    async with asyncio.timeout(5):
        english, chinese = await engine.open_stream("Again."), await engine.open_stream("再说一遍。")
    assert (english.engine, chinese.engine) == ("piper", "espeak")
    piper.failing = "broken voice"
    async with asyncio.timeout(5):
        assert (await engine.open_stream("Once more.")).engine == "espeak"
    whole_clip_last = AutoEngine(primary, [piper, FakeTTS(name="whole")], print)
    primary.failing = "offline"
    await say(whole_clip_last, "Hello.")
    assert whole_clip_last.using_fallback and not whole_clip_last.streaming  # not every offline engine streams
