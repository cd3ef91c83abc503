"""The Settings dialog's speech-input options: how a push-to-talk
transcript is sent, and barge-in with its onset and its minimum words."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop_agent.storage.settings import Settings
from desktop_agent.texts import CHINESE, ENGLISH
from desktop_agent.ui.settings.dialog import SettingsDialog


def test_sending_and_barge_in_are_edited_and_barge_in_says_how_its_own_voice_is_kept_out(qtbot: QtBot) -> None:
    dialog = SettingsDialog(Settings(), has_api_key=False, key_note="", texts=ENGLISH)
    qtbot.add_widget(dialog)
    assert dialog.voice_send.currentData() == "countdown" and not dialog.barge_in.isChecked()
    assert [dialog.voice_send.itemText(i) for i in range(dialog.voice_send.count())] == [
        ENGLISH.tr("voice_send_mode_at_once"), ENGLISH.tr("voice_send_mode_countdown"), ENGLISH.tr("voice_send_mode_review")]
    assert dialog.barge_in_ms.value() == 120 and dialog.voice_page.barge_in_words.value() == 2
    assert dialog.barge_in_note.text() == ENGLISH.tr("barge_in_gated")
    dialog.voice_send.setCurrentIndex(dialog.voice_send.findData("review"))
    dialog.barge_in.setChecked(True)
    dialog.barge_in_ms.setValue(240)
    dialog.voice_page.barge_in_words.setValue(3)
    settings = dialog.edit().settings
    assert (settings.voice_send, settings.barge_in, settings.barge_in_ms, settings.barge_in_min_words) == (
        "review", True, 240, 3)


def test_voice_settings_survive_the_file() -> None:
    settings = Settings(voice_send="at_once", hands_free=True, barge_in=True, barge_in_ms=500, barge_in_min_words=4)
    assert Settings.from_json(settings.to_json()) == settings


async def test_a_preview_with_the_engine_off_says_so_in_the_pages_language(qtbot: QtBot) -> None:
    from desktop_agent.ui.settings.voice_page import PreviewOff

    async def preview(_settings: Settings, _text: str) -> None:
        raise PreviewOff()

    dialog = SettingsDialog(Settings(tts_engine="edge"), preview_voice=preview, texts=CHINESE)
    qtbot.add_widget(dialog)
    page = dialog.voice_page
    page.play.click()
    task = page.playing()
    assert task is not None
    await task
    assert page.preview_note.text() == CHINESE.tr("voice_preview_failed", reason=CHINESE.tr("voice_preview_off"))
