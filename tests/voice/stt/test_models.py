"""Model downloads against a scripted file server on 127.0.0.1 with tiny
fake models (never the real URLs): all or nothing, a reason in one line,
progress a person can follow, one download however many ask."""

from __future__ import annotations

import asyncio
import errno
import hashlib
import io
import re
import shutil
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from desktop_agent.core.ports import STTError
from desktop_agent.testing.scripted_files import ScriptedFileServer, ServedFile
from desktop_agent.voice.stt import models
from desktop_agent.voice.stt.model_spec import ModelFile, ModelSpec
from desktop_agent.voice.stt.models import (
    NO_DOWNLOADS_ENV,
    SENSEVOICE,
    DownloadProgress,
    ModelDownloadError,
    ModelStore,
    default_store,
)

WEIGHTS = bytes(range(256)) * 1024  # 256 KiB
TOKENS = "\n".join(f"token{i} {i}" for i in range(300)).encode()


def _spec(base_url: str, weights: bytes = WEIGHTS, tokens: bytes = TOKENS, key: str = "fake-model") -> ModelSpec:
    files = (
        ModelFile("model.onnx", len(weights), hashlib.sha256(weights).hexdigest()),
        ModelFile("tokens.txt", len(tokens), hashlib.sha256(tokens).hexdigest()),
    )
    return ModelSpec(key=key, label="Fake model", base_url=base_url, files=files)


def _files(model: ServedFile | None = None, tokens: ServedFile | None = None) -> Mapping[str, ServedFile]:
    return {
        "/m/model.onnx": model or ServedFile(WEIGHTS),
        "/m/tokens.txt": tokens or ServedFile(TOKENS),
    }


@pytest.fixture
async def server() -> AsyncIterator[ScriptedFileServer]:
    async with ScriptedFileServer(_files()) as srv:
        yield srv


@pytest.fixture
def store(tmp_path: Path) -> ModelStore:
    return ModelStore(tmp_path / "models")


def _contents(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())} if folder.exists() else {}


async def _ensure(store: ModelStore, spec: ModelSpec, seen: list[DownloadProgress] | None = None) -> Path:
    async with asyncio.timeout(10):
        return await store.ensure(spec, seen.append if seen is not None else None)


async def test_a_download_puts_each_file_in_place_and_reports_progress_up_to_100(
    server: ScriptedFileServer, store: ModelStore
) -> None:
    spec = _spec(server.url("/m"))
    seen: list[DownloadProgress] = []
    folder = await _ensure(store, spec, seen)

    assert (folder, _contents(folder)) == (store.root / "fake-model", {"model.onnx": WEIGHTS, "tokens.txt": TOKENS})
    assert (server.requests, store.ready(spec)) == (["/m/model.onnx", "/m/tokens.txt"], True)
    assert (seen[0].done, seen[0].file, [p.done for p in seen]) == (0, "model.onnx", sorted(p.done for p in seen))
    assert (seen[-1].percent, seen[-1].done, seen[-1].total, seen[-1].label) == (100.0, spec.total_size, spec.total_size, "Fake model")
    assert (folder.stat().st_mode & 0o777, store.root.stat().st_mode & 0o777) == (0o700, 0o700)


async def test_a_paced_download_says_how_long_is_left_midway(store: ModelStore) -> None:
    # 256 KiB at ~160 KiB/s: about 1.6 s, so reports after ETA_AFTER_S carry an estimate.
    paced = ServedFile(WEIGHTS, bytes_per_s=160 * 1024)
    async with ScriptedFileServer(_files(model=paced)) as srv:
        seen: list[DownloadProgress] = []
        await _ensure(store, _spec(srv.url("/m")), seen)

    midway = [p for p in seen if 0 < p.percent < 100]
    assert midway[0].eta_s is None
    with_eta = [p for p in midway if p.eta_s is not None]
    assert with_eta, [p.describe() for p in seen]
    assert all(0 < (p.eta_s or 0) < 10 for p in with_eta)
    assert "left" in with_eta[-1].describe()
    assert 10 <= len(seen) <= 25, "about ten reports a second, not one per chunk"
    assert seen[-1].percent == 100.0


async def test_a_ready_model_is_returned_without_any_request(server: ScriptedFileServer, store: ModelStore) -> None:
    spec = _spec(server.url("/m"))
    await _ensure(store, spec)
    server.requests.clear()
    seen: list[DownloadProgress] = []

    assert await _ensure(store, spec, seen) == store.folder(spec)
    assert (server.requests, server.connections_opened, seen) == ([], 2, [])


async def test_only_the_missing_file_is_fetched(server: ScriptedFileServer, store: ModelStore) -> None:
    spec = _spec(server.url("/m"))
    store.folder(spec).mkdir(parents=True)
    (store.folder(spec) / "model.onnx").write_bytes(WEIGHTS)
    seen: list[DownloadProgress] = []
    await _ensure(store, spec, seen)

    assert (server.requests, seen[-1].total) == (["/m/tokens.txt"], len(TOKENS))


async def test_a_checksum_mismatch_names_the_file_and_leaves_nothing(store: ModelStore) -> None:
    damaged = bytes(len(WEIGHTS))
    async with ScriptedFileServer(_files(model=ServedFile(damaged))) as srv:
        spec = _spec(srv.url("/m"))
        with pytest.raises(ModelDownloadError) as caught:
            await _ensure(store, spec)

    assert str(caught.value) == (
        "could not download Fake model from the custom address: model.onnx: checksum mismatch "
        f"(the download from {srv.url('/m/model.onnx')} is damaged or not this model)"
    )
    assert (caught.value.kind, caught.value.source, caught.value.host) == ("checksum", "custom", srv.url()[7:])
    assert (_contents(store.folder(spec)), store.ready(spec)) == ({}, False)


async def test_a_connection_dropped_midway_is_an_error_and_leaves_nothing(store: ModelStore) -> None:
    async with ScriptedFileServer(_files(model=ServedFile(WEIGHTS, drop_after=100_000))) as srv:
        spec = _spec(srv.url("/m"))
        with pytest.raises(ModelDownloadError) as caught:
            await _ensure(store, spec)

    message = str(caught.value)
    assert re.fullmatch(
        r"could not download Fake model from the custom address: the connection to 127\.0\.0\.1:\d+ broke "
        rf"after \d+ of {len(WEIGHTS)} bytes of model\.onnx \(.+\)", message), message
    assert caught.value.kind == "broken"
    assert _contents(store.folder(spec)) == {}


async def test_a_body_shorter_than_the_model_is_a_size_mismatch(store: ModelStore) -> None:
    short = ServedFile(TOKENS[:-10], content_length=False)
    async with ScriptedFileServer(_files(tokens=short)) as srv:
        spec = _spec(srv.url("/m"))
        with pytest.raises(ModelDownloadError) as caught:
            await _ensure(store, spec)
        assert str(caught.value) == (
            f"could not download Fake model from the custom address: tokens.txt: size mismatch, "
            f"{srv.url('/m/tokens.txt')} gives {len(TOKENS) - 10} bytes where {len(TOKENS)} are expected"
        )

    assert _contents(store.folder(spec)) == {"model.onnx": WEIGHTS}, "finished files stay"


async def test_http_404_names_the_status_and_the_url(server: ScriptedFileServer, store: ModelStore) -> None:
    spec = _spec(server.url("/elsewhere"))
    with pytest.raises(ModelDownloadError) as caught:
        await _ensure(store, spec)

    assert str(caught.value) == (
        f"could not download Fake model from the custom address: model.onnx: HTTP 404 from "
        f"{server.url('/elsewhere/model.onnx')}"
    )
    assert isinstance(caught.value, STTError) and caught.value.fields["status"] == 404
    assert _contents(store.folder(spec)) == {}


async def test_a_mirror_base_url_replaces_the_specs(server: ScriptedFileServer, store: ModelStore) -> None:
    spec = _spec("http://127.0.0.1:9/never")
    async with asyncio.timeout(10):
        await store.ensure(spec, base_url=server.url("/m/"))

    assert server.requests == ["/m/model.onnx", "/m/tokens.txt"]


async def test_redirects_are_followed(store: ModelStore) -> None:
    files = {**_files(), "/r/model.onnx": ServedFile(status=302, location="/m/model.onnx")}
    files["/r/tokens.txt"] = ServedFile(status=302, location="/m/tokens.txt")
    async with ScriptedFileServer(files) as srv:
        folder = await _ensure(store, _spec(srv.url("/r")))
        assert srv.requests == ["/r/model.onnx", "/m/model.onnx", "/r/tokens.txt", "/m/tokens.txt"]

    assert _contents(folder) == {"model.onnx": WEIGHTS, "tokens.txt": TOKENS}


async def test_cancelling_midway_removes_the_part_file(store: ModelStore) -> None:
    async with ScriptedFileServer(_files(model=ServedFile(WEIGHTS, hold_after=64 * 1024))) as srv:
        spec = _spec(srv.url("/m"))
        task = asyncio.create_task(store.ensure(spec))
        async with asyncio.timeout(5):
            await srv.holding.wait()
            while not (store.folder(spec) / "model.onnx.part").exists():
                await asyncio.sleep(0.01)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    assert _contents(store.folder(spec)) == {}


async def test_two_concurrent_calls_share_one_download(server: ScriptedFileServer, store: ModelStore) -> None:
    spec = _spec(server.url("/m"))
    async with asyncio.timeout(10):
        first, second = await asyncio.gather(store.ensure(spec), store.ensure(spec))

    assert (first, second) == (store.folder(spec), store.folder(spec))
    assert server.requests == ["/m/model.onnx", "/m/tokens.txt"]


async def test_an_unwritable_folder_is_said_in_one_line(server: ScriptedFileServer, tmp_path: Path) -> None:
    blocker = tmp_path / "models"
    blocker.write_text("a file where the folder should be")
    with pytest.raises(ModelDownloadError, match=r"^could not download Fake model: cannot write .*fake-model: "):
        await _ensure(ModelStore(blocker), _spec(server.url("/m")))


async def test_downloads_can_be_turned_off_for_anything_but_this_machine(
    store: ModelStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(NO_DOWNLOADS_ENV, "1")
    with pytest.raises(ModelDownloadError, match=r"^could not download SenseVoice .*: downloads are turned off "
                       r".*: not fetching https://huggingface\.co/"):
        await store.ensure(SENSEVOICE)


def test_progress_says_percent_size_and_time_left_in_one_line() -> None:
    p = DownloadProgress(SENSEVOICE.label, "model.int8.onnx", 96 << 20, SENSEVOICE.total_size, 60.0)
    assert p.describe() == "SenseVoice Small (zh/en/ja/ko/yue): 42 % · 96 of 228 MB · about 2 min left"
    assert DownloadProgress("M", "f", 10, 100, 0.2).eta_s is None
    assert DownloadProgress("M", "f", 10, 100, 2.0).eta_s == pytest.approx(18.0)
    assert DownloadProgress("M", "f", 300_000, 1_200_000, 2.0).describe() == "M: 25 % · 0.3 of 1.1 MB · about 6 s left"


def test_the_default_store_lives_in_the_data_folder(_private_home: Path) -> None:
    assert default_store().root == _private_home / "models"
    assert default_store() is default_store()
    assert default_store().folder(SENSEVOICE) == _private_home / "models" / "sensevoice-small-int8"


async def test_a_length_that_is_not_the_models_is_refused_before_the_body(store: ModelStore) -> None:
    async with ScriptedFileServer(_files(model=ServedFile(WEIGHTS + b"extra"))) as srv:
        spec = _spec(srv.url("/m"))
        with pytest.raises(ModelDownloadError, match=rf"model\.onnx: size mismatch, .* gives {len(WEIGHTS) + 5} bytes where {len(WEIGHTS)} are expected$"):
            await _ensure(store, spec)

    assert _contents(store.folder(spec)) == {}


async def test_too_little_disk_space_is_said_before_downloading(
    server: ScriptedFileServer, store: ModelStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shutil, "disk_usage", lambda _path: SimpleNamespace(free=100_000))
    with pytest.raises(ModelDownloadError, match=r"^could not download Fake model: not enough disk space in .*fake-model: it needs 0\.3 MB, 0\.1 MB are free$"):
        await _ensure(store, _spec(server.url("/m")))
    assert server.requests == []


class _FullDisk(io.BytesIO):
    def write(self, data: Any) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")


async def test_a_disk_that_fills_up_midway_is_said_and_leaves_nothing(
    server: ScriptedFileServer, store: ModelStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(models, "_open_part", lambda path: (path.touch(), _FullDisk())[1])
    spec = _spec(server.url("/m"))
    with pytest.raises(ModelDownloadError, match=r"^could not download Fake model: cannot write .*model\.onnx\.part: the disk is full$"):
        await _ensure(store, spec)
    assert _contents(store.folder(spec)) == {}
