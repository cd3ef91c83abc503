"""Language and theme choices (Settings → Appearance) turned into the
chosen language's :class:`~desktop_agent.texts.Texts` (which the window
then hands to what is open: ``MainWindow.retranslate``), Qt's own words
and the colours (:func:`set_theme_choice`)."""

from __future__ import annotations

from PySide6.QtCore import QLocale

from desktop_agent.texts import Language, Texts, choose_language
from desktop_agent.ui.common.qt_translations import apply_qt_language
from desktop_agent.ui.common.theme import set_theme_choice


def resolve_language(choice: str) -> Language:
    """``system``: ``DESKTOP_AGENT_LANG`` or the locale; else the choice."""
    if choice == "zh":
        return "zh"
    if choice == "en":
        return "en"
    return choose_language(QLocale.system().name())


def apply_appearance(language_choice: str, theme_choice: str) -> Texts:
    """The chosen colours and Qt's own words applied (application-wide, by Qt's
    design); returns the chosen language's texts for whoever switches."""
    language = resolve_language(language_choice)
    apply_qt_language(language)  # Qt's own buttons and menus follow
    set_theme_choice(theme_choice)
    return Texts(language)
