"""build_recognizer: engine names to recognisers (``auto``: the best offline
model on disk, found without loading anything), one-line errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from desktop_agent.core.ports import STTError
from desktop_agent.voice.stt import (
    OpenAIRecognizer,
    PocketsphinxRecognizer,
    WhisperRecognizer,
    build_recognizer,
    resolve_engine,
)
from desktop_agent.voice.stt.model_spec import ModelSpec
from desktop_agent.voice.stt.models import SENSEVOICE, ModelStore
from desktop_agent.voice.stt.whisper_models import WHISPER_BASE, WHISPER_SMALL


def test_pocketsphinx_dictates_or_hears_answers() -> None:
    dictation = build_recognizer("pocketsphinx")
    answers = build_recognizer("pocketsphinx", answers=True)
    assert isinstance(dictation, PocketsphinxRecognizer) and dictation.mode == "dictation"
    assert isinstance(answers, PocketsphinxRecognizer) and answers.mode == "answer"


async def test_openai_takes_the_endpoint_and_model() -> None:
    recognizer = build_recognizer("openai", base_url="http://127.0.0.1:9/v1", model="large-v3")
    assert isinstance(recognizer, OpenAIRecognizer) and recognizer.model == "large-v3"
    await recognizer.aclose()
    default = build_recognizer("openai", base_url="http://127.0.0.1:9/v1")
    assert isinstance(default, OpenAIRecognizer) and default.model == "whisper-1"
    await default.aclose()


def test_openai_without_an_endpoint_says_so() -> None:
    with pytest.raises(STTError, match="needs an endpoint"):
        build_recognizer("openai")


def test_an_unknown_engine_is_named() -> None:
    with pytest.raises(STTError, match="must be one of auto, whisper, sensevoice, pocketsphinx, openai, got 'whisperx'"):
        build_recognizer("whisperx")


def _put(store: ModelStore, spec: ModelSpec) -> None:
    """Files of the spec's sizes in the store (sparse: ``ready`` reads sizes only)."""
    folder = store.folder(spec)
    folder.mkdir(parents=True)
    for file in spec.files:
        with (folder / file.name).open("wb") as out:
            out.truncate(file.size)


def test_auto_is_pocketsphinx_with_no_offline_model(tmp_path: Path) -> None:
    store = ModelStore(tmp_path)
    assert resolve_engine("auto", model_store=store) == "pocketsphinx"
    assert isinstance(build_recognizer("auto", model_store=store), PocketsphinxRecognizer)


def test_auto_is_whisper_once_a_whisper_model_is_downloaded(tmp_path: Path) -> None:
    store = ModelStore(tmp_path)
    _put(store, SENSEVOICE)
    assert resolve_engine("auto", model_store=store) == "sensevoice"
    _put(store, WHISPER_SMALL)
    recognizer = build_recognizer("auto", model_store=store, whisper_model="base")
    assert isinstance(recognizer, WhisperRecognizer) and recognizer.spec == WHISPER_SMALL, "the one that is here"
    _put(store, WHISPER_BASE)
    recognizer = build_recognizer("auto", model_store=store, whisper_model="base")
    assert isinstance(recognizer, WhisperRecognizer) and (recognizer.spec, recognizer.ready) == (WHISPER_BASE, True)


def test_auto_is_whisper_with_a_whisper_folder_set(tmp_path: Path, whisper_dir: Path) -> None:
    store = ModelStore(tmp_path / "models")
    assert resolve_engine("auto", model_store=store, model_dir=str(whisper_dir)) == "whisper"
    assert resolve_engine("auto", model_store=store, whisper_model=str(whisper_dir)) == "whisper"
    recognizer = build_recognizer("auto", model_store=store, model_dir=str(whisper_dir))
    assert isinstance(recognizer, WhisperRecognizer) and recognizer.model_folder == whisper_dir
    assert resolve_engine("auto", model_store=store, model_dir=str(tmp_path / "missing")) == "pocketsphinx"
    assert resolve_engine("openai", model_store=store, model_dir=str(whisper_dir)) == "openai"


def test_choosing_the_default_engine_loads_nothing(tmp_path: Path, whisper_dir: Path) -> None:
    """In a fresh process: deciding and building reads file sizes and the
    first bytes of model.bin, and imports no recognition library."""
    code = (
        "import sys; from desktop_agent.voice.stt import build_recognizer, resolve_engine; "
        f"r = build_recognizer('auto', model_dir={str(whisper_dir)!r}); "
        "heavy = {'faster_whisper', 'ctranslate2', 'opencc', 'numpy', 'av', 'tokenizers', 'onnxruntime', "
        "'sherpa_onnx', 'pocketsphinx'}; print(r.name, sorted(heavy & set(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.strip()) == (0, "whisper []"), done.stderr
