"""The labels a message bubble shows its text in.

A streaming reply is one label per finished block plus one for the block
still growing (``bubble.py``). Every segment that arrives changes the
bubble's size, and Qt then asks each of its labels for its height at the
bubble's width again: for a word-wrapped Markdown label that is a fresh
layout of its whole text (~0.08 ms for a paragraph), so a reply of 30
paragraphs cost ~2.5 ms a segment, several times over (the bubble's slot,
its layout, showing the new block), and more with every paragraph. A
finished block's text never changes, so :class:`FinishedLabel` measures its
height once per width and font; only the growing block is laid out again.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

_INTERACTION = Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.LinksAccessibleByMouse
_REMEASURE = frozenset({QEvent.Type.FontChange, QEvent.Type.StyleChange, QEvent.Type.LayoutDirectionChange})
"""What changes the height a label's text takes at a width."""
_WIDTHS_KEPT = 4
"""How many widths a finished label remembers its height at (the bubble's
slot and layout ask at one or two; a window being resized asks at many)."""


def setup_label(label: QLabel, fmt: Qt.TextFormat) -> QLabel:
    """``label`` as a bubble shows text: wrapped, selectable, links open."""
    label.setWordWrap(True)
    label.setTextInteractionFlags(_INTERACTION)
    label.setOpenExternalLinks(True)
    label.setTextFormat(fmt)
    label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
    return label


def measure(label: QLabel, width: int) -> int:
    """Lay ``label``'s text out at ``width`` and return the height it takes
    (what Qt does for each word-wrapped label a layout asks)."""
    return QLabel.heightForWidth(label, width)


class FinishedLabel(QLabel):
    """A finished block of a reply: its text is set once, at creation, and
    its height for a width is measured once (until its font or style
    changes: a theme or language switch). ``indent``: the space on its left
    (a piece of a list around nested code), fixed with the text."""

    def __init__(self, markdown: str, fmt: Qt.TextFormat, indent: int = 0, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._heights: dict[int, int] = {}
        """Its height at the widths asked lately (oldest first)."""
        setup_label(self, fmt)
        self.setText(markdown)
        self.setContentsMargins(indent, 0, 0, 0)

    def heightForWidth(self, width: int) -> int:
        height = self._heights.get(width)
        if height is None:
            height = measure(self, width)
            if len(self._heights) >= _WIDTHS_KEPT:
                self._heights.pop(next(iter(self._heights)))
            self._heights[width] = height
        return height

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in _REMEASURE:
            self._heights.clear()
        super().changeEvent(event)
