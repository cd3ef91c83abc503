"""The Model page's reply limit and request timeout: shown from the
settings, edited into them, worded in both languages (screenshots under
the test's folder and /work/shots26/local)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QFormLayout, QLabel, QWidget
from pytestqt.qtbot import QtBot

from desktop_agent.storage.settings import Settings
from desktop_agent.texts import Language, Texts
from desktop_agent.ui.settings.dialog import SettingsDialog

SHOTS = Path("/work/shots26/local")


def _dialog(qtbot: QtBot, settings: Settings, language: Language = "en") -> SettingsDialog:
    dialog = SettingsDialog(settings, texts=Texts(language))
    qtbot.add_widget(dialog)
    return dialog


def _label_of(field: QWidget) -> str:
    parent = field.parentWidget()
    assert parent is not None
    form = parent.findChild(QFormLayout)
    assert form is not None
    label = form.labelForField(field)
    assert isinstance(label, QLabel)
    return label.text()


def test_the_limits_show_the_settings_and_edits_reach_them(qtbot: QtBot) -> None:
    dialog = _dialog(qtbot, Settings(max_tokens=2048, request_timeout_s=300.0))
    page = dialog.model_page
    assert (page.max_tokens.value(), page.request_timeout.value()) == (2048, 300)
    assert dialog.edit().settings.max_tokens == 2048
    page.max_tokens.setValue(512)
    page.request_timeout.setValue(45)
    edited = dialog.edit().settings
    assert (edited.max_tokens, edited.request_timeout_s) == (512, 45.0)


def test_the_fields_take_no_zero_and_keep_a_fraction_from_the_file_while_untouched(qtbot: QtBot) -> None:
    page = _dialog(qtbot, Settings(request_timeout_s=0.4)).model_page
    page.max_tokens.setValue(0)
    page.request_timeout.setValue(-5)
    assert (page.max_tokens.minimum(), page.max_tokens.value(), page.request_timeout.value()) == (1, 1, 1)
    page.request_timeout.setValue(1)
    assert page.apply_to(Settings()).request_timeout_s == 0.4


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_limits_are_worded_in_the_windows_language(qtbot: QtBot, tmp_path: Path, language: Language) -> None:
    dialog = _dialog(qtbot, Settings(base_url="http://127.0.0.1:8080/v1", model="qwen-0.5b"), language)
    page = dialog.model_page
    words = {
        "en": ("Longest reply", "Request timeout", "4096 tokens", "120 s"),
        "zh": ("最长回复", "请求超时", "4096 个 token", "120 秒"),
    }[language]
    shown = (_label_of(page.max_tokens), _label_of(page.request_timeout), page.max_tokens.text(),
             page.request_timeout.text())
    assert shown == words
    assert "max_tokens" in page.max_tokens.toolTip()
    dialog.resize(760, 560)
    dialog.show()
    qtbot.wait_exposed(dialog)
    QApplication.processEvents()
    shot = tmp_path / f"model_limits_{language}.png"
    assert dialog.grab().toImage().save(str(shot))
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot, SHOTS / shot.name)
