"""The speech-recognition settings (issue 11): pocketsphinx by default, and a
wrong engine named in one line."""

from __future__ import annotations

import pytest

from desktop_agent.storage.settings import Settings, SettingsError


def test_a_fresh_install_recognises_offline() -> None:
    settings = Settings()
    assert (settings.stt_engine, settings.stt_base_url, settings.stt_model) == ("pocketsphinx", "", "")


def test_the_speech_settings_survive_a_round_trip() -> None:
    data = {"stt_engine": "openai", "stt_base_url": "http://127.0.0.1:9000/v1", "stt_model": "large-v3",
            "stt_model_base_url": "https://hf-mirror.com/x", "stt_model_dir": "/models/sense"}
    settings = Settings.from_json(data)
    assert {key: settings.to_json()[key] for key in data} == data


def test_an_unknown_engine_is_named() -> None:
    with pytest.raises(SettingsError, match=r"^settings: stt_engine must be one of pocketsphinx, openai, sensevoice, got 'whisper'$"):
        Settings.from_json({"stt_engine": "whisper"})
