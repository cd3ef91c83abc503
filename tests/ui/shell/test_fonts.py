"""Chinese text is drawn in a Simplified Chinese sans face (ui/shell/fonts.py)."""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontDatabase, QFontInfo, QTextLayout
from PySide6.QtWidgets import QApplication

from desktop_agent.ui.shell.fonts import CHINESE_SANS, with_chinese_sans


def faces(font: QFont, text: str) -> list[str]:
    layout = QTextLayout(text, font)
    layout.beginLayout()
    layout.createLine()
    layout.endLayout()
    return [run.rawFont().familyName() for run in layout.glyphRuns()]


def test_chinese_falls_back_to_the_first_installed_sc_sans_and_latin_keeps_the_ui_font(qapp: QApplication) -> None:
    installed = set(QFontDatabase.families())
    wanted = next(f for f in CHINESE_SANS if f in installed)  # the test machine has Noto Sans CJK
    base = QFont(qapp.font())
    font = with_chinese_sans(QFont(base))
    assert font.families()[0] == QFontInfo(base).family()  # the face the UI font really is
    assert faces(font, "中文段落") == [wanted]
    assert faces(font, "Latin") == faces(base, "Latin")
    assert with_chinese_sans(QFont(font)).families() == font.families()  # applying twice adds nothing
