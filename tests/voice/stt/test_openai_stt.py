"""The openai recogniser against the scripted transcription server: a
16 kHz WAV upload with the model asked for; failures are one STTError line."""

from __future__ import annotations

import io
import socket
import wave
from collections.abc import AsyncIterator

import pytest

from desktop_agent.core.ports import STTError
from desktop_agent.testing.scripted_stt import ScriptedTranscriptionServer, SttFailure
from desktop_agent.voice.stt import OpenAIRecognizer
from desktop_agent.voice.wav import tone_wav

PCM = tone_wav(0.5)[44:]


@pytest.fixture
async def server() -> AsyncIterator[ScriptedTranscriptionServer]:
    async with ScriptedTranscriptionServer(["what time is it"]) as srv:
        yield srv


async def _transcribe(base_url: str, pcm: bytes = PCM, model: str = "whisper-1") -> str:
    recognizer = OpenAIRecognizer(base_url, api_key="k", max_retries=0, model=model)
    try:
        return await recognizer.transcribe(pcm)
    finally:
        await recognizer.aclose()


async def test_the_upload_is_a_16_khz_wav_and_the_text_comes_back(server: ScriptedTranscriptionServer) -> None:
    assert await _transcribe(server.base_url) == "what time is it"
    [upload] = server.uploads
    assert (upload.model, upload.filename, upload.content_type) == ("whisper-1", "speech.wav", "audio/wav")
    with wave.open(io.BytesIO(upload.audio)) as reader:
        assert (reader.getnchannels(), reader.getsampwidth(), reader.getframerate()) == (1, 2, 16000)
        assert reader.readframes(reader.getnframes()) == PCM


async def test_the_model_asked_for_is_sent(server: ScriptedTranscriptionServer) -> None:
    await _transcribe(server.base_url, model="large-v3")
    assert server.uploads[0].model == "large-v3"


async def test_white_space_in_the_text_is_folded(server: ScriptedTranscriptionServer) -> None:
    server.set_replies(["  What time\n is it?  "])
    assert await _transcribe(server.base_url) == "What time is it?"


@pytest.mark.parametrize(
    ("failure", "line"),
    [
        (SttFailure(401, "Incorrect API key"), "speech recognition failed: HTTP 401: Incorrect API key"),
        (SttFailure(500, "model crashed\nat line 3"), "speech recognition failed: HTTP 500: model crashed at line 3"),
    ],
)
async def test_an_error_status_is_one_line(server: ScriptedTranscriptionServer, failure: SttFailure, line: str) -> None:
    server.set_replies([failure])
    with pytest.raises(STTError) as caught:
        await _transcribe(server.base_url)
    assert str(caught.value) == line


async def test_an_endpoint_that_is_down_is_one_line() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    base_url = f"http://127.0.0.1:{port}/v1"
    with pytest.raises(STTError) as caught:
        await _transcribe(base_url)
    assert str(caught.value).startswith(f"speech recognition failed: cannot reach {base_url}: ")
    assert "\n" not in str(caught.value)


def test_a_base_url_must_be_http() -> None:
    with pytest.raises(STTError, match="needs an http"):
        OpenAIRecognizer("localhost:8000")
