"""The sidebar's search results: a plain snippet of the matching
message with the words searched in bold, a row showing it under the
conversation's title, and a safe file name for an export. Kept apart from
``ui/conversations/sidebar.py`` (the list, its menu and dialogs)."""

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
WINDOW_CHARS = 300
"""About how much raw text either side of a hit is made plain for its snippet."""
LONG_LINE = 2000
"""A line longer than this is cut inside for a snippet's window."""


def snippet_parts(text: str, query: str, width: int = SNIPPET_CHARS) -> tuple[str, list[tuple[int, int]]]:
    """The part of ``text`` (Markdown) around the first match of ``query``,
    as one plain line, and where in it each match of ``query`` is shown.

    Search matched the raw text, so matches are found there and mapped onto
    the plain characters shown; where none is found there (whitespace or
    mark-up between the words), in the plain text itself. Only a window of
    the raw text around the first match is made plain: this runs for every
    hit on each keystroke, and a long reply took ~20 ms per 10 KB whole."""
    needle = fold(query.strip())
    folded = fold(text)
    at = folded.find(needle) if needle else -1
    margin = WINDOW_CHARS + width
    while at >= 0:
        lo, hi = _cut_start(text, at - margin), _cut_end(text, at + len(needle) + margin)
        if lo == 0 and hi == len(text):
            break
        shown = to_plain(text[lo:hi])
        spans = _raw_spans(folded[lo:hi], shown, needle)
        if spans:
            start = max(0, spans[0][0] - width // 4)
            # The window shows what the whole would only with enough text
            # either side of the snippet; else a wider one.
            if (lo == 0 or start > 0) and (hi == len(text) or start + width < len(shown.text)):
                return _cut(shown, spans, width)
        margin *= 4
    shown = to_plain(text)
    spans = _raw_spans(folded, shown, needle) if needle else []
    if needle and not spans:
        spans = [(i, i + len(needle)) for i in _found(fold(shown.text), needle)]
    return _cut(shown, spans, width)


def _cut(shown: PlainText, spans: list[tuple[int, int]], width: int) -> tuple[str, list[tuple[int, int]]]:
    start = max(0, spans[0][0] - width // 4) if spans else 0
    end = start + width
    head = "…" if start > 0 else ""
    tail = "…" if end < len(shown.text) else ""
    shift = len(head) - start
    inside = [(max(a, start) + shift, min(b, end) + shift) for a, b in spans if b > start and a < end]
    return head + shown.text[start:end] + tail, inside


def _cut_start(text: str, at: int) -> int:
    """Where a window reaching back to ``at`` starts: a line's start, so its
    block markers parse as in the whole; in a very long line, a word's
    (a letter after a space: no marker starts so)."""
    if at <= 0:
        return 0
    line = text.rfind("\n", 0, at) + 1
    if at - line > LONG_LINE:
        for i in range(at, at - 64, -1):
            if text[i].isalpha() and text[i - 1] == " ":
                return i
    return line


def _cut_end(text: str, at: int) -> int:
    """Where a window reaching on to ``at`` ends: a line's end, or in a very
    long line a space."""
    line = text.find("\n", at)
    line = len(text) if line < 0 else line
    if line - at > LONG_LINE:
        space = text.find(" ", at, at + 64)
        if space >= 0:
            return space
    return line


def _raw_spans(folded: str, shown: PlainText, needle: str) -> list[tuple[int, int]]:
    """The matches in the (folded) raw text, as shown; those on mark-up alone left out."""
    return [s for at in _found(folded, needle) if (s := shown.span(at, at + len(needle))) is not None]


def fold(text: str) -> str:
    """Lower case, character for character (``"İ".lower()`` is two: the
    offsets found in it would drift)."""
    low = text.lower()
    if len(low) == len(text):
        return low  # no character grew, so none moved
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


def marked(text: str, spans: list[tuple[int, int]], background: str) -> str:
    """``text`` as rich text with these spans in bold on the theme's hit
    colour: weight alone is not enough (light Chinese on a dark window reads
    heavy, so a bold hit would not stand out)."""
    out, at = [], 0
    opening = f'<b style="background-color:{background}">'
    for start, end in spans:
        out += [html.escape(text[at:start]), opening, html.escape(text[start:end]), "</b>"]
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
