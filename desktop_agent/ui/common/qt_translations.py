"""Qt's own words in the app's language (every visible string is
translated): the standard dialog buttons, a text field's context menu
(Undo, Copy, Paste, Select All), Qt's file dialog where the platform has no
native one. They come from Qt's ``qtbase`` catalogue, which PySide6 ships
(and the bundle carries); it is installed on the application for Chinese
and removed for English, live, as the language changes.

Our own texts are each window's (:class:`~desktop_agent.texts.Texts`); this only covers
what Qt draws itself, and application-wide: Qt takes translators per application, so this
is the one language setting two windows share.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QTranslator

from desktop_agent.texts import Language

log = logging.getLogger(__name__)

CATALOGUES: dict[Language, str] = {"zh": "qtbase_zh_CN"}
"""Qt's catalogue for each language that needs one (English is Qt's own)."""

_installed: QTranslator | None = None
_applied: tuple[Language, bool] | None = None
"""The language applied last and whether its catalogue loaded: asked again
(a Settings Save after the live switch), nothing is read from disk."""


def apply_qt_language(language: Language) -> bool:
    """Install Qt's catalogue for ``language`` (removing the previous one);
    False, and why logged, when it cannot be loaded: Qt's words stay English.
    The language applied already is not applied again (same answer)."""
    global _installed, _applied
    app = QCoreApplication.instance()
    if app is None:
        return False
    if _applied is not None and _applied[0] == language:
        return _applied[1]
    if _installed is not None:
        app.removeTranslator(_installed)
        _installed = None
    _applied = (language, _install(app, language))
    return _applied[1]


def _install(app: QCoreApplication, language: Language) -> bool:
    global _installed
    name = CATALOGUES.get(language)
    if name is None:
        return True
    folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    translator = QTranslator(app)
    if not translator.load(name, folder):
        log.warning("Qt's %s catalogue is not in %s: Qt's own buttons stay in English", name, folder)
        return False
    app.installTranslator(translator)
    _installed = translator
    return True
