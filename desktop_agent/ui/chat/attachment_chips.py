"""The chips under a user's message: the MCP prompt and resources it
carried (contracts §10), one small rounded label each, naming the server
and the prompt or the resource (its last path segment; the whole URI in
the tooltip). A resource cut to size says so.

Dumb: it is given :class:`~desktop_agent.core.mentions.Attachment` records
and draws them; a language switch words them again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

if TYPE_CHECKING:
    from desktop_agent.core.mentions import Attachment
    from desktop_agent.texts import Texts

CHIP_STYLE = (
    "QLabel#attachmentChip { background: rgba(127, 127, 127, 0.16); border: 1px solid rgba(127, 127, 127, 0.5);"
    " border-radius: 9px; padding: 1px 8px; }"
)
"""Neutral in the light and the dark theme alike: a tint of the text's grey."""


def short_name(uri: str) -> str:
    """A resource's last path segment (``demo://x/features.md`` → ``features.md``), or the URI."""
    return uri.rstrip("/").rpartition("/")[2] or uri


def chip_text(texts: Texts, attachment: Attachment) -> tuple[str, str]:
    """(label, tooltip) of one chip in ``texts``' language."""
    if attachment.kind == "prompt":
        text = texts.tr("chip_prompt", server=attachment.server, name=attachment.name)
        tip = texts.tr("chip_prompt_tip", server=attachment.server, name=attachment.name)
    else:
        text = texts.tr("chip_resource", server=attachment.server, name=short_name(attachment.name))
        tip = texts.tr("chip_resource_tip", server=attachment.server, uri=attachment.name)
    if attachment.truncated:
        text, tip = texts.tr("chip_cut", chip=text), texts.tr("chip_cut_tip", tip=tip)
    return text, tip


class AttachmentChips(QWidget):
    """A column of chips, one per attachment, in the order they were attached."""

    def __init__(self, attachments: Sequence[Attachment], texts: Texts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("attachmentChips")
        self.attachments = tuple(attachments)
        self.chips: list[QLabel] = []
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(4)
        for _ in self.attachments:
            chip = QLabel(self)
            chip.setObjectName("attachmentChip")
            chip.setStyleSheet(CHIP_STYLE)
            chip.setTextFormat(Qt.TextFormat.PlainText)
            box.addWidget(chip, 0, Qt.AlignmentFlag.AlignLeft)
            self.chips.append(chip)
        self.retranslate(texts)

    def retranslate(self, texts: Texts) -> None:
        for chip, attachment in zip(self.chips, self.attachments, strict=True):
            text, tip = chip_text(texts, attachment)
            chip.setText(text)
            chip.setToolTip(tip)

    def widest(self) -> int:
        return max((chip.sizeHint().width() for chip in self.chips), default=0)
