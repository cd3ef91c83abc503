"""The sidebar's search results (issue 14): a plain snippet of the matching
message with the words searched in bold, a row showing it under the
conversation's title, and a safe file name for an export. Kept apart from
``ui/sidebar.py`` (the list, its menu and dialogs)."""

from __future__ import annotations

import html
import re

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from desktop_agent.core.plain_text import PlainText, to_plain

SNIPPET_CHARS = 90
FILE_NAME_CHARS = 60
UNSAFE_IN_NAMES = re.compile(r'[\x00-\x1f<>:"/\\|?*]+')
"""Characters Windows (the strictest) does not take in a file name."""


def snippet(text: str, query: str, width: int = SNIPPET_CHARS) -> str:
    """The part of ``text`` (Markdown) around the first match of ``query``,
    as one plain line."""
    return snippet_parts(text, query, width)[0]


def snippet_parts(text: str, query: str, width: int = SNIPPET_CHARS) -> tuple[str, list[tuple[int, int]]]:
    """:func:`snippet`, and where in it each match of ``query`` is shown.

    Search matched the raw text, so matches are found there and mapped onto
    the plain characters shown; where none is found there (whitespace or
    mark-up between the words), in the plain text itself."""
    shown = to_plain(text)
    spans = _matches(text, shown, _fold(query.strip()))
    start = max(0, spans[0][0] - width // 4) if spans else 0
    end = start + width
    head = "…" if start > 0 else ""
    tail = "…" if end < len(shown.text) else ""
    shift = len(head) - start
    inside = [(max(a, start) + shift, min(b, end) + shift) for a, b in spans if b > start and a < end]
    return head + shown.text[start:end] + tail, inside


def _matches(text: str, shown: PlainText, needle: str) -> list[tuple[int, int]]:
    if not needle:
        return []
    spans = [s for at in _found(_fold(text), needle) if (s := shown.span(at, at + len(needle))) is not None]
    return spans or [(at, at + len(needle)) for at in _found(_fold(shown.text), needle)]


def _fold(text: str) -> str:
    """Lower case, character for character (``"İ".lower()`` is two: the
    offsets found in it would drift)."""
    return "".join(c if len(low := c.lower()) != 1 else low for c in text)


def _found(haystack: str, needle: str) -> list[int]:
    out: list[int] = []
    at = haystack.find(needle)
    while at >= 0:
        out.append(at)
        at = haystack.find(needle, at + len(needle))
    return out


def file_name(title: str, suffix: str) -> str:
    """A file name for an exported conversation: its title, made safe."""
    stem = UNSAFE_IN_NAMES.sub("_", title.splitlines()[0] if title else "").strip(" ._")[:FILE_NAME_CHARS]
    return f"{stem.strip() or 'conversation'}.{suffix}"


def marked(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` as rich text with these spans in bold."""
    out, at = [], 0
    for start, end in spans:
        out += [html.escape(text[at:start]), "<b>", html.escape(text[start:end]), "</b>"]
        at = end
    out.append(html.escape(text[at:]))
    return "".join(out)


class HitRow(QWidget):
    """One search result: the conversation's title over the matching words."""

    def __init__(self, title: str, words: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        column = QVBoxLayout(self)
        column.setContentsMargins(6, 5, 6, 5)
        column.setSpacing(1)
        self.title = QLabel(title, self)
        self.title.setObjectName("cardMuted")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.words = QLabel(words, self)
        self.words.setTextFormat(Qt.TextFormat.RichText)
        self.words.setWordWrap(True)
        column.addWidget(self.title)
        column.addWidget(self.words)
