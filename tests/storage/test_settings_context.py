"""The model's context size (``context_tokens``): what every request is kept within."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_agent.core.budget import DEFAULT_CONTEXT_TOKENS
from desktop_agent.storage.settings import Settings, SettingsError, SettingsStore


def test_absent_means_the_default_and_a_value_round_trips(tmp_path: Path) -> None:
    assert Settings().context_tokens == DEFAULT_CONTEXT_TOKENS == 32768
    store = SettingsStore(tmp_path / "settings.json")
    store.save(Settings(context_tokens=131072))
    assert json.loads(store.path.read_text())["context_tokens"] == 131072
    assert store.load().settings.context_tokens == 131072


@pytest.mark.parametrize("value", [0, 2047, 10_000_001, 8192.0, "8192", True, None])
def test_anything_but_a_whole_number_of_tokens_in_range_is_named(value: object) -> None:
    with pytest.raises(SettingsError) as caught:
        Settings.from_json({"context_tokens": value})
    assert str(caught.value) == (
        f"settings: context_tokens must be a whole number of tokens from 2048 to 10000000, got {value!r}"
    )
    assert caught.value.field == "context_tokens"


def test_a_file_with_a_wrong_size_is_set_aside_and_the_default_used(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"context_tokens": 100}')
    loaded = SettingsStore(path).load()
    assert loaded.settings == Settings()
    assert loaded.error is not None and "context_tokens must be a whole number of tokens" in loaded.error
    assert (tmp_path / "settings.json.corrupt-1").exists()
