"""make_engine: settings name to engine."""

from __future__ import annotations

import pytest

from desktop_agent.voice import AutoEngine, EdgeTTSEngine, EspeakEngine, SilentEngine, make_engine


def test_each_name_builds_its_engine_and_none_builds_nothing() -> None:
    built = {
        name: make_engine(name, voice="", rate="+0%", volume="+0%", on_notice=print)
        for name in ("auto", "edge", "espeak", "silent", "none")
    }
    assert {name: type(engine) for name, engine in built.items()} == {
        "auto": AutoEngine,
        "edge": EdgeTTSEngine,
        "espeak": EspeakEngine,
        "silent": SilentEngine,
        "none": type(None),
    }
    assert [e.name for e in built.values() if e is not None] == ["auto", "edge", "espeak", "silent"]


def test_settings_reach_the_engines() -> None:
    auto = make_engine("auto", voice="zh-CN-YunxiNeural", rate="+10%", volume="-10%", on_notice=print)
    assert auto is not None
    assert getattr(auto, "cache_key") == "auto(edge:zh-CN-YunxiNeural:+10%:-10%|espeak:+10%:-10%)"  # noqa: B009


def test_an_unknown_name_or_bad_rate_is_refused_by_name() -> None:
    with pytest.raises(
        ValueError, match=r"speech engine must be one of auto, edge, espeak, none, silent, got 'piper'"
    ):
        make_engine("piper", voice="", rate="+0%", volume="+0%", on_notice=print)
    with pytest.raises(ValueError, match="speech rate must look like"):
        make_engine("espeak", voice="", rate="quick", volume="+0%", on_notice=print)
