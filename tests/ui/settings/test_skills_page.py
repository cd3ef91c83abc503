"""Settings → Skills (contracts §9): each skill with its checkbox, description
and source; a broken one greyed with its reason; the checkboxes edit
``enabled_skills``; other pages join with ``add_page``. Screenshot saved to
tests/artifacts/settings_skills.png and checked for what it shows."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication, QLabel, QWidget
from pytestqt.qtbot import QtBot

from desktop_agent.core.notice import Notice
from desktop_agent.skills_engine import SkillInfo
from desktop_agent.storage.settings import Settings
from desktop_agent.texts import CHINESE, ENGLISH, Texts
from desktop_agent.ui.settings.dialog import SettingsDialog

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
BROKEN = Notice(
    "skill /home/me/skills/Notes/SKILL.md: name must use only a-z, 0-9 and '-', got 'Notes'",
    "skill_problem_name_chars",
    {"path": "/home/me/skills/Notes/SKILL.md", "field": "name", "got": "Notes"},
)
SKILLS = (
    SkillInfo("bilingual-reply", "Answer in Chinese (spoken) and English (shown).", "bundled",
              Path("/app/skills/bilingual-reply")),
    SkillInfo("daily-briefing", "Date, time and a summary card.", "bundled", Path("/app/skills/daily-briefing")),
    SkillInfo("git-helper", "Explain git states and propose safe commands.", "user",
              Path("/home/me/skills/git-helper")),
    SkillInfo("Notes", "", "user", Path("/home/me/skills/Notes"), BROKEN),
)


def dialog_with(qtbot: QtBot, enabled: tuple[str, ...] | None, texts: Texts = ENGLISH) -> SettingsDialog:
    dialog = SettingsDialog(Settings(enabled_skills=enabled), skills=SKILLS, skills_folder="/home/me/skills", texts=texts)
    qtbot.add_widget(dialog)
    return dialog


def shown(dialog: SettingsDialog) -> list[tuple[str, str, str, bool, bool]]:
    """Each row: name, source, description (or reason), checked, enabled."""
    return [
        (r.checkbox.text(), r.source.text(), r.description.text(), r.checkbox.isChecked(), r.isEnabled())
        for r in dialog.skills_page.rows
    ]


def test_the_dialog_has_its_pages_and_takes_more_before_appearance(qtbot: QtBot) -> None:
    dialog = dialog_with(qtbot, None)
    extra = QLabel("hooks here")
    dialog.add_page("Hooks", extra)
    assert dialog.page_titles() == ["Model", "Voice", "Tools", "Approval history", "Skills", "Hooks", "Appearance"]
    assert dialog.page(5) is extra
    assert dialog.page(0).isAncestorOf(dialog.base_url)


def test_every_skill_is_listed_and_all_are_checked_without_a_setting(qtbot: QtBot) -> None:
    dialog = dialog_with(qtbot, None)
    assert shown(dialog) == [
        ("bilingual-reply", "bundled", "Answer in Chinese (spoken) and English (shown).", True, True),
        ("daily-briefing", "bundled", "Date, time and a summary card.", True, True),
        ("git-helper", "user", "Explain git states and propose safe commands.", True, True),
        ("Notes", "user", f"Not loaded — {BROKEN}", False, False),
    ]
    assert dialog.edit().settings.enabled_skills is None


def test_unchecking_a_skill_saves_the_checked_names(qtbot: QtBot) -> None:
    dialog = dialog_with(qtbot, None)
    dialog.skills_page.row("daily-briefing").checkbox.setChecked(False)
    with qtbot.wait_signal(dialog.saved) as saved:
        dialog.buttons.accepted.emit()
    assert saved.args[0].settings.enabled_skills == ("bilingual-reply", "git-helper")


def test_a_saved_choice_shows_and_is_kept_when_nothing_changes(qtbot: QtBot) -> None:
    dialog = dialog_with(qtbot, ("daily-briefing", "gone-for-now"))
    assert [checked for *_, checked, _enabled in shown(dialog)] == [False, True, False, False]
    assert dialog.edit().settings.enabled_skills == ("daily-briefing", "gone-for-now")
    dialog.skills_page.row("git-helper").checkbox.setChecked(True)
    # A name that matches no listed skill keeps its choice (the skill may come back).
    assert dialog.edit().settings.enabled_skills == ("daily-briefing", "git-helper", "gone-for-now")


def test_checking_every_skill_means_all_again(qtbot: QtBot) -> None:
    dialog = dialog_with(qtbot, ())
    for name in ("bilingual-reply", "daily-briefing", "git-helper"):
        dialog.skills_page.row(name).checkbox.setChecked(True)
    assert dialog.edit().settings.enabled_skills is None


def test_no_skills_says_so(qtbot: QtBot) -> None:
    dialog = SettingsDialog(Settings(), skills=(), texts=ENGLISH)
    qtbot.add_widget(dialog)
    assert dialog.skills_page.empty.isVisibleTo(dialog.skills_page)
    assert dialog.skills_page.empty.text() == "No skills found."
    assert dialog.edit().settings.enabled_skills is None


def _darkest(image: QImage, widget: QWidget) -> int:
    """The lowest lightness painted where ``widget`` is (its text)."""
    rect = QRect(widget.mapTo(widget.window(), QPoint(0, 0)), widget.size()).intersected(image.rect())
    return min(
        QColor(image.pixel(x, y)).lightness()
        for x in range(rect.left(), rect.right() + 1)
        for y in range(rect.top(), rect.bottom() + 1)
    )


def test_skills_page_screenshot_shows_the_skills(qtbot: QtBot) -> None:
    dialog = dialog_with(qtbot, ("bilingual-reply", "git-helper"))
    dialog.show_page(dialog.skills_page)
    dialog.resize(640, 560)
    dialog.show()
    qtbot.wait_exposed(dialog)
    for _ in range(5):
        QApplication.processEvents()
    image = dialog.grab().toImage()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert image.save(str(ARTIFACTS / "settings_skills.png"))

    page = dialog.skills_page
    assert dialog.pages.currentItem().text() == "Skills"
    assert all(row.isVisible() for row in page.rows)
    assert shown(dialog) == [
        ("bilingual-reply", "bundled", "Answer in Chinese (spoken) and English (shown).", True, True),
        ("daily-briefing", "bundled", "Date, time and a summary card.", False, True),
        ("git-helper", "user", "Explain git states and propose safe commands.", True, True),
        ("Notes", "user", f"Not loaded — {BROKEN}", False, False),
    ]
    assert page.intro.isVisible() and page.intro.text().startswith("Checked skills are offered to the model")
    assert page.folder.text() == "Your own skills go in /home/me/skills"
    # Greyed: the broken row's name is painted lighter than a working row's.
    working, broken = page.row("git-helper").checkbox, page.row("Notes").checkbox
    assert _darkest(image, broken) > _darkest(image, working) + 40


@pytest.mark.parametrize("language", ["zh"])
def test_the_skills_page_speaks_chinese(qtbot: QtBot, language: str) -> None:
    dialog = dialog_with(qtbot, None, CHINESE)
    assert dialog.page_titles() == ["模型", "语音", "工具", "审批记录", "技能", "外观"]
    assert [r.source.text() for r in dialog.skills_page.rows] == ["内置", "内置", "用户", "用户"]
    assert dialog.skills_page.row("Notes").description.text().startswith("未加载 —— ")


def test_the_window_opens_settings_with_the_skills_of_its_deps(qtbot: QtBot) -> None:
    from dataclasses import replace

    from desktop_agent.testing.window_rig import offline_deps
    from desktop_agent.ui.shell.main_window import MainWindow

    window = MainWindow(tray=False)
    qtbot.add_widget(window)
    window.attach(replace(offline_deps(), skills=SKILLS, skills_folder="/home/me/skills"))
    dialog = window.open_settings()
    assert dialog is not None
    assert [r.checkbox.text() for r in dialog.skills_page.rows] == [
        "bilingual-reply", "daily-briefing", "git-helper", "Notes"
    ]
    assert dialog.skills_page.folder.text() == "Your own skills go in /home/me/skills"
    dialog.close()
