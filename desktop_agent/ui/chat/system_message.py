"""A centred, muted line in the chat (:class:`SystemMessage`): the
interrupt messages, a restored conversation's notices and the like."""

from __future__ import annotations

import functools
from collections.abc import Mapping

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from desktop_agent.texts import Language, Texts, keys, text_in


class SystemMessage(QLabel):
    """A centred, muted line: the three interrupt messages and the like.

    A line that is one of the app's texts follows a language switch
    (:meth:`retranslate`): ``key`` (and ``fields``) name it, or, for text
    that arrives already translated (the controller's notices, a restored
    conversation's), it is recognised among the texts without fields."""

    def __init__(
        self, text: str, parent: QWidget | None = None, *, key: str | None = None,
        fields: Mapping[str, object] | None = None,
    ) -> None:
        super().__init__(text, parent)
        self.setObjectName("systemMessage")
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setWordWrap(True)
        self.key = key if key is not None else _plain_texts().get(text)
        self._fields = dict(fields or {})

    def retranslate(self, texts: Texts) -> None:
        if self.key is not None:
            self.setText(texts.tr(self.key, **self._fields))


_LANGUAGES: tuple[Language, ...] = ("en", "zh")


@functools.cache
def _plain_texts() -> dict[str, str]:
    """Every UI text without fields, in both languages, to its key."""
    out: dict[str, str] = {}
    for key in sorted(keys()):
        for lang in _LANGUAGES:
            text = text_in(lang, key)
            if "{" not in text:
                out.setdefault(text, key)
    return out
