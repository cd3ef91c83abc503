"""Whisper in the headless mode (contracts §10 ``--stt whisper --stt-model
base|small|DIR``), real subprocesses with the real Whisper base model on
the real speech fixtures: a Mandarin recording becomes a transcript in
simplified characters; the default engine is Whisper once its model is in
the data folder; a download that fails says where and why in one line and
the recording is still heard, by the engine that could."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_agent.testing.scripted_files import ScriptedFileServer, ServedFile
from desktop_agent.testing.speech_fixtures import FIXTURES, whisper_base_dir
from desktop_agent.voice.stt.models import ModelStore
from desktop_agent.voice.stt.whisper_models import WHISPER_BASE
from tests.integration.test_cli_voice import _kinds, _run

pytestmark = pytest.mark.integration


@pytest.fixture
def whisper_dir() -> Path:
    try:
        return whisper_base_dir()
    except FileNotFoundError as exc:
        pytest.fail(str(exc))


async def test_a_mandarin_recording_is_a_transcript_in_simplified_characters(
    tmp_path: Path, whisper_dir: Path
) -> None:
    code, err, events = await _run(tmp_path, "--stt", "whisper", "--stt-model", str(whisper_dir),
                                   "--audio-in", str(FIXTURES / "zh1.wav"), "--approve", "all")
    assert code == 0, err
    assert events[0] == {"type": "transcript", "session_id": events[0]["session_id"], "seq": 1,
                         "text": "现在几点了", "final": True, "engine": "whisper"}
    assert "[heard] 现在几点了 (whisper)" in err.splitlines()
    assert _kinds(events)[-1] == "turn_end" and "Traceback" not in err


async def test_whisper_is_the_default_once_its_model_is_in_the_data_folder(
    tmp_path: Path, whisper_dir: Path, _private_home: Path
) -> None:
    wav = str(FIXTURES / "en1.wav")
    (tmp_path / "before").mkdir()
    (tmp_path / "after").mkdir()
    code, err, events = await _run(tmp_path / "before", "--audio-in", wav, "--approve", "none")
    assert (code, events[0]["engine"]) == (0, "pocketsphinx"), err

    folder = ModelStore(_private_home / "models").folder(WHISPER_BASE)
    folder.mkdir(parents=True)
    for file in WHISPER_BASE.files:
        (folder / file.name).symlink_to(whisper_dir / file.name)
    code, err, events = await _run(tmp_path / "after", "--audio-in", wav, "--approve", "none")
    assert (code, events[0]["engine"], events[0]["text"].rstrip("?").lower()) == (0, "whisper", "what time is it"), err


async def test_a_failed_download_says_the_source_and_why_and_the_recording_is_still_heard(
    tmp_path: Path, _private_home: Path
) -> None:
    async with ScriptedFileServer({"/m/config.json": ServedFile(b"{}")}) as files:
        (_private_home / "settings.json").write_text(json.dumps(
            {"stt_model_source": "custom", "stt_model_base_url": files.url("/m")}))
        code, err, events = await _run(tmp_path, "--stt", "whisper", "--audio-in", str(FIXTURES / "en1.wav"),
                                       "--approve", "none")
    assert code == 0, err
    lines = err.splitlines()
    warning = next(line for line in lines if line.startswith("warning: "))
    assert warning == (
        "warning: could not download Whisper base from the custom address: config.json: size mismatch, "
        f"{files.url('/m/config.json')} gives 2 bytes where 2309 are expected; "
        "recognised en1.wav with pocketsphinx instead"
    )
    assert events[0]["type"] == "transcript" and events[0]["engine"] == "pocketsphinx"
    assert f"[heard] {events[0]['text']} (pocketsphinx)" in lines
    assert lines.index(warning) < lines.index(f"[heard] {events[0]['text']} (pocketsphinx)")
    assert "Traceback" not in err and "Errno" not in err
    assert [p.name for p in _private_home.rglob("*.part")] == []
    assert files.requests == ["/m/config.json"]


async def test_modelscope_picked_in_the_settings_is_where_whisper_downloads_from(
    tmp_path: Path, _private_home: Path
) -> None:
    """The tests refuse every host but this machine: the line names the
    ModelScope URL the download would have fetched, and pocketsphinx hears."""
    (_private_home / "settings.json").write_text(json.dumps({"stt_engine": "whisper", "stt_model_source": "modelscope"}))
    code, err, events = await _run(tmp_path, "--audio-in", str(FIXTURES / "en1.wav"), "--approve", "none")
    assert code == 0, err
    assert ("warning: could not download Whisper base: downloads are turned off (DESKTOP_AGENT_NO_DOWNLOADS): "
            "not fetching https://modelscope.cn/models/pengzhendong/faster-whisper-base/resolve/master/config.json; "
            "recognised en1.wav with pocketsphinx instead") in err.splitlines()
    assert events[0]["engine"] == "pocketsphinx"


async def test_a_folder_that_is_no_whisper_model_is_one_line_and_exit_1(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    code, err, events = await _run(tmp_path, "--stt", "whisper", "--stt-model", str(tmp_path / "empty"),
                                   "--audio-in", str(FIXTURES / "zh1.wav"))
    assert code == 1
    assert err.splitlines()[-1] == (
        f"error: {tmp_path}/empty is not a CTranslate2 Whisper model folder: it has no model.bin, config.json, "
        "tokenizer.json (it needs model.bin, config.json, tokenizer.json, as in Systran/faster-whisper-base)")
    assert events == [] and "Traceback" not in err


async def test_an_unknown_whisper_model_name_is_one_line_and_exit_2(tmp_path: Path) -> None:
    code, err, _ = await _run(tmp_path, "--stt", "whisper", "--stt-model", "large",
                              "--audio-in", str(FIXTURES / "zh1.wav"))
    assert (code, err.splitlines()[-1]) == (
        2, "error: the Whisper model must be base, small or a model folder, got 'large'")
