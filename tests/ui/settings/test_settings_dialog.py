"""The Settings dialog is a form: it returns what was entered."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from desktop_agent.storage.settings import Settings
from desktop_agent.texts import ENGLISH
from desktop_agent.ui.settings.dialog import SettingsDialog, SettingsEdit

SETTINGS = Settings(
    base_url="http://127.0.0.1:8000/v1",
    model="qwen",
    tts_engine="espeak",
    voice="cmn",
    speak_every_reply=True,
    mcp_config_path="/tmp/mcp.json",
    always_allow=("builtin/run_command", "time/get_current_time", "echo"),
    max_steps=7,
    approval_timeout_s=120.0,
)


@pytest.fixture
def dialog(qtbot: QtBot) -> SettingsDialog:
    widget = SettingsDialog(SETTINGS, has_api_key=True, key_note="stored in the system keyring", texts=ENGLISH)
    qtbot.add_widget(widget)
    return widget


def test_it_shows_every_setting(dialog: SettingsDialog) -> None:
    assert [
        dialog.base_url.text(),
        dialog.model.text(),
        dialog.tts_engine.currentData(),
        dialog.voice.currentText(),
        dialog.speak_all.isChecked(),
        dialog.mcp_file.text(),
        dialog.allowed_tools(),
        dialog.max_steps.value(),
        dialog.approval_timeout.value(),
        dialog.api_key.text(),
        dialog.forget_key.isVisibleTo(dialog),
    ] == [
        "http://127.0.0.1:8000/v1",
        "qwen",
        "espeak",
        "cmn",
        True,
        "/tmp/mcp.json",
        ("builtin/run_command", "time/get_current_time", "echo"),
        7,
        120,
        "",
        True,
    ]
    assert dialog.key_note.text() == "stored in the system keyring"


def test_unchanged_ok_returns_the_same_settings_and_no_key_change(dialog: SettingsDialog) -> None:
    assert dialog.edit() == SettingsEdit(SETTINGS, None, False)


def test_edits_come_back_as_new_settings_and_a_new_key(dialog: SettingsDialog, qtbot: QtBot) -> None:
    dialog.base_url.setText(" https://api.example.com/v1 ")
    dialog.model.setText("gpt-4o")
    dialog.api_key.setText("sk-new")
    dialog.voice_page.set_engine("none")
    dialog.voice.setCurrentText("")
    dialog.speak_all.setChecked(False)
    dialog.max_steps.setValue(3)
    dialog.approval_timeout.setValue(30)
    with qtbot.wait_signal(dialog.saved) as saved:
        dialog.buttons.accepted.emit()
    edit = saved.args[0]
    assert isinstance(edit, SettingsEdit)
    assert (
        edit.settings.base_url,
        edit.settings.model,
        edit.settings.tts_engine,
        edit.settings.voice,
        edit.settings.speak_every_reply,
        edit.settings.max_steps,
        edit.settings.approval_timeout_s,
    ) == ("https://api.example.com/v1", "gpt-4o", "none", "", False, 3, 30.0)
    assert (edit.api_key, edit.forget_api_key) == ("sk-new", False)


def test_each_allowed_tool_shows_where_it_comes_from(dialog: SettingsDialog) -> None:
    assert [dialog.allowed.item(row).text() for row in range(dialog.allowed.count())] == [
        "run_command (built-in)",
        "get_current_time — from time",
        "echo (server not known yet: not approved automatically)",
    ]


def test_revoke_removes_the_selected_tool(dialog: SettingsDialog) -> None:
    assert not dialog.revoke.isEnabled()
    dialog.allowed.setCurrentRow(0)
    dialog.revoke.click()
    assert dialog.allowed_tools() == ("time/get_current_time", "echo")
    dialog.allowed.setCurrentRow(0)
    dialog.revoke.click()
    dialog.allowed.setCurrentRow(0)
    dialog.revoke.click()
    assert dialog.allowed_tools() == ()
    assert dialog.allowed.item(0).text() == "(none)"
    assert not dialog.revoke.isEnabled()
    assert dialog.edit().settings.always_allow == ()


def test_forgetting_the_key(dialog: SettingsDialog) -> None:
    dialog.forget_key.setChecked(True)
    assert (dialog.edit().api_key, dialog.edit().forget_api_key) == (None, True)


def test_a_bad_endpoint_is_named_and_nothing_is_saved(dialog: SettingsDialog, qtbot: QtBot) -> None:
    dialog.base_url.setText("localhost:8000")
    with qtbot.assert_not_emitted(dialog.saved):
        dialog.buttons.accepted.emit()
    assert dialog.error.isVisibleTo(dialog)
    # Words a person understands, also under the field as it is typed.
    assert dialog.error.text() == "The address must start with http:// or https://"
    assert dialog.model_page.address_note.text() == dialog.error.text()
