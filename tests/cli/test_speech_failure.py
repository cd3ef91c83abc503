"""``--tts edge`` (no fallback) failing: said once on the terminal, not
silently missing, in process and as the headless subprocess."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_agent.cli.speech_failure import SpeechFailureNotice
from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.messages import AudioMessage
from desktop_agent.testing.scripted_server import text_reply
from tests.faults.rig import Scenario


def test_the_first_failed_segment_is_said_in_one_line_and_the_rest_are_not() -> None:
    lines: list[str] = []
    notice = SpeechFailureNotice(lines.append)
    for session in ("s1", "s2"):  # two turns, two buses
        bus = SessionMessageBus(session)
        notice.attach(bus)
        bus.push(AudioMessage(segment_id=1, mime="audio/mpeg", bytes=3, engine="edge"))
        bus.push(AudioMessage(segment_id=2, error="edge-tts failed: no\nnetwork", engine="edge"))
        bus.push(AudioMessage(segment_id=3, error="edge-tts failed: again", engine="edge"))
    assert lines == ["notice: speech failed (edge), replies are shown, not spoken: edge-tts failed: no network"]


@pytest.mark.integration
async def test_a_speech_engine_without_fallback_failing_says_so_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # espeak-ng is made unfindable: a failure that needs no network to happen.
    empty = tmp_path / "bin"
    empty.mkdir()
    script = [text_reply("<voice>Hello there.</voice><no_tool>"), text_reply("<voice>Second one.</voice> Done.")]
    scenario = Scenario(tmp_path, "tts", script, "--prompt", "x", "--tts", "espeak")
    monkeypatch.setenv("PATH", str(empty))
    outcome = await scenario.run()
    assert outcome.returncode == 0, outcome.stderr
    failed = [e for e in outcome.events if e["type"] == "audio" and e.get("error")]
    assert len(failed) == 2
    notices = [line for line in outcome.stderr.splitlines() if line.startswith("notice:")]
    assert len(notices) == 1 and "speech failed (espeak)" in notices[0], outcome.stderr
