"""Every visible string of the Settings dialog is worded for a person, in
the current language: no raw engine keys ("edge", "none"),
no English storage note in the Chinese UI, one message for a bad address,
and the approval history's headers whole at the dialog's default size
(tests/artifacts/settings_audit_{en,zh}.png)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QTableView,
    QWidget,
)
from pytestqt.qtbot import QtBot

from desktop_agent.storage.audit_log import JsonlAuditLog, audit_log_path
from desktop_agent.storage.secrets import KeyStorage
from desktop_agent.storage.settings import STT_ENGINES, TTS_ENGINES, Settings
from desktop_agent.texts import CHINESE, ENGLISH, Language, Texts
from desktop_agent.ui.settings.audit_page import COLUMNS, fit_widths
from desktop_agent.ui.settings.dialog import SettingsDialog
from desktop_agent.ui.settings.tools_page import McpControl
from tests.ui.settings.test_audit_page import RECORDS
from tests.ui.settings.test_settings_screenshots import SERVERS, SETTINGS, STATUSES, _no_preview, _no_reload
from tests.ui.settings.test_skills_page import SKILLS

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
KEY_FILE = Path("/home/me/.local/share/desktop-agent/secrets.json")

RAW_KEYS = frozenset({*TTS_ENGINES, *STT_ENGINES, "system", "light", "dark", "custom", "keyring", "file"})
"""Identifiers the settings keep, which a person must never see as words."""

SAME_IN_CHINESE = frozenset({
    # Provider presets: brand names, written so in Chinese too (通义千问, 月之暗面, 智谱 are translated).
    "OpenAI", "DeepSeek", "OpenRouter", "Ollama", "LM Studio", "vLLM",
    "English",  # the language list names each language in its own words
    "Hugging Face",  # a download source, a brand (ModelScope is 魔搭社区 beside its name)
    # The offline engines' and models' own names (Settings → Voice lists them as products).
    "Whisper base", "Whisper small", "SenseVoice Small", "PocketSphinx", "espeak-ng",
    "Piper en_US-joe-medium", "Piper zh_CN-huayan-medium",
})
"""ASCII words allowed on screen in the Chinese UI: proper names only."""

USER_DATA = frozenset(text for skill in SKILLS for text in (skill.name, skill.description)) | frozenset(
    SERVERS["mcpServers"]
)
"""Skills' names and descriptions come from their SKILL.md files, as written;
MCP server names (the shared folders' server choice) from the servers file."""


def _dialog(qtbot: QtBot, tmp_path: Path, settings: Settings = SETTINGS, texts: Texts = ENGLISH) -> SettingsDialog:
    path = tmp_path / "mcp_servers.json"
    path.write_text(json.dumps(SERVERS), encoding="utf-8")
    dialog = SettingsDialog(
        settings, has_api_key=True, key_note=KeyStorage("file", KEY_FILE),
        skills=SKILLS, skills_folder="/home/me/skills",
        mcp=McpControl(path, lambda: STATUSES, _no_reload), preview_voice=_no_preview, texts=texts,
    )
    qtbot.add_widget(dialog)
    return dialog


def _visible_texts(dialog: SettingsDialog) -> list[str]:
    """What the shown page says: labels, buttons, every item of a fixed
    combo (an editable one lists model and voice names), group titles,
    placeholders and table headers."""
    def shown(widget: QWidget) -> bool:
        return widget.isVisibleTo(dialog)

    texts = [w.text() for w in dialog.findChildren(QLabel) if shown(w)]
    texts += [w.text() for w in dialog.findChildren(QAbstractButton) if shown(w)]
    texts += [w.title() for w in dialog.findChildren(QGroupBox) if shown(w)]
    texts += [w.placeholderText() for w in dialog.findChildren(QLineEdit) if shown(w)]
    for combo in dialog.findChildren(QComboBox):
        if shown(combo) and not combo.isEditable():
            texts += [combo.itemText(i) for i in range(combo.count())]
    for table in dialog.findChildren(QTableView):
        if shown(table):
            model = table.model()
            texts += [str(model.headerData(c, Qt.Orientation.Horizontal)) for c in range(model.columnCount())]
    return [text for text in texts if text]


def _untranslated(text: str) -> bool:
    """ASCII words and nothing else, which is no proper name, address or path."""
    if not text.isascii() or not re.search("[A-Za-z]", text):
        return False
    if text in SAME_IN_CHINESE or text in USER_DATA:
        return False
    return not re.match(r"(https?://|/)", text)


def test_no_page_shows_english_or_a_raw_key_in_the_chinese_ui(qtbot: QtBot, tmp_path: Path) -> None:
    dialog = _dialog(qtbot, tmp_path, texts=CHINESE)
    dialog.resize(800, 600)
    dialog.show()
    seen: dict[str, list[str]] = {}
    for index, title in enumerate(dialog.page_titles()):
        dialog.pages.setCurrentRow(index)
        QApplication.processEvents()
        seen[title] = _visible_texts(dialog)
    assert list(seen) == ["模型", "语音", "工具", "审批记录", "技能", "外观"]
    assert all(len(texts) > 3 for texts in seen.values())  # the walk found each page's words
    raw = {page: [t for t in texts if t.strip() in RAW_KEYS] for page, texts in seen.items()}
    english = {page: [t for t in texts if _untranslated(t)] for page, texts in seen.items()}
    assert (raw, english) == ({page: [] for page in seen}, {page: [] for page in seen})


def test_the_speech_engines_have_names_in_both_languages_and_save_their_keys(
    qtbot: QtBot, tmp_path: Path
) -> None:
    dialog = _dialog(qtbot, tmp_path)
    voice = dialog.voice_page
    names = [voice.tts_engine.itemText(i) for i in range(voice.tts_engine.count())]
    assert names == ["Automatic (online, offline fallback)", "Edge (online)", "eSpeak NG (offline)",
                     "Piper (offline, natural voice)", "Off — text only"]
    assert voice.engine() == "edge" and voice.tts_engine.currentText() == "Edge (online)"
    voice.set_engine("none")
    try:
        dialog.appearance_page.choose_language("zh")  # live: the open page follows
        assert [voice.tts_engine.itemText(i) for i in range(voice.tts_engine.count())] == [
            "自动（在线优先，离线备用）", "Edge（在线）", "eSpeak NG（离线）", "Piper（离线，自然语音）", "关闭 —— 只显示文字"]
        assert voice.tts_engine.currentText() == "关闭 —— 只显示文字"
        assert dialog.edit().settings.tts_engine == "none"
    finally:
        dialog.reject()


@pytest.mark.parametrize(
    ("storage", "en", "zh"),
    [
        (KeyStorage("keyring"), "Stored in the system keyring", "保存在系统密钥环中"),
        (KeyStorage("file", KEY_FILE), f"No system keyring: stored in {KEY_FILE} (readable only by you)",
         f"没有系统密钥环：保存在 {KEY_FILE}（仅你本人可读）"),
    ],
)
def test_where_the_key_is_kept_is_said_in_the_current_language(
    qtbot: QtBot, storage: KeyStorage, en: str, zh: str
) -> None:
    dialog = SettingsDialog(Settings(), has_api_key=True, key_note=storage, texts=ENGLISH)
    qtbot.add_widget(dialog)
    assert dialog.key_note.text() == en
    try:
        dialog.appearance_page.choose_language("zh")
        assert dialog.key_note.text() == zh
    finally:
        dialog.reject()


def test_a_bad_address_is_explained_once_under_the_field(qtbot: QtBot, tmp_path: Path) -> None:
    dialog = _dialog(qtbot, tmp_path, texts=CHINESE)
    page = dialog.model_page
    page.base_url.setText("localhost:11434")
    page.test.click()
    page.fetch.click()
    assert (page.address_note.text(), page.result.text(), page.busy()) == (
        "地址必须以 http:// 或 https:// 开头", "请先修正上面的地址", False)
    page.base_url.setText("")
    page.test.click()
    assert (page.address_note.isHidden(), page.result.text()) == (True, CHINESE.tr("model_address_empty"))


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_approval_history_shows_every_header_whole_at_the_default_size(
    qtbot: QtBot, tmp_path: Path, language: Language
) -> None:
    log = JsonlAuditLog(audit_log_path())
    for record in RECORDS:
        log.record(record)
    dialog = _dialog(qtbot, tmp_path, Settings(), texts=Texts(language))
    dialog.show()
    qtbot.wait_exposed(dialog)
    page = dialog.audit_page
    dialog.show_page(page)
    for _ in range(5):
        QApplication.processEvents()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert dialog.grab().toImage().save(str(ARTIFACTS / f"settings_audit_{language}.png"))
    header, table = page.table.horizontalHeader(), page.table
    assert len(page.rows()) == len(RECORDS)
    clipped = [c for c in range(header.count()) if header.sectionSize(c) < header.sectionSizeHint(c)]
    time_width = table.sizeHintForColumn(COLUMNS.index("time"))
    assert (clipped, header.offset(), header.length() <= table.viewport().width()) == ([], 0, True)
    assert header.sectionSize(COLUMNS.index("time")) >= time_width  # a time is never cut


def test_the_approval_history_follows_a_language_switch(qtbot: QtBot, tmp_path: Path) -> None:
    log = JsonlAuditLog(audit_log_path())
    log.record(RECORDS[0])
    dialog = _dialog(qtbot, tmp_path, Settings())
    page = dialog.audit_page
    try:
        dialog.appearance_page.choose_language("zh")
        model = page.table.model()
        headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(len(COLUMNS))]
        assert headers == ["时间", "工具", "服务器", "结果", "决定方", "等待", "参数"]
        assert [page.decision_filter.itemText(0), page.period_filter.itemText(0), page.server_filter.itemText(0)] == [
            "全部结果", "任意时间", "全部服务器"]
        assert (page.refresh_button.text(), page.rows()[0][3], page.count_label.text()) == (
            "刷新", "已拒绝", "显示 1 条，共 1 条")
    finally:
        dialog.reject()


@pytest.mark.parametrize(
    ("wants", "floors", "room", "widths"),
    [
        ([100, 50, 80], [40, 40, 40], 300, [100, 50, 80]),  # room for all: as they are
        ([100, 50, 80], [40, 40, 40], 190, [70, 50, 70]),  # the widest give way alike
        ([100, 50, 80], [100, 40, 40], 190, [100, 45, 45]),  # a floor holds
        ([100, 50, 80], [60, 40, 40], 100, [60, 40, 40]),  # no room: the floors (the view scrolls)
    ],
)
def test_fit_widths_caps_the_widest_columns_first(
    wants: list[int], floors: list[int], room: int, widths: list[int]
) -> None:
    assert fit_widths(wants, floors, room) == widths
