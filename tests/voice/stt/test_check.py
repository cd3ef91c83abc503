"""The self-test's speech recognition line: each engine's library loads,
an engine whose model is here hears silence as nothing, a missing model is
its download size (not a failure)."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_agent.voice.stt import check
from desktop_agent.voice.stt.models import ModelStore
from desktop_agent.voice.stt.whisper_models import WHISPER_BASE


def test_with_no_models_every_engine_is_there_and_says_what_it_needs(tmp_path: Path) -> None:
    works, line = check.stt_report(ModelStore(tmp_path / "models"))
    assert works
    assert line == ("whisper needs a model (141 MB for base); sensevoice needs a model (228 MB); "
                    "pocketsphinx ready (English)")


def test_a_whisper_model_on_disk_is_loaded_and_hears_silence_as_nothing(tmp_path: Path, whisper_dir: Path) -> None:
    store = ModelStore(tmp_path / "models")
    folder = store.folder(WHISPER_BASE)
    folder.mkdir(parents=True)
    for file in WHISPER_BASE.files:
        (folder / file.name).symlink_to(whisper_dir / file.name)
    works, line = check.stt_report(store)
    assert works and line.startswith("whisper ready (Whisper base); "), line


def test_a_library_the_bundle_lost_fails_the_check_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(check.LIBRARIES, "whisper", ("ctranslate2_gone_from_the_bundle",))
    works, line = check.stt_report(ModelStore(tmp_path / "models"))
    assert not works
    assert line.startswith("whisper: its library ctranslate2_gone_from_the_bundle cannot be loaded")
