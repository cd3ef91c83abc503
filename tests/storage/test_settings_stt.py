"""The speech-recognition settings: ``auto`` by default (Whisper when its
model is here, else the offline default), a download source and a Whisper
model to pick, and a wrong value named in one line."""

from __future__ import annotations

import pytest

from desktop_agent.storage.settings import Settings, SettingsError


def test_a_fresh_install_recognises_offline_with_the_best_model_present() -> None:
    settings = Settings()
    assert (settings.stt_engine, settings.stt_base_url, settings.stt_model) == ("auto", "", "")
    assert (settings.stt_model_source, settings.stt_whisper_model) == ("huggingface", "base")


def test_the_speech_settings_survive_a_round_trip() -> None:
    data = {"stt_engine": "whisper", "stt_base_url": "http://127.0.0.1:9000/v1", "stt_model": "large-v3",
            "stt_model_source": "modelscope", "stt_whisper_model": "small",
            "stt_model_base_url": "https://hf-mirror.com/x", "stt_model_dir": "/models/sense"}
    settings = Settings.from_json(data)
    assert {key: settings.to_json()[key] for key in data} == data


def test_a_mirror_saved_before_sources_could_be_picked_is_the_custom_source() -> None:
    settings = Settings.from_json({"stt_engine": "sensevoice", "stt_model_base_url": "https://hf-mirror.com/x"})
    assert (settings.stt_model_source, settings.stt_model_base_url) == ("custom", "https://hf-mirror.com/x")


def test_an_unknown_engine_is_named() -> None:
    with pytest.raises(SettingsError, match=r"^settings: stt_engine must be one of auto, whisper, sensevoice, pocketsphinx, openai, got 'whisperx'$"):
        Settings.from_json({"stt_engine": "whisperx"})


def test_an_unknown_source_or_whisper_model_is_named() -> None:
    with pytest.raises(SettingsError, match=r"^settings: stt_model_source must be one of huggingface, modelscope, custom, got 'hf'$"):
        Settings.from_json({"stt_model_source": "hf"})
    with pytest.raises(SettingsError, match=r"^settings: stt_whisper_model must be one of base, small, got 'large'$"):
        Settings.from_json({"stt_whisper_model": "large"})
