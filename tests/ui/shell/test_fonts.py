"""Chinese text is drawn in a Simplified Chinese sans face and emoji in a
colour emoji face (ui/shell/fonts.py)."""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontDatabase, QFontInfo, QFontMetrics, QTextLayout
from PySide6.QtWidgets import QApplication, QLabel

from desktop_agent.ui.shell.fonts import CHINESE_SANS, COLOR_EMOJI, with_chinese_sans


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


def test_emoji_are_drawn_by_the_installed_colour_emoji_face_not_a_tofu_box(qapp: QApplication) -> None:
    installed = set(QFontDatabase.families())
    wanted = next(f for f in COLOR_EMOJI if f in installed)  # set-up installs fonts-noto-color-emoji
    assert all(QFontMetrics(QFont(wanted)).inFontUcs4(ord(c)) for c in "✅🎉")
    font = with_chinese_sans(QFont(qapp.font()))
    assert font.families()[-len(COLOR_EMOJI) :] == list(COLOR_EMOJI)
    assert faces(font, "🎉") == [wanted]
    assert faces(font, "中文") != [wanted]  # the emoji face draws only what the text faces lack
    label = QLabel("✅🎉")
    label.setFont(font)
    assert faces(label.font(), label.text()) == [wanted]
    glyphs = QTextLayout("🎉", font)
    glyphs.beginLayout()
    glyphs.createLine()
    glyphs.endLayout()
    run = glyphs.glyphRuns()[0]
    assert all(index != 0 for index in run.glyphIndexes())  # glyph 0 is the face's missing-glyph box
