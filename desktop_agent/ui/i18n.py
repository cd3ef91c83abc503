"""A process-wide language and ``tr``, kept only for tests that have not yet moved to
:class:`~desktop_agent.texts.Texts`: no production module imports this one. A window speaks
the ``Texts`` it was built with (``MainWindow(texts=…)``) and hands it to its widgets; a
switch hands a new one (``retranslate(texts)``). The words live in :mod:`desktop_agent.texts`.
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
