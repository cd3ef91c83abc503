"""ModelDownloads: one state for every view of a model download (Settings,
the panel, a recogniser), from a loopback file server standing in for the
source."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path

import pytest

from desktop_agent.testing.scripted_files import ScriptedFileServer, ServedFile
from desktop_agent.voice.downloads import DownloadState, ModelDownloads
from desktop_agent.voice.stt.model_spec import ModelFile, ModelSpec
from desktop_agent.voice.stt.models import ModelDownloadError, ModelStore

BODY = b"weights " * 4096


def spec(body: bytes = BODY) -> ModelSpec:
    return ModelSpec("tiny-model", "Tiny model", "http://unused.invalid",
                     (ModelFile("model.bin", len(body), hashlib.sha256(body).hexdigest()),))


async def test_a_download_is_seen_downloading_then_done_by_every_listener(tmp_path: Path) -> None:
    downloads = ModelDownloads(ModelStore(tmp_path / "models"))
    first: list[DownloadState] = []
    second: list[DownloadState] = []
    downloads.listen(first.append)
    stop = downloads.listen(second.append)
    async with ScriptedFileServer({"/m/model.bin": ServedFile(BODY, bytes_per_s=200_000)}) as files:
        async with asyncio.timeout(20):
            folder = await downloads.start(spec(), files.url("/m"))
    assert (folder / "model.bin").read_bytes() == BODY
    phases = [s.phase for s in first]
    assert phases[0] == "downloading" and phases[-1] == "done" and set(phases) == {"downloading", "done"}
    assert first[0].progress is not None and first[0].progress.total == len(BODY)
    assert second == first
    stop()
    downloads.cancelled("tiny-model")
    assert len(second) == len(first) - 1  # stopped hearing
    assert downloads.state("tiny-model").phase == "idle"


async def test_two_starts_share_one_download(tmp_path: Path) -> None:
    downloads = ModelDownloads(ModelStore(tmp_path / "models"))
    async with ScriptedFileServer({"/m/model.bin": ServedFile(BODY, bytes_per_s=200_000)}) as files:
        one = downloads.start(spec(), files.url("/m"))
        two = downloads.start(spec(), files.url("/m"))
        assert one is two
        async with asyncio.timeout(20):
            await one
    assert files.requests == ["/m/model.bin"]


async def test_a_failure_is_kept_with_its_reason_and_cancel_leaves_no_partial_file(tmp_path: Path) -> None:
    store = ModelStore(tmp_path / "models")
    downloads = ModelDownloads(store)
    async with ScriptedFileServer({"/m/model.bin": ServedFile(b"x" * len(BODY)),
                                   "/slow/model.bin": ServedFile(BODY, hold_after=1000)}) as files:
        with pytest.raises(ModelDownloadError) as caught:
            await downloads.start(spec(), files.url("/m"))
        state = downloads.state("tiny-model")
        assert (state.phase, state.error) == ("failed", caught.value)
        assert caught.value.kind == "checksum"
        task = downloads.start(spec(), files.url("/slow"))
        async with asyncio.timeout(10):
            await files.holding.wait()
        assert downloads.running("tiny-model")
        assert downloads.cancel("tiny-model")
        with pytest.raises(asyncio.CancelledError):
            await task
    assert downloads.state("tiny-model").phase == "idle"
    assert list(store.folder(spec()).glob("*.part")) == []
