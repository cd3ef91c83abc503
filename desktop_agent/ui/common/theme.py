"""Light and dark colours that follow the system, as one style sheet.

The palette decides: a dark system palette (or Qt's ``colorScheme`` hint)
gives the dark colours. :func:`style_sheet` is pure so the colours can be
checked without a screen; :func:`apply_theme` installs it and re-applies it
when the system switches.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, Qt, Slot
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QWidget

from desktop_agent.ui.common.fonts import prefer_chinese_sans

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Colors:
    window: str
    text: str
    muted: str
    user_bubble: str
    user_text: str
    assistant_bubble: str
    border: str
    card: str
    card_header: str
    warning: str
    error: str
    approve: str
    reject: str
    caution: str
    """Amber: a command that may change things (neither read-only nor destructive)."""
    interrupting: str
    accent: str
    code: str
    hit: str
    """An opened search hit's message, for a moment."""


LIGHT = Colors(
    window="#f4f5f7",
    text="#1f2328",
    muted="#6a737d",
    user_bubble="#d7e8ff",
    user_text="#0b1f33",
    assistant_bubble="#ffffff",
    border="#d5d9de",
    card="#ffffff",
    card_header="#f0f2f5",
    warning="#fff4d6",
    error="#ffe3e3",
    approve="#1f883d",
    reject="#cf222e",
    caution="#9a6700",
    interrupting="#c99a9a",
    accent="#0969da",
    code="#f3f4f6",
    hit="#fff5c2",
)

DARK = Colors(
    window="#1e1f22",
    # Not near-white: light-on-dark regular Chinese (Noto Sans CJK at UI
    # sizes) spreads until it reads as bold, and Bold no longer stands out
    # (seen at #e6e7e9, 13:1 on the window). About 10:1 keeps WCAG AAA (7:1)
    # on every dark surface: tests/ui/common/test_dark_chinese.py.
    text="#cdd0d4",
    muted="#9aa0a6",
    user_bubble="#1d3b61",
    user_text="#e8f1ff",
    assistant_bubble="#2a2c30",
    border="#3d4046",
    card="#26282c",
    card_header="#303338",
    warning="#4a3b10",
    error="#4d1f22",
    approve="#2ea043",
    reject="#da3633",
    caution="#d29922",
    interrupting="#6e4b4b",
    accent="#1f6feb",
    code="#1b1c1f",
    hit="#4a4120",
)


def is_dark_color(hex_or_rgb: tuple[int, int, int]) -> bool:
    """Perceived lightness below the middle (ITU-R BT.601 weights)."""
    r, g, b = hex_or_rgb
    return (0.299 * r + 0.587 * g + 0.114 * b) < 128


@functools.cache
def style_sheet(c: Colors) -> str:
    """The application style sheet for one colour set."""
    return f"""
QMainWindow, QDialog {{ background: {c.window}; color: {c.text}; }}
QScrollArea#chat, QWidget#chatContent {{ background: {c.window}; border: none; }}
QScrollArea#settingsPage, QWidget#settingsViewport {{ background: {c.window}; border: none; }}
QFrame#bubble {{ border-radius: 10px; padding: 2px; }}
QFrame#bubble[role="user"] {{ background: {c.user_bubble}; }}
QFrame#bubble[role="user"] QLabel {{ color: {c.user_text}; }}
QFrame#bubble[role="assistant"] {{ background: {c.assistant_bubble}; border: 1px solid {c.border}; }}
QFrame#bubble[role="warning"] {{ background: {c.warning}; }}
QFrame#bubble[role="error"] {{ background: {c.error}; }}
QFrame#bubble[hit="true"] {{ background: {c.hit}; }}
QFrame#bubble[role="assistant"][hit="true"] {{ border: 1px solid {c.accent}; }}
QLabel#systemMessage {{ color: {c.muted}; font-style: italic; padding: 4px; }}
QLabel#roleLabel {{ color: {c.muted}; font-size: 11px; }}
QFrame#toolCard, QFrame#formCard, QFrame#visualCard {{
    background: {c.card}; border: 1px solid {c.border}; border-radius: 8px; }}
QFrame#toolCard[phase="approval"] {{ border: 1px solid {c.accent}; }}
QFrame#toolCard[risk="destructive"] {{ border: 2px solid {c.reject}; }}
QFrame#toolCard[risk="cautious"] {{ border: 2px solid {c.caution}; }}
QFrame#toolCard:focus {{ border: 3px solid {c.accent}; }}
QLabel#cardRisk {{ color: {c.reject}; font-weight: bold; }}
QLabel#cardRisk[risk="open_world"] {{ color: {c.muted}; font-weight: normal; }}
QLabel#cardRisk[risk="cautious"] {{ color: {c.caution}; }}
QFrame#toolCard[phase="rejected"], QFrame#toolCard[phase="invalidated"] {{ background: {c.card_header}; }}
QFrame#modelDownload {{ background: {c.card}; border: 1px solid {c.border}; border-radius: 8px; }}
QFrame#modelDownload[state="failed"] {{ background: {c.error}; }}
QLabel#cardTitle {{ font-weight: bold; }}
QLabel#cardMuted {{ color: {c.muted}; }}
QLabel#cardNote {{ color: {c.muted}; font-size: 11px; border: 1px solid {c.border}; border-radius: 7px;
    padding: 0px 5px; }}
QLabel#mono {{ font-family: monospace; background: {c.code}; border-radius: 4px; padding: 4px; }}
QPlainTextEdit#outputBox {{ background: {c.code}; border-radius: 4px; padding: 2px; }}
QFrame#codeBlock {{ background: {c.code}; border: 1px solid {c.border}; border-radius: 6px; }}
QFrame#codeBlock QLabel#codeText {{ color: {c.text}; }}
QLabel#codeLanguage {{ color: {c.muted}; font-size: 11px; }}
QToolButton#codeCopy, QToolButton#messageAction {{ color: {c.muted}; font-size: 11px; border: none;
    border-radius: 4px; padding: 0px 6px; }}
QToolButton#codeCopy:hover, QToolButton#messageAction:hover {{ color: {c.text}; background: {c.border}; }}
QWidget#messageActions[floating="true"] {{ background: {c.card}; border: 1px solid {c.border}; border-radius: 6px; }}
QFrame#welcome {{ background: {c.card}; border: 1px solid {c.border}; border-radius: 12px; }}
QLabel#welcomeTitle {{ color: {c.text}; font-size: 18px; font-weight: bold; }}
QLabel#welcomeText {{ color: {c.text}; }}
QLabel#welcomeMuted {{ color: {c.muted}; }}
QPushButton#welcomePrompt {{ background: {c.assistant_bubble}; color: {c.text}; border: 1px solid {c.border};
    border-radius: 14px; padding: 6px 14px; }}
QPushButton#welcomePrompt:hover {{ border: 1px solid {c.accent}; }}
QPushButton#welcomeConnect {{ background: {c.accent}; color: white; border-radius: 6px; padding: 6px 18px; }}
QFrame#sidebar {{ background: {c.card_header}; border-right: 1px solid {c.border}; }}
QListWidget#conversationList {{ background: transparent; border: none; color: {c.text}; }}
QListWidget#conversationList::item {{ padding: 6px 6px; border-radius: 6px; }}
QListWidget#conversationList::item:selected {{ background: {c.user_bubble}; color: {c.user_text}; }}
QListWidget#conversationList::item:hover {{ background: {c.border}; }}
QPushButton#approve {{ background: {c.approve}; color: white; border-radius: 4px; padding: 4px 14px; }}
QPushButton#reject {{ background: {c.reject}; color: white; border-radius: 4px; padding: 4px 14px; }}
QPushButton#approve:focus, QPushButton#reject:focus {{ border: 2px solid {c.text}; padding: 2px 12px; }}
QPushButton#send[phase="interrupt"] {{ background: {c.reject}; color: white; }}
QPushButton#send[phase="interrupting"] {{ background: {c.interrupting}; color: #f4eaea; }}
QPushButton#send {{ border-radius: 6px; padding: 6px 16px; background: {c.accent}; color: white; }}
QPlainTextEdit#input {{ background: {c.assistant_bubble}; color: {c.text};
    border: 1px solid {c.border}; border-radius: 6px; padding: 4px; }}
QFrame#picker {{ background: {c.card}; border: 1px solid {c.border}; border-radius: 8px; }}
QListWidget#pickerList {{ background: transparent; border: none; color: {c.text}; }}
QListWidget#pickerList::item {{ border-radius: 6px; }}
QListWidget#pickerList::item:hover {{ background: {c.card_header}; }}
QListWidget#pickerList::item:selected {{ background: {c.user_bubble}; }}
QFrame#picker QScrollBar:vertical {{ background: transparent; width: 8px; margin: 2px 0px; }}
QFrame#picker QScrollBar::handle:vertical {{ background: {c.border}; border-radius: 4px; min-height: 24px; }}
QFrame#picker QScrollBar::add-line:vertical, QFrame#picker QScrollBar::sub-line:vertical {{
    height: 0px; }}
QFrame#picker QScrollBar::add-page:vertical, QFrame#picker QScrollBar::sub-page:vertical {{
    background: transparent; }}
QLabel#pickerName {{ color: {c.text}; font-weight: bold; }}
QLabel#pickerMuted {{ color: {c.muted}; }}
QLineEdit#pickerField {{ background: {c.assistant_bubble}; color: {c.text}; border: 1px solid {c.accent};
    border-radius: 4px; padding: 3px; }}
"""


def palette_is_dark(palette: QPalette) -> bool:
    color = palette.color(QPalette.ColorRole.Window)
    return is_dark_color((color.red(), color.green(), color.blue()))


def system_is_dark(app: QGuiApplication) -> bool:
    scheme = app.styleHints().colorScheme()
    if scheme == Qt.ColorScheme.Dark:
        return True
    if scheme == Qt.ColorScheme.Light:
        return False
    return palette_is_dark(app.palette())


_choice = "system"
"""The user's theme (Settings → Appearance): ``system``, ``light`` or ``dark``."""


def forced_theme() -> bool:
    """Light or dark was chosen, whatever the system's."""
    return _choice != "system"


def theme_choice() -> str:
    """The theme applied now: ``system``, ``light`` or ``dark``."""
    return _choice


_system_palette: QPalette | None = None
"""The application palette before a theme was forced, to go back to."""


def set_theme_choice(choice: str) -> None:
    """Force light or dark, or follow the system again. The style sheet
    colours only what it names (labels, inputs take the palette), so a
    forced theme also sets the application palette; the windows, told by
    the palette change, apply their style sheet again."""
    global _choice, _system_palette
    if choice not in ("system", "light", "dark"):
        raise ValueError(f"theme must be system, light or dark, got {choice!r}")
    if choice == _choice:
        return
    _choice = choice
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return
    if choice == "system":
        if _system_palette is not None:
            app.setPalette(_system_palette)
            _system_palette = None
        return
    if _system_palette is None:
        _system_palette = QPalette(app.palette())
    app.setPalette(palette_of(DARK if choice == "dark" else LIGHT))


def palette_of(c: Colors) -> QPalette:
    """A palette in these colours (a theme forced against the system's)."""
    role = QPalette.ColorRole
    palette = QPalette()
    for r, value in (
        (role.Window, c.window), (role.WindowText, c.text), (role.Base, c.card),
        (role.AlternateBase, c.card_header), (role.Text, c.text), (role.Button, c.card_header),
        (role.ButtonText, c.text), (role.Highlight, c.accent), (role.HighlightedText, "#ffffff"),
        (role.PlaceholderText, c.muted), (role.ToolTipBase, c.card), (role.ToolTipText, c.text),
        (role.BrightText, c.text), (role.Link, c.accent),
    ):
        palette.setColor(r, QColor(value))
    for r, value in ((role.WindowText, c.muted), (role.Text, c.muted), (role.ButtonText, c.muted)):
        palette.setColor(QPalette.ColorGroup.Disabled, r, QColor(value))
    return palette


def colors_for(app: QGuiApplication) -> Colors:
    if _choice != "system":
        return DARK if _choice == "dark" else LIGHT
    return DARK if system_is_dark(app) else LIGHT


def apply_theme(widget: QWidget) -> Colors:
    """Give ``widget`` (a top-level window) the style sheet for the current
    system colours. Windows call it again on a palette or colour-scheme
    change, so a system switch between light and dark is followed.

    A widget that has these colours already is left alone: one system
    switch reaches a window up to three times (palette change, theme
    change, colour scheme), and setting a style sheet re-polishes every
    widget under it."""
    app = QApplication.instance()
    assert isinstance(app, QApplication), "apply_theme needs a QApplication"
    colors = colors_for(app)
    sheet = style_sheet(colors)
    if widget.styleSheet() != sheet:  # the last colours applied to it, whoever applied them
        prefer_chinese_sans(app, dark=colors is DARK)  # before the sheet: one re-layout, in the right face
        widget.setStyleSheet(sheet)
        log.debug("theme: %s", "dark" if colors is DARK else "light")
    return colors


class SystemThemeFollower(QObject):
    """Keeps a top-level window in the system's light or dark as it switches.
    A switch reaches a window as an application palette change (the platform
    theme swaps palettes), a theme change, or (Qt 6.5+) only as the style
    hints' ``colorSchemeChanged``: some platforms send one of these and not
    the others, so it watches all three (:func:`apply_theme` restyles once).
    Qt 6 passes neither event on to ``changeEvent``, hence an event filter."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self._window = window
        window.installEventFilter(self)
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._on_color_scheme)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._window and event.type() in (
            QEvent.Type.ApplicationPaletteChange, QEvent.Type.ThemeChange
        ):
            apply_theme(self._window)
        return False

    @Slot(Qt.ColorScheme)
    def _on_color_scheme(self, _scheme: Qt.ColorScheme) -> None:
        """The system went light or dark: follow it, unless the user chose one."""
        if not forced_theme():
            apply_theme(self._window)
