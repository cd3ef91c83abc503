"""A recording is never lost to a model that is not here: the decision
(recognise now with the best ready engine, saying which, or hold), and the
chain that applies it with real recognisers, a download failing against a
loopback server."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from desktop_agent.core.ports import STTError
from desktop_agent.testing.scripted_files import ScriptedFileServer
from desktop_agent.testing.speech_fixtures import utterances
from desktop_agent.voice.stt import PocketsphinxRecognizer, WhisperRecognizer, read_speech_wav
from desktop_agent.voice.stt.fallback import (
    EngineStatus,
    HoldRecording,
    Recognised,
    RecogniseWith,
    RecognizerChain,
    best_available,
)
from desktop_agent.voice.stt.models import ModelDownloadError, ModelStore
from desktop_agent.voice.stt.sensevoice import SenseVoiceRecognizer
from desktop_agent.voice.stt.sources import ModelSource

READY_SPHINX = EngineStatus("pocketsphinx", "ready")


@pytest.mark.parametrize(
    ("chosen", "others", "decision"),
    [
        (EngineStatus("whisper", "ready"), [READY_SPHINX], RecogniseWith("whisper")),
        (EngineStatus("whisper", "downloading"), [READY_SPHINX], HoldRecording("whisper")),
        (EngineStatus("whisper", "failed"), [READY_SPHINX], RecogniseWith("pocketsphinx", instead_of="whisper")),
        (EngineStatus("whisper", "failed"), [READY_SPHINX, EngineStatus("sensevoice", "ready")],
         RecogniseWith("sensevoice", instead_of="whisper")),
        (EngineStatus("sensevoice", "needs_download"),
         [EngineStatus("openai", "ready"), EngineStatus("whisper", "ready"), READY_SPHINX],
         RecogniseWith("whisper", instead_of="sensevoice")),
        (EngineStatus("whisper", "failed"), [EngineStatus("sensevoice", "failed")], HoldRecording("whisper")),
        (EngineStatus("whisper", "failed"), [], HoldRecording("whisper")),
    ],
)
def test_the_best_ready_engine_hears_it_or_it_is_held(
    chosen: EngineStatus, others: list[EngineStatus], decision: object
) -> None:
    assert best_available(chosen, others) == decision


def _failing_whisper(tmp_path: Path, files: ScriptedFileServer) -> WhisperRecognizer:
    """Whisper whose model is not here and whose source answers 404."""
    return WhisperRecognizer(ModelStore(tmp_path / "models"), source=ModelSource("custom", files.url("/none")))


async def test_a_failed_download_is_heard_by_pocketsphinx_and_says_so(tmp_path: Path) -> None:
    told: list[tuple[str, str]] = []
    en1 = next(u for u in utterances() if u.name == "en1")
    async with ScriptedFileServer({}) as files:
        chain = RecognizerChain(_failing_whisper(tmp_path, files), [PocketsphinxRecognizer()],
                                on_stand_in=lambda failure, engine: told.append((failure.kind, engine)))
        async with asyncio.timeout(60):
            heard = await chain.recognise(read_speech_wav(en1.wav))

    assert (heard.engine, told) == ("pocketsphinx", [("http", "pocketsphinx")])
    assert heard.failure is not None and str(heard.failure).startswith(
        "could not download Whisper base from the custom address: config.json: HTTP 404 from ")
    assert heard.text == await PocketsphinxRecognizer().transcribe(read_speech_wav(en1.wav))


async def test_whisper_on_disk_stands_in_for_sensevoice_in_chinese(whisper_dir: Path, tmp_path: Path) -> None:
    zh1 = next(u for u in utterances() if u.name == "zh1")
    async with ScriptedFileServer({}) as files:
        sensevoice = SenseVoiceRecognizer(ModelStore(tmp_path), source=ModelSource("custom", files.url("/none")))
        chain = RecognizerChain(sensevoice, [PocketsphinxRecognizer(), WhisperRecognizer(model_dir=whisper_dir)])
        async with asyncio.timeout(60):
            heard = await chain.recognise(read_speech_wav(zh1.wav))
    assert (heard.text, heard.engine) == ("现在几点了", "whisper")


async def test_with_no_stand_in_the_download_error_goes_to_the_caller(tmp_path: Path) -> None:
    async with ScriptedFileServer({}) as files:
        chain = RecognizerChain(_failing_whisper(tmp_path, files))
        with pytest.raises(ModelDownloadError, match="HTTP 404"):
            await chain.recognise(bytes(3200))


async def test_a_stand_in_that_fails_too_is_passed_over(tmp_path: Path) -> None:
    class Broken:
        name = "openai"

        async def transcribe(self, pcm16: bytes, sample_rate: int = 16000) -> str:
            raise STTError("speech recognition failed: could not connect")

    en1 = next(u for u in utterances() if u.name == "en1")
    async with ScriptedFileServer({}) as files:
        chain = RecognizerChain(_failing_whisper(tmp_path, files), [PocketsphinxRecognizer(), Broken()])
        heard = await chain.recognise(read_speech_wav(en1.wav))
    assert heard.engine == "pocketsphinx"


async def test_the_chosen_engine_ready_hears_it_alone(whisper_dir: Path) -> None:
    zh1 = next(u for u in utterances() if u.name == "zh1")
    chain = RecognizerChain(WhisperRecognizer(model_dir=whisper_dir), [PocketsphinxRecognizer()])
    assert await chain.recognise(read_speech_wav(zh1.wav)) == Recognised("现在几点了", "whisper")


async def test_an_error_that_is_no_download_is_not_hidden_by_a_stand_in(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    chain = RecognizerChain(WhisperRecognizer(model_dir=tmp_path / "empty"), [PocketsphinxRecognizer()])
    with pytest.raises(STTError, match="is not a CTranslate2 Whisper model folder"):
        await chain.recognise(bytes(3200))
