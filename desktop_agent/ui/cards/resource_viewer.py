"""A resource opened from a tool card's link, read-only: its text, or its
images as images, and a line when the text was cut. The window reads the
resource (through the engine) and hands the content here as plain values."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core.messages import ImageContent
from desktop_agent.texts import Texts
from desktop_agent.ui.cards.card_output import image_label
from desktop_agent.ui.common.theme import apply_theme

IMAGE_MAX_WIDTH = 640


class ResourceViewer(QDialog):
    def __init__(
        self,
        server: str,
        uri: str,
        text: str,
        texts: Texts,
        *,
        images: tuple[ImageContent, ...] = (),
        truncated: bool = False,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(texts.tr("resource_viewer_title", name=uri, server=server))
        self.resize(680, 480)
        self.uri_label = QLabel(uri, self)
        self.uri_label.setObjectName("cardMuted")
        self.uri_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.text.setPlainText(text)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.text.setVisible(bool(text) or not images)
        self.images: list[QLabel] = []
        holder = QWidget(self)
        column = QVBoxLayout(holder)
        for image in images:
            label = image_label(holder, image, IMAGE_MAX_WIDTH,
                                texts.tr("resource_viewer_binary", mime=image.mime, n=len(image.data)))
            column.addWidget(label)
            self.images.append(label)
        scroll = QScrollArea(self)
        scroll.setWidget(holder)
        scroll.setWidgetResizable(True)
        scroll.setVisible(bool(images))
        self.truncated = QLabel(texts.tr("resource_viewer_truncated"), self)
        self.truncated.setObjectName("cardMuted")
        self.truncated.setVisible(truncated)
        buttons = QDialogButtonBox(self)
        close = buttons.addButton(texts.tr("resource_viewer_close"), QDialogButtonBox.ButtonRole.RejectRole)
        close.clicked.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.uri_label)
        layout.addWidget(self.text, 1)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.truncated)
        layout.addWidget(buttons)
        apply_theme(self)
