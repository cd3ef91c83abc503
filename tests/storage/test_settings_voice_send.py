"""Settings files saved before the preview countdown: ``voice_send_at_once``
becomes ``voice_send``, and barge-in's old default onset (300 ms of speech
in a row) the new one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_agent.storage.settings import Settings, SettingsError, SettingsStore


def old_file(tmp_path: Path, **values: object) -> SettingsStore:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"tts_engine": "auto", "barge_in": True, "barge_in_ms": 300, **values}), "utf-8")
    return SettingsStore(path)


def test_the_old_default_true_gets_the_countdown_and_the_new_onset(tmp_path: Path) -> None:
    load = old_file(tmp_path, voice_send_at_once=True).load()
    assert load.error is None
    settings = load.settings
    assert (settings.voice_send, settings.barge_in, settings.barge_in_ms) == ("countdown", True, 120)
    assert "voice_send_at_once" not in settings.extra and "voice_send_at_once" not in settings.to_json()


def test_false_means_review(tmp_path: Path) -> None:
    assert old_file(tmp_path, voice_send_at_once=False).load().settings.voice_send == "review"


def test_an_onset_the_user_chose_is_kept(tmp_path: Path) -> None:
    assert old_file(tmp_path, voice_send_at_once=True, barge_in_ms=450).load().settings.barge_in_ms == 450


def test_a_new_file_keeps_300_when_chosen(tmp_path: Path) -> None:
    store = SettingsStore(tmp_path / "settings.json")
    store.save(Settings(barge_in_ms=300))
    assert store.load().settings.barge_in_ms == 300


def test_bad_values_are_named() -> None:
    with pytest.raises(SettingsError, match="voice_send must be one of at_once, countdown, review"):
        Settings.from_json({"voice_send": "later"})
    with pytest.raises(SettingsError, match="barge_in_min_words must be a whole number of words from 1 to 20"):
        Settings.from_json({"barge_in_min_words": 0})
