"""The SenseVoice engine through the real sherpa-onnx, with a stand-in model
of the real one's shape (``testing.fake_sensevoice``): the audio reaches the
model, the text comes back, a model folder on disk is used as it is, one
model is loaded once, and every failure is one :class:`STTError` line."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

from desktop_agent.core.ports import STTError
from desktop_agent.testing.fake_sensevoice import write_fake_sensevoice
from desktop_agent.testing.spoken import HAVE_ESPEAK, espeak_wav
from desktop_agent.voice.pcm import silence16
from desktop_agent.voice.stt import build_recognizer, read_speech_wav
from desktop_agent.voice.stt.model_spec import ModelFile, ModelSpec
from desktop_agent.voice.stt.models import ModelStore
from desktop_agent.voice.stt.sensevoice import SenseVoiceRecognizer
from desktop_agent.voice.wav import tone_wav

needs_espeak = pytest.mark.skipif(not HAVE_ESPEAK, reason="espeak-ng is not installed")
TONE = tone_wav(0.5)[44:]
"""Half a second of sound: the stand-in model hears its words in it."""


def _ready_store(tmp: Path) -> tuple[ModelStore, ModelSpec]:
    """A store that already holds the stand-in model, under a spec that
    points nowhere (nothing may be downloaded)."""
    made = write_fake_sensevoice(tmp / "made")
    files = tuple(
        ModelFile(name, (made / name).stat().st_size, hashlib.sha256((made / name).read_bytes()).hexdigest())
        for name in ("model.int8.onnx", "tokens.txt")
    )
    spec = ModelSpec(key="fake-sensevoice", label="Fake SenseVoice", base_url="http://127.0.0.1:9/none", files=files)
    store = ModelStore(tmp / "models")
    folder = store.folder(spec)
    folder.mkdir(parents=True)
    for file in files:
        (folder / file.name).write_bytes((made / file.name).read_bytes())
    assert store.ready(spec)
    return store, spec


@needs_espeak
async def test_speech_is_recognised_and_silence_is_not(tmp_path: Path) -> None:
    store, spec = _ready_store(tmp_path)
    recognizer = SenseVoiceRecognizer(store, spec)
    assert recognizer.name == "sensevoice" and recognizer.ready
    speech = read_speech_wav(espeak_wav("what time is it", tmp_path))
    assert await recognizer.transcribe(speech) == "what time is it"
    assert await recognizer.transcribe(silence16(1.0)) == ""
    assert await recognizer.transcribe(b"") == ""


async def test_the_model_is_loaded_once_for_many_utterances(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sherpa_onnx

    store, spec = _ready_store(tmp_path)
    loads: list[str] = []
    real = sherpa_onnx.OfflineRecognizer.from_sense_voice

    def counting(**kwargs: object) -> object:
        loads.append(str(kwargs["model"]))
        return real(**kwargs)

    monkeypatch.setattr(sherpa_onnx.OfflineRecognizer, "from_sense_voice", counting)
    recognizer = SenseVoiceRecognizer(store, spec)
    await recognizer.prepare()

    for _ in range(3):
        assert await recognizer.transcribe(TONE) == "what time is it"
    assert loads == [str(store.folder(spec) / "model.int8.onnx")]


async def test_a_model_folder_on_disk_is_used_as_it_is(tmp_path: Path) -> None:
    folder = write_fake_sensevoice(tmp_path / "unpacked", ("你好",), model_name="model.onnx")
    recognizer = build_recognizer("sensevoice", model_dir=str(folder))
    assert isinstance(recognizer, SenseVoiceRecognizer) and recognizer.ready
    assert await recognizer.transcribe(TONE) == "你好"


async def test_a_folder_without_a_model_says_what_it_needs(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    recognizer = build_recognizer("sensevoice", model_dir=str(tmp_path / "empty"))
    assert isinstance(recognizer, SenseVoiceRecognizer) and not recognizer.ready
    with pytest.raises(STTError, match=r"no SenseVoice model in .*empty: it needs model.int8.onnx"):
        await recognizer.transcribe(bytes(3200))


async def test_a_broken_model_is_one_line_naming_the_folder(tmp_path: Path) -> None:
    folder = write_fake_sensevoice(tmp_path / "broken")
    (folder / "model.int8.onnx").write_bytes(b"not a model")
    with pytest.raises(STTError) as caught:
        await SenseVoiceRecognizer(model_dir=folder).transcribe(bytes(3200))
    message = str(caught.value)
    assert message.startswith(f"could not load the SenseVoice model in {folder}: ") and "\n" not in message


async def test_without_sherpa_onnx_the_engine_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = write_fake_sensevoice(tmp_path / "m")
    monkeypatch.setitem(sys.modules, "sherpa_onnx", None)
    with pytest.raises(STTError, match="needs the sherpa-onnx package"):
        await SenseVoiceRecognizer(model_dir=folder).transcribe(bytes(3200))


def test_a_mirror_must_be_an_http_address() -> None:
    with pytest.raises(STTError, match="must start with http:// or https://"):
        build_recognizer("sensevoice", model_base_url="hf-mirror.com")
