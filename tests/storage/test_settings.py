"""Settings: round trip, clear one-line errors, nothing lost on a bad file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_agent.storage.settings import Settings, SettingsError, SettingsStore


def test_round_trip_keeps_unknown_keys(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"model": "m", "always_allow": ["run_command"], "future_option": 7}))
    store = SettingsStore(path)
    loaded = store.load()
    assert loaded.error is None
    settings = loaded.settings.with_allowed("echo", True).with_allowed("run_command", False)
    store.save(settings)
    again = json.loads(path.read_text())
    assert again["always_allow"] == ["echo"] and again["future_option"] == 7 and again["model"] == "m"


def test_invalid_json_is_set_aside_and_defaults_used(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"model": ')
    loaded = SettingsStore(path).load()
    assert loaded.settings == Settings()
    assert loaded.error is not None and "\n" not in loaded.error
    assert "not valid JSON" in loaded.error and "settings.json.corrupt-1" in loaded.error
    assert (tmp_path / "settings.json.corrupt-1").read_text() == '{"model": '
    assert not path.exists()


@pytest.mark.parametrize(
    ("data", "field"),
    [({"max_steps": 0}, "max_steps"), ({"tts_engine": "loud"}, "tts_engine"),
     ({"speak_every_reply": "yes"}, "speak_every_reply"), ({"always_allow": "x"}, "always_allow"),
     ({"approval_timeout_s": -1}, "approval_timeout_s"), ({"model": 3}, "model")],
)
def test_a_wrong_value_names_its_field(tmp_path: Path, data: dict[str, object], field: str) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(data))
    loaded = SettingsStore(path).load()
    assert loaded.error is not None and field in loaded.error
    with pytest.raises(SettingsError, match=field):
        Settings.from_json(data)
