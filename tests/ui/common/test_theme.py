"""Light and dark colours: which colour counts as dark, and each theme's style sheet."""

from __future__ import annotations

from desktop_agent.ui.common.theme import DARK, LIGHT, is_dark_color, style_sheet


def test_dark_is_decided_by_lightness() -> None:
    assert [is_dark_color(c) for c in ((30, 31, 34), (244, 245, 247), (0, 0, 255), (255, 255, 0))] == [
        True, False, True, False
    ]


def test_each_theme_puts_its_own_colours_in_the_style_sheet() -> None:
    light, dark = style_sheet(LIGHT), style_sheet(DARK)
    assert LIGHT.window in light and DARK.window not in light
    assert DARK.window in dark and LIGHT.window not in dark
