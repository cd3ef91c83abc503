"""The product's words in English and Chinese, one catalogue per feature, without Qt.

The window and the headless terminal read the same texts: ``text_in(language, key)`` looks a
key up in one language. The catalogues (:mod:`.shell`, :mod:`.chat`, :mod:`.cards`,
:mod:`.voice`, :mod:`.settings`, :mod:`.conversations`, :mod:`.notices`) belong to the
feature that shows them; merging them here refuses a key defined in two, so a key always
means one text. A small in-code table rather than Qt's ``.ts``/``.qm`` machinery keeps each
translation beside its English original and testable without Qt. Which language a window
speaks is that window's: it holds one :class:`Texts` and hands it to what it builds; this
package holds no language of its own.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from desktop_agent.texts import cards, chat, conversations, notices, settings, shell, voice

Language = Literal["en", "zh"]

CATALOGUES: Mapping[str, Mapping[str, tuple[str, str]]] = MappingProxyType(
    {
        "shell": shell.TEXTS,
        "chat": chat.TEXTS,
        "cards": cards.TEXTS,
        "voice": voice.TEXTS,
        "settings": settings.TEXTS,
        "conversations": conversations.TEXTS,
        "notices": notices.TEXTS,
    }
)
"""Each feature's catalogue by the feature's name."""


def merge(catalogues: Mapping[str, Mapping[str, tuple[str, str]]]) -> dict[str, tuple[str, str]]:
    """One table of every catalogue's keys; a key in two catalogues is an error naming both."""
    merged: dict[str, tuple[str, str]] = {}
    owner: dict[str, str] = {}
    for feature, table in catalogues.items():
        for key, pair in table.items():
            if key in merged:
                raise ValueError(f"text {key!r} is defined in both the {owner[key]} and the {feature} catalogue")
            merged[key] = pair
            owner[key] = feature
    return merged


_TEXTS = merge(CATALOGUES)

COUNTED_BY: Mapping[str, str] = MappingProxyType(
    {
        "audit_count": "total",
        "notice_conversations_recovered": "listed",
        "notice_conversations_damaged_not_moved": "recovered",
    }
)
"""The field that counts in a text with a ``_one`` form, where it is
neither ``count`` nor ``n`` (the usual two)."""


def counted_key(key: str, fields: Mapping[str, object]) -> str:
    """``KEY_one`` when the catalogue has it and the number the text counts
    with is 1 ("1 tool", not "1 tools"), else ``key``. Every lookup goes
    through this, so a caller never chooses the form itself; Chinese needs
    no other form, so its ``_one`` text is its plural one."""
    one = f"{key}_one"
    if one not in _TEXTS:
        return key
    field = COUNTED_BY.get(key) or next((name for name in ("count", "n") if name in fields), None)
    return one if field is not None and str(fields.get(field)) == "1" else key


def text_in(language: Language, key: str, **fields: object) -> str:
    """The text for ``key`` in ``language``, formatted with ``fields`` (its
    singular form where it counts one thing: :func:`counted_key`)."""
    try:
        en, zh = _TEXTS[counted_key(key, fields)]
    except KeyError:
        raise KeyError(f"no UI text named {key!r}") from None
    text = zh if language == "zh" else en
    return text.format(**fields) if fields else text


def keys() -> frozenset[str]:
    return frozenset(_TEXTS)


@dataclass(frozen=True, slots=True)
class Texts:
    """The words of one language: what a window (and each widget and wording function it
    uses) is given instead of reading a process-wide language, so two windows in one
    process can speak two languages. Frozen: switching the language builds another one and
    hands it to what is open."""

    language: Language = "en"

    def __post_init__(self) -> None:
        if self.language not in ("en", "zh"):
            raise ValueError(f"language must be 'en' or 'zh', got {self.language!r}")

    def tr(self, key: str, **fields: object) -> str:
        """The text for ``key`` in this language, formatted with ``fields``."""
        return text_in(self.language, key, **fields)


ENGLISH = Texts("en")
CHINESE = Texts("zh")


def language_for_locale(name: str) -> Language:
    """``zh_CN``, ``zh-Hant``, ``zh`` → Chinese; anything else → English."""
    return "zh" if name.lower().replace("-", "_").startswith("zh") else "en"


def choose_language(system_locale: str) -> Language:
    """The override in ``DESKTOP_AGENT_LANG`` if valid, else by locale (screenshots and tests use it)."""
    forced = os.environ.get("DESKTOP_AGENT_LANG", "").strip().lower()
    if forced in ("en", "zh"):
        return "zh" if forced == "zh" else "en"
    return language_for_locale(system_locale)


INTERRUPTED_TEXT: Mapping[str, str | None] = MappingProxyType(
    {
        "user": "sys_interrupted",
        "rejected": "sys_interrupted",
        "approval_timeout": "sys_approval_timeout",
        "error": None,  # the error notice already said what happened
    }
)
"""The system message for each ``interrupted.reason``: the one table the window and the
terminal read."""
