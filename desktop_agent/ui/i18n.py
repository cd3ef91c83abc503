"""The language the window speaks, and ``tr`` to look its words up.

The words themselves live in :mod:`desktop_agent.texts`, one catalogue per feature, shared
with the headless terminal (which never imports this module). ``set_language`` is called by
the composition root at start and by Settings → Appearance; widgets re-translate through
:mod:`desktop_agent.ui.shell.retranslate`.
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
