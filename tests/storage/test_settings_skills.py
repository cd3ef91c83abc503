"""The ``enabled_skills`` setting (contracts §9): absent or null means every
skill; a list of names otherwise; anything else is named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_agent.storage.settings import Settings, SettingsError, SettingsStore


def test_absent_or_null_means_all(tmp_path: Path) -> None:
    assert Settings().enabled_skills is None
    assert Settings.from_json({}).enabled_skills is None
    assert Settings.from_json({"enabled_skills": None}).enabled_skills is None


def test_a_list_of_names_round_trips_through_the_file(tmp_path: Path) -> None:
    store = SettingsStore(tmp_path / "settings.json")
    store.save(Settings(enabled_skills=("daily-briefing", "explain-command")))
    assert json.loads((tmp_path / "settings.json").read_text())["enabled_skills"] == [
        "daily-briefing", "explain-command"
    ]
    assert store.load().settings.enabled_skills == ("daily-briefing", "explain-command")
    store.save(Settings(enabled_skills=()))
    assert store.load().settings.enabled_skills == ()


@pytest.mark.parametrize("value", ["daily-briefing", [1, 2], {"a": True}])
def test_anything_else_is_named(value: object) -> None:
    with pytest.raises(SettingsError) as raised:
        Settings.from_json({"enabled_skills": value})
    assert str(raised.value) == "settings: enabled_skills must be a list of skill names, or null for all"
