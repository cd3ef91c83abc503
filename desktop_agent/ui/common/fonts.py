"""Chinese text in a Simplified Chinese sans face, not whatever CJK font
happens to come first.

Left to itself, Qt draws Chinese in whatever CJK font fontconfig falls back
to for the Latin UI font: on a stock Debian that is Noto Sans CJK *JP*,
whose glyphs take Japanese forms, and light-on-dark it came out visibly
heavier than the Latin beside it. Naming the usual Simplified Chinese sans
families after the UI font's own makes every platform pick one (the first
installed: Noto/Source Han on Linux, Microsoft YaHei on Windows, PingFang
on macOS); Latin text keeps the UI font.

Emoji go the same way: without a colour emoji face in the family list a
character such as ✅ or 🎉 came out as an empty box whenever fontconfig's
own fallback did not reach one. :data:`COLOR_EMOJI` comes last, after the
Chinese faces, so it only draws what none of them has (the set-up scripts
install Noto Color Emoji on Debian; Windows and macOS ship theirs).

On a dark window Chinese goes to a TrueType face first
(:data:`CHINESE_SANS_ON_DARK`). Noto Sans CJK and Source Han are CFF fonts:
Qt turns FreeType's stem darkening on for CFF and blends those glyphs with
gamma correction, which thins dark-on-light text but thickens light-on-dark
text, so on the dark theme every Chinese character drew about a quarter
more ink than on the light one and bold no longer stood out. TrueType faces
get neither treatment and draw the same in both themes. Windows' YaHei is
TrueType already, and macOS does not draw through FreeType.
"""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontInfo, QGuiApplication

CHINESE_SANS = (
    "Noto Sans CJK SC",
    "Source Han Sans SC",
    "Microsoft YaHei UI",
    "Microsoft YaHei",
    "PingFang SC",
    "Hiragino Sans GB",
    "WenQuanYi Micro Hei",
)

CHINESE_SANS_ON_DARK = (
    "WenQuanYi Micro Hei",
    "Droid Sans Fallback",
)
"""TrueType Simplified Chinese faces, tried first on a dark window (the set-up installs WenQuanYi Micro Hei)."""

COLOR_EMOJI = (
    "Noto Color Emoji",
    "Segoe UI Emoji",
    "Apple Color Emoji",
    "Twemoji",
    "EmojiOne Color",
)
"""Colour emoji faces, the first installed drawing what the text faces lack."""

FALLBACKS = frozenset((*CHINESE_SANS_ON_DARK, *CHINESE_SANS, *COLOR_EMOJI))
"""Every face this module adds (what applying it again replaces)."""


def with_chinese_sans(font: QFont, *, dark: bool = False) -> QFont:
    """``font`` with :data:`CHINESE_SANS` (after :data:`CHINESE_SANS_ON_DARK`
    when ``dark``) then :data:`COLOR_EMOJI` after the family it really draws
    with (a generic name such as "Sans Serif" is not one in a family list:
    Qt would skip it and draw Latin in the Chinese face too)."""
    own = [f for f in font.families() if f not in FALLBACKS] or [font.family()]
    actual = QFontInfo(font).family()
    chinese = (*CHINESE_SANS_ON_DARK, *CHINESE_SANS) if dark else CHINESE_SANS
    font.setFamilies([actual, *(f for f in own if f != actual), *chinese, *COLOR_EMOJI])
    return font


def prefer_chinese_sans(app: QGuiApplication, *, dark: bool = False) -> None:
    """Make the application font fall back to a Simplified Chinese sans face
    (a TrueType one first on a dark window) and then to a colour emoji face.
    Nothing is set when the families are already these (setting the
    application font re-lays out every widget)."""
    font = with_chinese_sans(app.font(), dark=dark)
    if font.families() != app.font().families():
        app.setFont(font)
