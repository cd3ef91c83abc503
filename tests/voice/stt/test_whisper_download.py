"""Whisper's model downloaded on first use: the real Whisper base files
served by a loopback file server standing in for the source (never the real
hosts), checked against the real pins; the source the settings pick; a
wrong file refused as a checksum mismatch; cancel leaving no partial file;
each failure one line naming the source and the reason."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path

import pytest

from desktop_agent.testing.scripted_files import ScriptedFileServer, ServedFile
from desktop_agent.testing.speech_fixtures import utterances
from desktop_agent.voice.stt import WhisperRecognizer, build_recognizer, read_speech_wav
from desktop_agent.voice.stt.models import DownloadProgress, ModelDownloadError, ModelStore
from desktop_agent.voice.stt.sources import ModelSource
from desktop_agent.voice.stt.whisper_models import WHISPER_BASE, WHISPER_SMALL


def _served(whisper_dir: Path, **changed: ServedFile) -> Mapping[str, ServedFile]:
    return {f"/m/{f.name}": changed.get(f.name) or ServedFile((whisper_dir / f.name).read_bytes())
            for f in WHISPER_BASE.files}


def _folder_names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


async def test_the_real_model_downloads_with_progress_then_hears_speech(whisper_dir: Path, tmp_path: Path) -> None:
    store = ModelStore(tmp_path / "models")
    async with ScriptedFileServer(_served(whisper_dir)) as files:
        recognizer = build_recognizer("whisper", model_store=store, model_source="custom",
                                      model_base_url=files.url("/m"))
        assert isinstance(recognizer, WhisperRecognizer) and not recognizer.ready
        seen: list[DownloadProgress] = []
        recognizer.on_progress = seen.append
        async with asyncio.timeout(120):
            await recognizer.prepare()

    assert files.requests == [f"/m/{f.name}" for f in WHISPER_BASE.files]
    assert recognizer.ready and _folder_names(store.folder(WHISPER_BASE)) == sorted(f.name for f in WHISPER_BASE.files)
    assert (seen[0].done, seen[-1].percent, seen[-1].total, seen[-1].label) == (
        0, 100.0, WHISPER_BASE.total_size, "Whisper base")
    zh1 = next(u for u in utterances() if u.name == "zh1")
    assert await recognizer.transcribe(read_speech_wav(zh1.wav)) == "现在几点了"


async def test_a_file_that_is_not_the_models_is_a_checksum_mismatch_and_nothing_stays(
    whisper_dir: Path, tmp_path: Path
) -> None:
    store = ModelStore(tmp_path / "models")
    config = (whisper_dir / "config.json").read_bytes()
    tampered = ServedFile(config.replace(b"50259", b"50260", 1))  # same size, other bytes
    failures: list[ModelDownloadError] = []
    async with ScriptedFileServer(_served(whisper_dir, **{"config.json": tampered})) as files:
        recognizer = WhisperRecognizer(store, source=ModelSource("custom", files.url("/m")))
        recognizer.on_download_error = failures.append
        with pytest.raises(ModelDownloadError) as caught:
            async with asyncio.timeout(30):
                await recognizer.transcribe(bytes(3200))

    assert str(caught.value) == (
        "could not download Whisper base from the custom address: config.json: checksum mismatch "
        f"(the download from {files.url('/m/config.json')} is damaged or not this model)"
    )
    assert failures == [caught.value] and (caught.value.kind, caught.value.source) == ("checksum", "custom")
    assert _folder_names(store.folder(WHISPER_BASE)) == [] and not recognizer.ready


async def test_cancelling_the_download_removes_the_partial_file(whisper_dir: Path, tmp_path: Path) -> None:
    store = ModelStore(tmp_path / "models")
    weights = (whisper_dir / "model.bin").read_bytes()
    held = ServedFile(weights, hold_after=1 << 20)
    async with ScriptedFileServer(_served(whisper_dir, **{"model.bin": held})) as files:
        recognizer = WhisperRecognizer(store, source=ModelSource("custom", files.url("/m")))
        task = asyncio.ensure_future(recognizer.prepare())
        async with asyncio.timeout(30):
            await files.holding.wait()
            part = store.folder(WHISPER_BASE) / "model.bin.part"
            while not part.exists():
                await asyncio.sleep(0.01)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    assert _folder_names(store.folder(WHISPER_BASE)) == ["config.json", "tokenizer.json", "vocabulary.txt"]
    assert not recognizer.ready


@pytest.mark.parametrize(
    ("source", "url"),
    [
        ("huggingface", "https://huggingface.co/Systran/faster-whisper-base/resolve/"
                        "a80717a3a48b1b28aa687bca146cb7301feae1b1/config.json"),
        ("modelscope", "https://modelscope.cn/models/pengzhendong/faster-whisper-base/resolve/master/config.json"),
        ("custom", "https://mirror.example/whisper-base/config.json"),
    ],
)
async def test_the_source_the_settings_pick_is_where_the_model_comes_from(
    tmp_path: Path, source: str, url: str
) -> None:
    """Downloads are turned off for every host but this machine in the
    tests: the refusal names the URL the download would have fetched."""
    recognizer = build_recognizer("whisper", model_store=ModelStore(tmp_path), model_source=source,
                                  model_base_url="https://mirror.example/whisper-base")
    with pytest.raises(ModelDownloadError) as caught:
        await recognizer.transcribe(bytes(3200))
    assert str(caught.value) == (
        f"could not download Whisper base: downloads are turned off (DESKTOP_AGENT_NO_DOWNLOADS): not fetching {url}")


def test_small_is_pinned_like_base() -> None:
    assert [f.name for f in WHISPER_SMALL.files] == [f.name for f in WHISPER_BASE.files]
    assert WHISPER_SMALL.files[1:3] == WHISPER_BASE.files[1:3], "the multilingual tokenizer, the same file"
    assert WHISPER_SMALL.total_size == 486_212_372
    assert build_recognizer("whisper", whisper_model="small").spec == WHISPER_SMALL  # type: ignore[attr-defined]
