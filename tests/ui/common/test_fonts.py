"""Chinese text is drawn in a Simplified Chinese sans face and emoji in a
colour emoji face (ui/common/fonts.py), a TrueType one on the dark theme."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QFont, QFontDatabase, QFontInfo, QFontMetrics, QImage, QPainter, QTextLayout
from PySide6.QtWidgets import QApplication, QLabel, QWidget

from desktop_agent.ui.common.fonts import CHINESE_SANS, CHINESE_SANS_ON_DARK, COLOR_EMOJI, with_chinese_sans
from desktop_agent.ui.common.theme import DARK, LIGHT


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


def _ink(text: str, font: QFont, fg: str, bg: str) -> float:
    """How much ink ``text`` puts down, in units of one full pixel of ``fg`` on ``bg``."""
    image = QImage(220, 32, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor(bg))
    painter = QPainter(image)
    painter.setFont(font)
    painter.setPen(QColor(fg))
    painter.drawText(4, 22, text)
    painter.end()
    back, full = QColor(bg).lightnessF(), abs(QColor(fg).lightnessF() - QColor(bg).lightnessF())
    return sum(abs(QColor(image.pixel(x, y)).lightnessF() - back)
               for x in range(image.width()) for y in range(image.height())) / full


def test_chinese_on_the_dark_theme_is_no_heavier_than_on_the_light_one_and_bold_still_stands_out(
    qapp: QApplication,
) -> None:
    """Qt darkens the stems of CFF faces (Noto Sans CJK) and blends them
    gamma-corrected, so light-on-dark Chinese drew a quarter more ink than
    dark-on-light and looked bold; the dark theme's TrueType face does not."""
    assert "WenQuanYi Micro Hei" in QFontDatabase.families()  # set-up installs fonts-wqy-microhei
    text = "现在几点了"
    light = with_chinese_sans(QFont(qapp.font()))
    dark = with_chinese_sans(QFont(qapp.font()), dark=True)
    assert faces(light, text) == [next(f for f in CHINESE_SANS if f in QFontDatabase.families())]
    assert faces(dark, text) == [CHINESE_SANS_ON_DARK[0]]
    on_light = _ink(text, light, LIGHT.text, LIGHT.window)
    assert _ink(text, light, DARK.text, DARK.window) > 1.15 * on_light  # what the dark theme did before
    on_dark = _ink(text, dark, DARK.text, DARK.window)
    assert on_dark < 1.05 * _ink(text, dark, LIGHT.text, LIGHT.window)  # the same weight in both themes
    bold = QFont(dark)
    bold.setBold(True)
    assert _ink(text, bold, DARK.text, DARK.window) > 1.3 * on_dark


def test_the_dark_theme_puts_the_truetype_chinese_face_first_and_the_light_theme_takes_it_back(
    qapp: QApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    from desktop_agent.ui.common import theme

    before = qapp.font()
    window = QWidget()
    try:
        monkeypatch.setattr(theme, "_choice", "dark")
        theme.apply_theme(window)
        assert faces(qapp.font(), "中文") == [CHINESE_SANS_ON_DARK[0]]
        monkeypatch.setattr(theme, "_choice", "light")
        theme.apply_theme(window)
        assert faces(qapp.font(), "中文") != [CHINESE_SANS_ON_DARK[0]]
        assert faces(qapp.font(), "Latin") == faces(before, "Latin")
    finally:
        qapp.setFont(before)
        window.deleteLater()
