"""The Settings dialog's speech-input options (issue 11)."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop_agent.storage.settings import Settings
from desktop_agent.ui.i18n import tr
from desktop_agent.ui.settings_dialog import SettingsDialog


def test_send_at_once_and_barge_in_are_edited_and_barge_in_says_why_it_is_off(qtbot: QtBot) -> None:
    dialog = SettingsDialog(Settings(), has_api_key=False, key_note="")
    qtbot.add_widget(dialog)
    assert dialog.send_at_once.isChecked() and not dialog.barge_in.isChecked()
    assert dialog.barge_in_ms.value() == 300
    assert dialog.barge_in_note.text() == tr("barge_in") and "echo" in tr("barge_in")
    dialog.send_at_once.setChecked(False)
    dialog.barge_in.setChecked(True)
    dialog.barge_in_ms.setValue(450)
    settings = dialog.edit().settings
    assert (settings.voice_send_at_once, settings.barge_in, settings.barge_in_ms) == (False, True, 450)


def test_voice_settings_survive_the_file() -> None:
    settings = Settings(voice_send_at_once=False, hands_free=True, barge_in=True, barge_in_ms=500)
    assert Settings.from_json(settings.to_json()) == settings
