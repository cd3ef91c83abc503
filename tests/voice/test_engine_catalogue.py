"""The offline engines as Settings → Voice lists them: languages, states
(ready, needs a download of N MB, downloading, failed, not installed), the
source's addresses, and deleting a downloaded model."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from desktop_agent.voice.downloads import DownloadState
from desktop_agent.voice.engine_catalogue import catalogue, delete_model
from desktop_agent.voice.stt.models import DownloadProgress, ModelDownloadError, ModelStore
from desktop_agent.voice.stt.sources import ModelSource
from desktop_agent.voice.stt.whisper_models import WHISPER_BASE, WHISPER_SMALL


def _whisper_base_in(store: ModelStore, whisper_dir: Path) -> None:
    folder = store.folder(WHISPER_BASE)
    folder.mkdir(parents=True)
    for file in WHISPER_BASE.files:
        (folder / file.name).symlink_to(whisper_dir / file.name)


@pytest.fixture
def whisper_dir() -> Path:
    from desktop_agent.testing.speech_fixtures import whisper_base_dir

    return whisper_base_dir()


def test_a_fresh_store_lists_every_engine_with_its_languages_and_what_it_needs(tmp_path: Path) -> None:
    rows = {r.key: r for r in catalogue(ModelStore(tmp_path / "models"), ModelSource())}
    assert [r.kind for r in rows.values()] == sorted((r.kind for r in rows.values()), key=("input", "output").index)
    base, small = rows["faster-whisper-base"], rows["faster-whisper-small"]
    assert (base.name, base.languages, base.state, base.download_bytes) == (
        "Whisper base", ("zh", "en"), "needs_download", WHISPER_BASE.total_size)
    assert (small.state, small.download_bytes) == ("needs_download", WHISPER_SMALL.total_size)
    assert base.base_url == WHISPER_BASE.base_url and not base.deletable
    assert rows["pocketsphinx"].state == "ready" and rows["pocketsphinx"].languages == ("en",)
    assert rows["piper-en_US-joe-medium"].state == "ready"  # the registry's voice, installed as a package
    assert not rows["piper-en_US-joe-medium"].deletable  # a packaged voice is never deleted
    assert rows["piper-zh_CN-huayan-medium"].state == "needs_download"
    assert rows["espeak"].state == ("ready" if shutil.which("espeak-ng") else "missing")


def test_the_chosen_source_gives_the_addresses(tmp_path: Path) -> None:
    store = ModelStore(tmp_path / "models")
    modelscope = {r.key: r for r in catalogue(store, ModelSource("modelscope"))}
    assert modelscope["faster-whisper-base"].base_url.startswith("https://modelscope.cn/")
    custom = {r.key: r for r in catalogue(store, ModelSource("custom", "http://127.0.0.1:9/m"))}
    assert custom["faster-whisper-base"].base_url == "http://127.0.0.1:9/m"


def test_a_running_or_failed_download_shows_in_its_row(tmp_path: Path) -> None:
    store = ModelStore(tmp_path / "models")
    failure = ModelDownloadError("no_network", source="huggingface", host="huggingface.co", model="Whisper base")
    states = {
        "faster-whisper-base": DownloadState("faster-whisper-base", "downloading",
                                             DownloadProgress("Whisper base", "model.bin", 42, 100, 1.0)),
        "faster-whisper-small": DownloadState("faster-whisper-small", "failed", error=failure),
    }
    rows = {r.key: r for r in catalogue(store, ModelSource(), lambda key: states.get(key, DownloadState(key)))}
    assert (rows["faster-whisper-base"].state, rows["faster-whisper-base"].percent) == ("downloading", 42.0)
    assert (rows["faster-whisper-small"].state, rows["faster-whisper-small"].error) == ("failed", failure)


def test_a_downloaded_model_is_ready_and_can_be_deleted(tmp_path: Path, whisper_dir: Path) -> None:
    store = ModelStore(tmp_path / "models")
    _whisper_base_in(store, whisper_dir)
    (row,) = [r for r in catalogue(store, ModelSource()) if r.key == "faster-whisper-base"]
    assert (row.state, row.deletable, row.download_bytes) == ("ready", True, 0)
    assert delete_model(row, store)
    assert not store.folder(WHISPER_BASE).exists() and (whisper_dir / "model.bin").is_file()  # links only
    (again,) = [r for r in catalogue(store, ModelSource()) if r.key == "faster-whisper-base"]
    assert again.state == "needs_download"
    assert not delete_model(again, store)
