"""Each bundled skill has a Chinese description (``metadata.description-zh``),
shown in a Chinese window on the Skills page and in the ``/`` list, while
the model's catalogue keeps the English one (skills_engine/skill_file.py)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_agent.skills_engine import scan_skills
from desktop_agent.skills_engine.catalogue import catalogue_text
from desktop_agent.storage.settings import Settings
from desktop_agent.testing.fake_mentions import FakeMentions
from desktop_agent.texts import CHINESE, ENGLISH
from desktop_agent.ui.chat.picker_choices import command_choices, enabled_skills
from desktop_agent.ui.chat.picker_query import CommandQuery
from desktop_agent.ui.settings.dialog import SettingsDialog

SHOTS = Path("/work/shots26/polish")
CJK = re.compile(r"[\u4e00-\u9fff]")


def test_every_bundled_skill_has_a_chinese_description_and_the_model_reads_the_english(tmp_path: Path) -> None:
    scan = scan_skills(user=tmp_path / "none")
    bundled = [i for i in scan.infos if i.source == "bundled"]
    assert {i.name for i in bundled} >= {"bilingual-reply", "daily-briefing", "explain-command"}
    for info in bundled:
        assert info.problem is None and CJK.search(info.description_zh), info.name
        assert info.description_in("zh") == info.description_zh and info.description_in("en") == info.description
    prompt = catalogue_text(scan.skills)
    assert prompt is not None and not CJK.search(prompt.replace("中英双语回答", ""))  # the English descriptions only (one quotes Chinese)


def test_the_skills_page_and_the_slash_list_show_them_in_chinese(qtbot: QtBot, tmp_path: Path) -> None:
    infos = scan_skills(user=tmp_path / "none").infos
    dialog = SettingsDialog(Settings(), skills=infos, skills_folder=str(tmp_path), texts=CHINESE)
    qtbot.add_widget(dialog)
    rows = {r.checkbox.text(): r.description.text() for r in dialog.skills_page.rows}
    assert rows["daily-briefing"].startswith("简短的每日简报")
    assert rows["explain-command"].startswith("用通俗的话解释一条 shell 命令")
    choices = command_choices(CommandQuery("", 0, 1), CHINESE, enabled_skills(infos, None), FakeMentions())
    said = {c.label: c.description for c in choices}
    assert said["/bilingual-reply"].startswith("用中文和英文双语回答")
    english = command_choices(CommandQuery("", 0, 1), ENGLISH, enabled_skills(infos, None), FakeMentions())
    assert {c.label: c.description for c in english}["/bilingual-reply"].startswith("Answer in both Chinese and English")
    dialog.show_page(dialog.skills_page)
    dialog.resize(820, 560)
    dialog.show()
    qtbot.wait_exposed(dialog)
    for _ in range(3):
        QApplication.processEvents()
    shot = tmp_path / "skills_page_zh.png"
    assert dialog.grab().save(str(shot))
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot, SHOTS / shot.name)
