"""Settings: round trip, clear one-line errors, nothing lost on a bad file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from desktop_agent.core.notice import Notice
from desktop_agent.storage.settings import Settings, SettingsError, SettingsLoad, SettingsStore


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


def test_a_file_nested_too_deeply_is_one_line_and_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"model": "m", "x": ' + "[" * 2000 + "]" * 2000 + "}")

    loaded = SettingsStore(path).load()

    assert loaded.settings == Settings()
    assert loaded.error is not None and "\n" not in loaded.error
    assert "nested too deeply" in loaded.error and "settings.json.corrupt-1" in loaded.error


def test_an_unknown_value_too_deep_to_save_again_is_refused_at_load(tmp_path: Path) -> None:
    # json.loads copes with 900 levels; the indenting encoder used to save does not.
    path = tmp_path / "settings.json"
    path.write_text('{"x": ' + "[" * 900 + "]" * 900 + "}")

    loaded = SettingsStore(path).load()

    assert loaded.error is not None and "nested too deeply" in loaded.error
    SettingsStore(path).save(loaded.settings)
    assert json.loads(path.read_text()) == Settings().to_json()


def test_a_file_that_is_not_utf8_is_one_line_and_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(b'{"model": "\xff"}')

    loaded = SettingsStore(path).load()

    assert loaded.error is not None and "not UTF-8" in loaded.error and "\n" not in loaded.error


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "settings: the file must hold a JSON object"),
        ({"max_steps": 0}, "settings: max_steps must be a whole number from 1 to 1000, got 0"),
        ({"max_steps": True}, "settings: max_steps must be a whole number from 1 to 1000, got True"),
        ({"volume": 1.5}, "settings: volume must be between 0 and 1, got 1.5"),
        ({"max_tokens": 0}, "settings: max_tokens must be a whole number of tokens from 1 to 1000000, got 0"),
        ({"max_tokens": "lots"}, "settings: max_tokens must be a whole number of tokens from 1 to 1000000, got 'lots'"),
        ({"request_timeout_s": -1}, "settings: request_timeout_s must be a finite number of seconds, above 0 and at most 3600, got -1"),
        ({"approval_timeout_s": "5"}, "settings: approval_timeout_s must be a finite number of seconds, above 0 and at most 604800, got '5'"),
        ({"tts_engine": "loud"}, "settings: tts_engine must be one of auto, edge, espeak, piper, none, got 'loud'"),
        ({"muted": "no"}, "settings: muted must be true or false, got 'no'"),
        ({"voice": None}, "settings: voice must be a string, got None"),
        ({"always_allow": ["a", 1]}, "settings: always_allow must be a list of tool names"),
        ({"wire_profiles": {"http://x/v1": "lax"}}, "settings: wire_profiles must map base URLs to one of standard, planning_without_tools, strict"),
        ({"wire_profiles": ["strict"]}, "settings: wire_profiles must map base URLs to one of standard, planning_without_tools, strict"),
        ({"volume": [[[[[[[[[[1]]]]]]]]]]}, "settings: volume must be between 0 and 1, got [[[[[[[...]]]]]]]"),
    ],
)
def test_the_message_is_one_line_with_the_value_given(data: object, message: str) -> None:
    with pytest.raises(SettingsError) as info:
        Settings.from_json(data)

    assert str(info.value) == message


def test_wire_profiles_learned_for_an_endpoint_are_kept() -> None:
    settings = Settings().with_wire_profile("http://x/v1", "strict").with_wire_profile("http://y/v1", "standard")
    assert Settings.from_json(settings.to_json()).wire_profiles == {"http://x/v1": "strict", "http://y/v1": "standard"}


def test_values_are_normalised_and_unknown_keys_kept() -> None:
    settings = Settings.from_json({"volume": 1, "always_allow": ["a"], "extra": 1, "later": {"k": [1]}})

    assert settings == Settings(volume=1.0, always_allow=("a",), extra={"extra": 1, "later": {"k": [1]}})
    assert isinstance(settings.volume, float)


def test_validate_checks_values_set_in_code() -> None:
    with pytest.raises(SettingsError, match=r"^settings: max_steps must be a whole number from 1 to 1000, got -1$"):
        Settings(max_steps=-1).validate()
    assert Settings(approval_timeout_s=5).validate() == Settings(approval_timeout_s=5)


def test_hook_choices_are_kept_and_a_wrong_one_is_named() -> None:
    settings = Settings(hooks_enabled={"be-concise": True, "recap": False})
    assert Settings.from_json(settings.to_json()) == settings
    with pytest.raises(SettingsError, match=r"^settings: hooks_enabled must map hook names to true or false$"):
        Settings.from_json({"hooks_enabled": {"be-concise": "yes"}})


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b'{"max_steps": ' + b"9" * 5000 + b"}", "holds a number too long to read"),
        (b'{"approval_timeout_s": NaN}', "approval_timeout_s must be a finite number"),
        (b'{"approval_timeout_s": Infinity}', "approval_timeout_s must be a finite number"),
        (b'{"approval_timeout_s": 1e9}', "at most 604800"),
        (b'{"max_steps": 100000}', "max_steps must be a whole number from 1 to 1000"),
    ],
)
def test_a_number_out_of_range_or_too_long_sets_the_file_aside(tmp_path: Path, data: bytes, words: str) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(data)
    loaded = SettingsStore(path).load()
    assert loaded.settings == Settings()
    assert loaded.error is not None and words in loaded.error and "settings.json.corrupt-1" in loaded.error
    assert "\n" not in loaded.error
    assert (tmp_path / "settings.json.corrupt-1").read_bytes() == data


def test_a_file_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(b'\xef\xbb\xbf{"max_steps": 3}')
    assert SettingsStore(path).load() == SettingsLoad(Settings(max_steps=3))
    assert path.exists()


@pytest.mark.parametrize(
    ("kind", "problem"),
    [("pipe", "is not a regular file"), ("huge", "is larger than 1 MB")],
)
def test_a_settings_file_that_is_a_pipe_or_huge_is_set_aside_without_reading_it(
    tmp_path: Path, kind: str, problem: str
) -> None:
    path = tmp_path / "settings.json"
    if kind == "pipe":
        os.mkfifo(path)  # a blocking read would wait here forever for a writer
    else:
        path.write_text('{"model": "m"}' + " " * (1 << 20))

    loaded = SettingsStore(path).load()

    assert loaded.settings == Settings()
    assert loaded.error == (
        f"settings file {path} {problem}; kept it as settings.json.corrupt-1 and started with defaults"
    )
    assert (tmp_path / "settings.json.corrupt-1").exists() and not path.exists()
    assert isinstance(loaded.error, Notice) and loaded.error.key == f"settings_problem_{'not_regular' if kind == 'pipe' else 'too_large'}"


def test_a_folder_named_settings_json_is_unreadable_and_left_in_place(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.mkdir()

    loaded = SettingsStore(path).load()

    assert (loaded.settings, loaded.error) == (Settings(), f"cannot read settings file {path}: Is a directory")
    assert path.is_dir()
