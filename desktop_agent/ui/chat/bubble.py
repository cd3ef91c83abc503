"""Message bubbles: the user's text, the assistant's Markdown, notices.

Assistant text arrives as segments that already carry no control tags and
keep every space and newline (contracts §3), so the bubble only concatenates
them into Markdown source; it knows nothing of the stream parser.

A finished fenced code block becomes a :class:`~desktop_agent.ui.chat.code_block.CodeBlock`
(highlighted, its language, a Copy button). The user's and the assistant's
bubbles hold a row of message actions (Copy, and Regenerate or Edit when
the window offers them), shown while the pointer is over the bubble.

A streaming reply is shown as one label per finished block plus one for the
block still growing, so each segment re-renders only that last block, not
the whole reply (a long reply would otherwise cost more with every sentence);
:mod:`desktop_agent.ui.chat.markdown_blocks` says which blocks are finished, and
cuts a list around the code blocks inside it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal

from PySide6.QtCore import QEvent, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QEnterEvent, QResizeEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QVBoxLayout, QWidget
from shiboken6 import isValid

from desktop_agent.texts import Texts
from desktop_agent.ui.chat.action_row import ActionRow, MessageAction
from desktop_agent.ui.chat.attachment_chips import AttachmentChips
from desktop_agent.ui.chat.code_block import CodeBlock
from desktop_agent.ui.chat.markdown_blocks import finished_blocks
from desktop_agent.ui.chat.markdown_label import FinishedLabel, setup_label
from desktop_agent.ui.chat.slot import Slot, repaint_grown
from desktop_agent.ui.chat.version_switch import VersionSwitch

if TYPE_CHECKING:
    from desktop_agent.core.mentions import Attachment

BubbleRole = Literal["user", "assistant", "warning", "error"]

HOVER_GRACE_MS = 120
"""How long a floating action row outlives the pointer leaving its bubble."""
_NEWLINES = re.compile(r"\r\n?")
"""markdown-it counts lines after turning these into newlines; so must we."""


def _paragraph_break(source: str) -> str:
    """What ``source`` needs to end with a blank line; "" when it does or is blank."""
    if not source.strip():
        return ""
    lines = source[-256:].split("\n")
    if lines[-1].strip():
        return "\n\n"
    return "" if len(lines) >= 3 and not lines[-2].strip() else "\n"


LIST_INDENT_PX = 40
"""How far Qt's Markdown indents a list's text per level (QTextDocument's
indent width): code inside a list item is shown as far in as the item."""


def _indented(widget: QWidget, indent: int) -> QWidget:
    """``widget`` in a holder that leaves ``indent`` pixels on its left."""
    holder = QWidget(widget.parentWidget())
    row = QHBoxLayout(holder)
    row.setContentsMargins(indent, 0, 0, 0)
    row.addWidget(widget)
    return holder


class MessageBubble(QFrame):
    """One message. Users' text is plain; everything else is Markdown.

    A user bubble prefers the width of its longest line (the chat view caps
    it at a share of the view, and the text wraps beyond that).

    Signals:
        action_requested(kind: MessageAction)   its Regenerate or Edit was clicked
    """

    action_requested = Signal(MessageAction)

    def __init__(
        self, role: BubbleRole, text: str = "", parent: QWidget | None = None, *,
        texts: Texts, wording: Callable[[Texts], str] | None = None,
    ) -> None:
        super().__init__(parent)
        self._texts = texts
        """The language of its actions and code blocks' headers."""
        self._wording = wording
        """A notice's text in a language (it follows a switch)."""
        if wording is not None:
            text = wording(texts)
        self.setObjectName("bubble")
        self.setAttribute(Qt.WidgetAttribute.WA_StaticContents)  # a growing reply repaints its new part only
        self.setProperty("role", role)
        self.role: BubbleRole = role
        self._source = ""
        """Everything appended: plain text, or Markdown source."""
        self._natural: int | None = None
        self._format = Qt.TextFormat.PlainText if role == "user" else Qt.TextFormat.MarkdownText
        self._done = 0
        """Where the unfinished block begins in the source."""
        self.blocks: list[QLabel | CodeBlock] = []
        """The finished blocks (Markdown bubbles only): labels, and code blocks."""
        self.label = setup_label(QLabel(self), self._format)
        """The last (or only) label: the block still growing."""
        self._box = QVBoxLayout(self)
        self._box.setContentsMargins(12, 8, 12, 8)
        self._box.setSpacing(6)
        self._box.addWidget(self.label)
        self.action_row: ActionRow | None = None
        """Copy, Regenerate, Edit: the user's and the assistant's messages."""
        self.chips: AttachmentChips | None = None
        """A user message's MCP prompt and resources (:meth:`set_attachments`)."""
        self.versions: VersionSwitch | None = None
        """‹ n/N › of its turn's versions (:meth:`set_versions`)."""
        self._pinned = False
        self._offered = (False, False, False)
        # A child timer, not QTimer.singleShot(ms, self, ...): it goes with the
        # bubble, timer and all (a single shot's timer outlived a deleted
        # bubble under the message actions and crashed the event loop).
        self._hover_timer = QTimer(self)
        self._hover_timer.setSingleShot(True)
        self._hover_timer.setInterval(HOVER_GRACE_MS)
        self._hover_timer.timeout.connect(self._hide_floating)
        if role in ("user", "assistant"):
            self.action_row = ActionRow(self.text, texts, self)
            self.action_row.requested.connect(self.action_requested)
            self.action_row.left.connect(self._left_row)
            self.action_row.hide()
            # Floating beside a user bubble the row is the chat's child, not the
            # bubble's: it must go when the bubble goes (Regenerate, Edit, a new
            # conversation), or a later pointer event reaches a deleted bubble.
            self.destroyed.connect(self.action_row.deleteLater)
        if text:
            self.append(text)

    def set_attachments(self, attachments: Sequence[Attachment]) -> None:
        """Show the MCP prompt and resources the message carried as chips
        under its text (contracts §10); none: no chips."""
        if self.chips is not None:
            self._box.removeWidget(self.chips)
            self.chips.deleteLater()
            self.chips = None
        if attachments:
            self.chips = AttachmentChips(attachments, self._texts, self)
            self._box.insertWidget(self._box.indexOf(self.label) + 1, self.chips)
        self._natural = None
        self.updateGeometry()

    def retranslate(self, texts: Texts) -> None:
        """Its actions and code blocks' headers in ``texts``' language (a
        language switch); the message itself stays as written, except a
        notice the app words (:attr:`_wording`), said again."""
        self._texts = texts
        if self.versions is not None:
            self.versions.retranslate(texts)
        if self.chips is not None:
            self.chips.retranslate(texts)
            self._natural = None
        if self._wording is not None:
            self._reword(self._wording(texts))
        if self.action_row is not None:
            self.action_row.retranslate(texts)
            if self._pinned:
                self._natural = None
                self.updateGeometry()
        for block in self.blocks:
            if isinstance(block, CodeBlock):
                block.retranslate(texts)

    def _reword(self, text: str) -> None:
        if text == self._source:
            return
        for block in self.blocks:
            holder = block.parentWidget()  # the bubble, or an indent's holder
            (holder if holder is not None and holder is not self else block).deleteLater()
        self.blocks.clear()
        self._source, self._done, self._natural = "", 0, None
        self.append(text)
        self.finish()
        self.updateGeometry()

    def set_versions(self, position: tuple[int, int] | None) -> None:
        """Show ‹ index/count › under the text (``position``), or nothing."""
        switch = self.versions
        if position is None:
            if switch is not None and not switch.isHidden():
                switch.hide()
                self._natural = None
                self.updateGeometry()
            return
        if switch is None:
            switch = self.versions = VersionSwitch(self._texts, self)
            switch.stepped.connect(lambda delta: self.action_requested.emit(
                MessageAction.PREVIOUS_VERSION if delta < 0 else MessageAction.NEXT_VERSION))
            self._box.insertWidget(self._box.indexOf(self.label) + 1, switch)
        switch.show_position(*position)
        switch.show()
        self._natural = None
        self.updateGeometry()

    @property
    def offered(self) -> tuple[bool, bool, bool]:
        """What its actions offer now: Regenerate, Edit, and whether Edit says Cancel edit."""
        return self._offered

    @property
    def pinned(self) -> bool:
        """Whether its actions are a row under the text (:meth:`pin_actions`)."""
        return self._pinned

    def offer_actions(self, *, regenerate: bool, edit: bool, editing: bool = False) -> None:
        """Which of Regenerate and Edit its actions offer now."""
        if self.action_row is not None and (regenerate, edit, editing) != self._offered:
            self._offered = (regenerate, edit, editing)
            self.action_row.offer(regenerate=regenerate, edit=edit, editing=editing)
            if self._pinned:  # a pinned row is part of a user bubble's width; a floating one takes no room
                self._natural = None
                self.updateGeometry()

    def pin_actions(self, pinned: bool) -> None:
        """The last exchange's actions: a row under the text, always in
        sight (``pinned``). Otherwise they float while the pointer is over
        the bubble and take no room: beside a user bubble (the space on its
        left is empty), over an assistant bubble's bottom right corner."""
        row = self.action_row
        if row is None or pinned == self._pinned:
            return
        self._pinned = pinned
        row.set_floating(not pinned)
        if pinned:
            row.setParent(self)
            self._box.addWidget(row)
            row.show()
        else:
            self._box.removeWidget(row)
            row.hide()
        self._natural = None
        self.updateGeometry()

    def resizeEvent(self, event: QResizeEvent) -> None:
        repaint_grown(self, event)
        super().resizeEvent(event)

    def enterEvent(self, event: QEnterEvent) -> None:
        row = self.action_row
        if row is not None and not self._pinned:
            row.adjustSize()
            beside = self.parentWidget()
            if self.role == "user" and beside is not None and self.x() >= row.width() + 4:
                row.setParent(beside)
                row.move(self.x() - row.width() - 4, self.y() + self.height() - row.height())
            else:
                row.setParent(self)
                row.move(max(0, self.width() - row.width() - 6), max(0, self.height() - row.height() - 3))
            row.raise_()
            row.show()
        super().enterEvent(event)

    def leaveEvent(self, event: QEvent) -> None:
        if self.action_row is not None and isValid(self.action_row) and not self._pinned:
            # The pointer may be on its way to the row beside the bubble.
            self._hover_timer.start()
        super().leaveEvent(event)

    def _left_row(self) -> None:
        if isValid(self):
            self._hover_timer.start()

    def _hide_floating(self) -> None:
        row = self.action_row
        if row is not None and isValid(row) and not self._pinned and not (self.underMouse() or row.underMouse()):
            row.hide()

    def append(self, text: str, *, new_paragraph: bool = False) -> None:
        """Add display text (a segment's ``text``: no tags, whitespace kept).

        ``new_paragraph``: the text starts a new agent round; a blank line is
        put before it, unless the bubble is empty or already ends with one,
        so two rounds never run into one paragraph.
        """
        if new_paragraph:
            self._source += _paragraph_break(self._source)
        self._source += _NEWLINES.sub("\n", text) if "\r" in text else text
        self._natural = None
        if self.role == "user":
            self.label.setText(self._source)
            return
        self._render(final=False)
        self._fit_now()

    def finish(self) -> None:
        """The message is complete: its last block is final too."""
        if self.role != "user":
            self._render(final=True)
            self._fit_now()

    def _fit_now(self) -> None:
        """Have the slot holding this bubble give it its new height now.

        Left to the layout requests, the bubble's own layout would lay its
        blocks out first at the old height, squeezing every paragraph (a
        frame of clipped text, and one more paint of the whole bubble)
        before the slot grew it; so a segment costs one paint, not three."""
        slot = self.parentWidget()
        if isinstance(slot, Slot) and slot.isVisible():
            slot.measure(slot.width())
            # Its blocks take their places now too: a layout waiting for its
            # request would leave the growing paragraph at its old height
            # for the paint that comes first (its new line clipped, and the
            # paragraph painted twice).
            self._box.activate()

    def _render(self, *, final: bool) -> None:
        blocks, cut = finished_blocks(self._source[self._done :], final=final)
        self._done += cut
        placed_all: list[QWidget] = []
        for block in blocks:
            widget: QLabel | CodeBlock
            placed: QWidget
            indent = block.depth * LIST_INDENT_PX
            if block.code is None:  # measured once: only the growing block is laid out again
                placed = widget = FinishedLabel(block.markdown, self._format, indent, self)
            else:  # a finished code block: highlighted, its language, a Copy button
                widget = CodeBlock(block.code, block.language, self._texts, self)
                placed = _indented(widget, indent) if indent else widget
            policy = placed.sizePolicy()  # its room counts from now on, before the layout shows it
            policy.setRetainSizeWhenHidden(True)
            placed.setSizePolicy(policy)
            placed_all.append(placed)
            self.blocks.append(widget)
        for placed in placed_all:
            self._box.insertWidget(self._box.indexOf(self.label), placed)
        tail = self._source[self._done :].strip()
        self.label.setText(tail)
        self.label.setVisible(bool(tail) or not self.blocks)

    def natural_width(self) -> int:
        """Width that shows the longest line unwrapped."""
        if self._natural is None:
            metrics = self.label.fontMetrics()
            lines = self.text().splitlines() or [""]
            margins = self._box.contentsMargins()
            widest = max(metrics.horizontalAdvance(line) for line in lines)
            if self.action_row is not None and self._pinned:
                widest = max(widest, self.action_row.sizeHint().width())
            if self.chips is not None:
                widest = max(widest, self.chips.widest())
            if self.versions is not None and not self.versions.isHidden():
                widest = max(widest, self.versions.sizeHint().width())
            self._natural = widest + margins.left() + margins.right() + 6
        return self._natural

    def sizeHint(self) -> QSize:
        if self.role != "user":
            return super().sizeHint()
        width = self.natural_width()
        return QSize(width, self.heightForWidth(width))

    def text(self) -> str:
        """What the bubble shows (the Markdown source for assistant text)."""
        return self._source.strip() if self.role != "user" else self._source
