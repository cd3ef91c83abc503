"""The events file's speech contract for outside readers (contracts §5): a
streamed clip's ``audio`` says ``"stream": true`` and is followed by one
``audio_end`` with its size and duration, before ``turn_end`` — with the
real espeak-ng, headless."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from desktop_agent.testing.scripted_server import text_reply
from tests.faults.rig import Scenario

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed"),
]


async def test_every_streamed_clip_has_one_audio_end_with_its_size_before_the_turn_ends(tmp_path: Path) -> None:
    script = [
        text_reply("<voice>Hello there. 你好，今天天气很好。</voice><no_tool>"),
        text_reply("<voice>Here is the second part of the answer, read aloud.</voice> Done."),
    ]
    outcome = await Scenario(tmp_path, "speech", script, "--prompt", "x", "--tts", "espeak").run()
    assert outcome.returncode == 0, outcome.stderr
    events = outcome.events
    audio = [e for e in events if e["type"] == "audio"]
    assert audio and all(e.get("stream") is True and "bytes" not in e and "error" not in e for e in audio), audio
    ends = [e for e in events if e["type"] == "audio_end"]
    assert sorted(e["segment_id"] for e in ends) == sorted(e["segment_id"] for e in audio)  # one each
    position = {id(e): i for i, e in enumerate(events)}
    turn_end = next(i for i, e in enumerate(events) if e["type"] == "turn_end")
    for clip in audio:
        (end,) = [e for e in ends if e["segment_id"] == clip["segment_id"]]
        assert position[id(clip)] < position[id(end)] < turn_end
        assert end["bytes"] > 0 and end["bytes"] % 2 == 0
        assert end["ms"] == round(end["bytes"] / 2 / 22.05)  # 16-bit mono at espeak-ng's 22,050 Hz
        assert set(end) == {"type", "session_id", "seq", "segment_id", "bytes", "ms"}
