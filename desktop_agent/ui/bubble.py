"""Message bubbles: the user's text, the assistant's Markdown, notices.

Assistant text arrives as segments; the bubble keeps the raw text (which
keeps the newlines Markdown needs) and shows it with control tags stripped.
A streaming reply is shown as one label per finished paragraph plus one for
the paragraph still growing, so each segment re-renders only that last
paragraph, not the whole reply (a long reply would otherwise cost more with
every sentence).
"""

from __future__ import annotations

from typing import Literal

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QFrame, QLabel, QSizePolicy, QVBoxLayout, QWidget

BubbleRole = Literal["user", "assistant", "warning", "error"]

_INTERACTION = Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.LinksAccessibleByMouse
_FENCE = "```"


def complete_blocks(text: str, start: int) -> tuple[list[str], int]:
    """Markdown paragraphs of ``text[start:]`` that are finished: followed by
    a blank line, and not inside an open code fence. Returns them (stripped,
    empty ones dropped) and where the unfinished rest begins."""
    blocks: list[str] = []
    block_start = search = start
    while (cut := text.find("\n\n", search)) >= 0:
        block = text[block_start:cut]
        fences = sum(1 for line in block.splitlines() if line.lstrip().startswith(_FENCE))
        search = cut + 2
        if fences % 2:
            continue  # a blank line inside a code block
        if block.strip():
            blocks.append(block.strip("\n"))
        block_start = cut + 2
    return blocks, block_start


def fenced_code(block: str) -> str | None:
    """The code inside a block that is exactly one fenced code block."""
    lines = block.strip().splitlines()
    if len(lines) >= 2 and lines[0].lstrip().startswith(_FENCE) and lines[-1].strip() == _FENCE:
        body = lines[1:-1]
        if not any(line.strip().startswith(_FENCE) for line in body):
            return "\n".join(body)
    return None


def _label(parent: QWidget, fmt: Qt.TextFormat) -> QLabel:
    label = QLabel(parent)
    label.setWordWrap(True)
    label.setTextInteractionFlags(_INTERACTION)
    label.setOpenExternalLinks(True)
    label.setTextFormat(fmt)
    label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
    return label


class MessageBubble(QFrame):
    """One message. Users' text is plain; everything else is Markdown.

    A user bubble prefers the width of its longest line (the chat view caps
    it at a share of the view, and the text wraps beyond that).
    """

    def __init__(self, role: BubbleRole, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("bubble")
        self.setProperty("role", role)
        self.role: BubbleRole = role
        self._raw = ""
        self._natural: int | None = None
        self._format = Qt.TextFormat.PlainText if role == "user" else Qt.TextFormat.MarkdownText
        self._done = 0
        """Where the unfinished paragraph begins in the shown text."""
        self.blocks: list[QLabel] = []
        """Labels of the finished paragraphs (Markdown bubbles only)."""
        self.label = _label(self, self._format)
        """The last (or only) label: the paragraph still growing."""
        self._box = QVBoxLayout(self)
        self._box.setContentsMargins(12, 8, 12, 8)
        self._box.setSpacing(6)
        self._box.addWidget(self.label)
        if text:
            self.append(text)

    def append(self, raw_text: str) -> None:
        """Add a segment (its ``raw_text``; tags are stripped for display)."""
        self._raw += raw_text
        self._natural = None
        if self.role == "user":
            self.label.setText(self._raw)
            return
        from desktop_agent.core.stream_parser import strip_tags  # not needed to show the window

        self._render(strip_tags(self._raw))

    def finish(self) -> None:
        """The message is complete: its last paragraph is final too."""
        from desktop_agent.core.stream_parser import strip_tags

        if self.role != "user":
            self._render(strip_tags(self._raw).rstrip("\n") + "\n\n")

    def _render(self, shown: str) -> None:
        finished, self._done = complete_blocks(shown, self._done)
        for block in finished:
            code = fenced_code(block)
            label = _label(self, self._format if code is None else Qt.TextFormat.PlainText)
            if code is None:
                label.setText(block)
            else:  # a finished code block: monospace on a tinted ground (the theme's #mono)
                label.setObjectName("mono")
                label.setText(code)
            self._box.insertWidget(self._box.count() - 1, label)
            self.blocks.append(label)
        tail = shown[self._done :].strip()
        self.label.setText(tail)
        self.label.setVisible(bool(tail) or not self.blocks)

    def natural_width(self) -> int:
        """Width that shows the longest line unwrapped."""
        if self._natural is None:
            metrics = self.label.fontMetrics()
            lines = self.text().splitlines() or [""]
            margins = self._box.contentsMargins()
            widest = max(metrics.horizontalAdvance(line) for line in lines)
            self._natural = widest + margins.left() + margins.right() + 6
        return self._natural

    def sizeHint(self) -> QSize:
        if self.role != "user":
            return super().sizeHint()
        width = self.natural_width()
        return QSize(width, self.heightForWidth(width))

    def text(self) -> str:
        """What the bubble shows (the Markdown source for assistant text)."""
        from desktop_agent.core.stream_parser import strip_tags

        return strip_tags(self._raw).strip() if self.role != "user" else self._raw


class SystemMessage(QLabel):
    """A centred, muted line: the three interrupt messages and the like."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setObjectName("systemMessage")
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setWordWrap(True)
