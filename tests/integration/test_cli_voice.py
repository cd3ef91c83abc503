"""Speech in the headless mode (contracts §10): ``--audio-in`` recognised as
the user's message, and ``--approve voice`` answering approvals from a
recording, each emitted as a ``transcript`` event. Real subprocesses, the
demo model and the default MCP time server."""

from __future__ import annotations

import asyncio
import io
import json
import os
import sys
import wave
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.testing.fake_sensevoice import write_fake_sensevoice
from desktop_agent.testing.scripted_files import ScriptedFileServer, ServedFile
from desktop_agent.testing.scripted_stt import ScriptedTranscriptionServer, SttFailure
from desktop_agent.testing.spoken import HAVE_ESPEAK, SPHINX_VOICE, SPHINX_WPM, espeak_wav
from desktop_agent.voice.wav import silent_wav

pytestmark = pytest.mark.integration
needs_espeak = pytest.mark.skipif(not HAVE_ESPEAK, reason="espeak-ng is not installed")


@pytest.fixture
async def stt(_private_home: Path) -> AsyncIterator[ScriptedTranscriptionServer]:
    async with ScriptedTranscriptionServer(["what time is it"]) as srv:
        (_private_home / "settings.json").write_text(json.dumps({"stt_base_url": srv.base_url}))
        yield srv


async def _run(tmp: Path, *flags: str) -> tuple[int, str, list[dict[str, Any]]]:
    events = tmp / "events.jsonl"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "desktop_agent", "--cli", "--model", "demo", "--tts", "none",
        "--events-jsonl", str(events), *flags,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    async with asyncio.timeout(90):
        _out, err = await proc.communicate()
    assert proc.returncode is not None
    lines = events.read_text().splitlines() if events.exists() else []
    return proc.returncode, err.decode(), [json.loads(line) for line in lines]


def _kinds(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] if e["type"] != "tool_call" else f"tool_call:{e['state']}" for e in events]


@needs_espeak
async def test_audio_in_is_recognised_and_asks_the_time_server(
    tmp_path: Path, stt: ScriptedTranscriptionServer
) -> None:
    wav = espeak_wav("what time is it", tmp_path)
    code, err, events = await _run(tmp_path, "--stt", "openai", "--audio-in", str(wav), "--approve", "all")
    assert code == 0, err
    assert events[0] == {"type": "transcript", "session_id": events[0]["session_id"], "seq": 1,
                         "text": "what time is it", "final": True, "engine": "openai"}
    assert _kinds(events) == [
        "transcript", "text", "round_end", "text", "tool_call:start", "tool_call:approval_required",
        "tool_call:executing", "tool_call:result", "round_end", "text", "text", "round_end", "turn_end"]
    result = next(e for e in events if e["type"] == "tool_call" and e["state"] == "result")
    assert result["tool_name"] == "get_current_time" and not result["is_error"]
    assert "[heard] what time is it (openai)" in err
    [upload] = stt.uploads
    assert upload.model == "whisper-1"
    with wave.open(io.BytesIO(upload.audio)) as reader:
        assert (reader.getnchannels(), reader.getsampwidth(), reader.getframerate()) == (1, 2, 16000)


@needs_espeak
async def test_stt_model_flag_reaches_the_endpoint(tmp_path: Path, stt: ScriptedTranscriptionServer) -> None:
    wav = espeak_wav("what time is it", tmp_path)
    code, err, _ = await _run(tmp_path, "--stt", "openai", "--stt-model", "large-v3", "--audio-in", str(wav),
                              "--approve", "none")
    assert code == 0, err
    assert [u.model for u in stt.uploads] == ["large-v3"]


@needs_espeak
async def test_a_failing_transcription_endpoint_is_one_line_and_exit_1(
    tmp_path: Path, stt: ScriptedTranscriptionServer
) -> None:
    stt.set_replies([SttFailure(503, "warming up")])
    code, err, events = await _run(tmp_path, "--stt", "openai", "--audio-in", str(espeak_wav("hi", tmp_path)))
    assert code == 1
    assert "error: speech recognition failed: HTTP 503: warming up\n" in err
    assert "Traceback" not in err and events == []


async def test_a_silent_audio_in_is_one_line_and_exit_2(tmp_path: Path) -> None:
    quiet = tmp_path / "quiet.wav"
    quiet.write_bytes(silent_wav(1.0))
    code, err, events = await _run(tmp_path, "--stt", "pocketsphinx", "--audio-in", str(quiet))
    assert code == 2
    assert err.splitlines()[-1] == f"error: {quiet}: the recording is silent"
    assert events == []


async def test_voice_approval_needs_its_recording(tmp_path: Path) -> None:
    code, err, _ = await _run(tmp_path, "--prompt", "what time is it", "--approve", "voice")
    assert code == 2
    assert err.strip() == "error: --approve voice needs --approval-audio FILE.wav"


def _approval_events(events: list[dict[str, Any]]) -> list[str]:
    after = _kinds(events)[_kinds(events).index("tool_call:approval_required"):]
    return after[:4]


@needs_espeak
async def test_a_spoken_yes_approves(tmp_path: Path) -> None:
    code, err, events = await _run(tmp_path, "--prompt", "what time is it", "--stt", "pocketsphinx",
                                   "--approve", "voice", "--approval-audio", str(espeak_wav("yes", tmp_path)))
    assert code == 0, err
    assert _approval_events(events) == ["tool_call:approval_required", "transcript", "tool_call:executing",
                                        "tool_call:result"]
    transcript = next(e for e in events if e["type"] == "transcript")
    assert (transcript["text"], transcript["final"], transcript["engine"]) == ("yes", True, "pocketsphinx")
    assert '[approval] heard "yes": approved by voice' in err


@needs_espeak
@pytest.mark.parametrize(("spoken", "verdict"), [("no", "rejected by voice"),
                                                  ("what time is it", "not a clear yes or no: rejected")])
async def test_a_spoken_no_or_anything_unclear_rejects(tmp_path: Path, spoken: str, verdict: str) -> None:
    code, err, events = await _run(tmp_path, "--prompt", "what time is it", "--stt", "pocketsphinx",
                                   "--approve", "voice", "--approval-audio", str(espeak_wav(spoken, tmp_path)))
    assert code == 0, err
    assert _approval_events(events) == ["tool_call:approval_required", "transcript", "tool_rejected",
                                        "interrupted"]
    assert events[-2] == {**events[-2], "reason": "rejected"}
    assert f": {verdict}" in err


@needs_espeak
async def test_pocketsphinx_hears_spoken_what_time_is_it_well_enough_to_reach_the_time_tool(tmp_path: Path) -> None:
    """Real recognition end to end: espeak-ng speaks, pocketsphinx's
    dictation model (no grammar) recognises, the demo model asks the time
    server."""
    wav = espeak_wav("what time is it", tmp_path, voice=SPHINX_VOICE, wpm=SPHINX_WPM)
    code, err, events = await _run(tmp_path, "--stt", "pocketsphinx", "--audio-in", str(wav), "--approve", "all")
    assert code == 0, err
    transcript = events[0]
    assert transcript["type"] == "transcript" and transcript["engine"] == "pocketsphinx"
    assert "time" in transcript["text"].split(), transcript
    result = next(e for e in events if e["type"] == "tool_call" and e["state"] == "result")
    assert result["tool_name"] == "get_current_time" and not result["is_error"]


@needs_espeak
async def test_sensevoice_recognises_audio_in_with_a_model_on_disk(tmp_path: Path, _private_home: Path) -> None:
    """The offline Chinese/English engine through the real sherpa-onnx, with
    a stand-in model in a folder the settings name (nothing downloaded)."""
    folder = write_fake_sensevoice(tmp_path / "sensevoice")
    (_private_home / "settings.json").write_text(json.dumps({"stt_model_dir": str(folder)}))
    wav = espeak_wav("what time is it", tmp_path)
    code, err, events = await _run(tmp_path, "--stt", "sensevoice", "--audio-in", str(wav), "--approve", "all")
    assert code == 0, err
    assert {k: events[0][k] for k in ("type", "text", "engine")} == {
        "type": "transcript", "text": "what time is it", "engine": "sensevoice"}
    result = next(e for e in events if e["type"] == "tool_call" and e["state"] == "result")
    assert result["tool_name"] == "get_current_time" and not result["is_error"]
    assert "[heard] what time is it (sensevoice)" in err


@needs_espeak
async def test_a_sensevoice_download_that_fails_says_why_leaves_nothing_and_the_words_are_still_heard(
    tmp_path: Path, _private_home: Path
) -> None:
    """First use with no model on disk: the download starts (from a loopback
    mirror), the file served is not the model the spec names; one line says
    where from and why, and pocketsphinx hears the recording instead (the
    transcript names it); no partial file is left in the data folder."""
    async with ScriptedFileServer({"/m/model.int8.onnx": ServedFile(b"x" * 5000)}) as files:
        (_private_home / "settings.json").write_text(json.dumps({"stt_model_base_url": files.url("/m")}))
        wav = espeak_wav("what time is it", tmp_path, voice=SPHINX_VOICE, wpm=SPHINX_WPM)
        code, err, events = await _run(tmp_path, "--stt", "sensevoice", "--audio-in", str(wav), "--approve", "none")
    assert code == 0, err
    lines = err.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("note: downloading the speech model SenseVoice"))
    assert lines[start + 1] == (
        "warning: could not download SenseVoice Small (zh/en/ja/ko/yue) from the custom address: model.int8.onnx: "
        f"size mismatch, {files.url('/m/model.int8.onnx')} gives 5000 bytes where 239233841 are expected; "
        f"recognised {wav.name} with pocketsphinx instead"
    ), err
    assert lines[start + 2] == f"[heard] {events[0]['text']} (pocketsphinx)"
    assert (events[0]["type"], events[0]["engine"]) == ("transcript", "pocketsphinx")
    assert "Traceback" not in err
    assert files.requests == ["/m/model.int8.onnx"]
    assert [p.name for p in (_private_home).rglob("*.part")] == []
