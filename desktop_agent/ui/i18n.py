"""A process-wide language and ``tr``, for what has not yet moved to a window's own
:class:`~desktop_agent.texts.Texts`.

A window speaks the ``Texts`` it was built with and hands it to its widgets
(``MainWindow(texts=…)``, ``retranslate(texts)``). What still reads the language here: a
window built without ``texts=`` (:func:`current_texts`) and the tests that set it. ``set_language`` is called by the composition root
at start and by Settings → Appearance (``apply_appearance``) so that these follow too. The
words themselves live in :mod:`desktop_agent.texts`, shared with the headless terminal
(which never imports this module).
"""

from __future__ import annotations

from desktop_agent.texts import (
    INTERRUPTED_TEXT,
    Language,
    Texts,
    choose_language,
    keys,
    language_for_locale,
    text_in,
)

__all__ = [
    "INTERRUPTED_TEXT",
    "Language",
    "choose_language",
    "current_texts",
    "keys",
    "language",
    "language_for_locale",
    "set_language",
    "text_in",
    "tr",
]

_current: Language = "en"


def set_language(language: Language) -> None:
    global _current
    if language not in ("en", "zh"):
        raise ValueError(f"language must be 'en' or 'zh', got {language!r}")
    _current = language


def language() -> Language:
    return _current


def current_texts() -> Texts:
    """The window's language as a :class:`Texts` (what widgets are handed while the window
    still keeps its language here)."""
    return Texts(_current)


def tr(key: str, **fields: object) -> str:
    """The text for ``key`` in the window's language, formatted with ``fields``."""
    return text_in(_current, key, **fields)
