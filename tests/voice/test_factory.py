"""make_engine: settings name to engine."""

from __future__ import annotations

import pytest

from desktop_agent.voice import AutoEngine, EdgeTTSEngine, EspeakEngine, SilentEngine, make_engine
from desktop_agent.voice.factory import PiperOptions
from desktop_agent.voice.piper import PiperEngine


def test_each_name_builds_its_engine_and_none_builds_nothing() -> None:
    built = {
        name: make_engine(name, voice="", rate="+0%", volume="+0%", on_notice=print)
        for name in ("auto", "edge", "espeak", "piper", "silent", "none")
    }
    assert {name: type(engine) for name, engine in built.items()} == {
        "auto": AutoEngine,
        "edge": EdgeTTSEngine,
        "espeak": EspeakEngine,
        "piper": PiperEngine,
        "silent": SilentEngine,
        "none": type(None),
    }
    assert [e.name for e in built.values() if e is not None] == ["auto", "edge", "espeak", "piper", "silent"]


def test_settings_reach_the_engines() -> None:
    auto = make_engine("auto", voice="zh-CN-YunxiNeural", rate="+10%", volume="-10%", on_notice=print)
    assert auto is not None
    assert getattr(auto, "cache_key") == (  # noqa: B009
        "auto(edge:zh-CN-YunxiNeural:+10%:-10%"
        "|piper:en_US-joe-medium:zh_CN-huayan-medium:+10%:-10%"
        "|espeak:+10%:-10%)"
    )
    piper = make_engine(
        "piper", voice="zh-CN-YunxiNeural", rate="-20%", volume="+0%",
        piper=PiperOptions(english="/voices/mine.onnx", chinese="zh_CN-huayan-medium"),
    )
    assert getattr(piper, "cache_key") == "piper:/voices/mine.onnx:zh_CN-huayan-medium:-20%:+0%"  # noqa: B009


def test_an_unknown_name_or_bad_rate_is_refused_by_name() -> None:
    with pytest.raises(
        ValueError, match=r"speech engine must be one of auto, edge, espeak, piper, none, silent, got 'festival'"
    ):
        make_engine("festival", voice="", rate="+0%", volume="+0%", on_notice=print)
    with pytest.raises(ValueError, match="speech rate must look like"):
        make_engine("espeak", voice="", rate="quick", volume="+0%", on_notice=print)
    with pytest.raises(ValueError, match="speech volume must look like"):
        make_engine("piper", voice="", rate="+0%", volume="loud", on_notice=print)
