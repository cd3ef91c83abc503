"""The ``show_card`` card: title, Markdown body, an optional image and
label/value fields (contracts §5 ``card``). Its texts are the model's; only
"image not found" is the app's own (:meth:`VisualCardWidget.retranslate`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QFormLayout, QFrame, QLabel, QVBoxLayout, QWidget

from desktop_agent.texts import Texts

if TYPE_CHECKING:
    from desktop_agent.core.messages import Card

IMAGE_MAX_WIDTH = 480


class VisualCardWidget(QFrame):
    def __init__(self, card: Card, texts: Texts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("visualCard")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 12, 14, 12)
        layout.setSpacing(8)
        self.title = QLabel(card.title, self)
        self.title.setObjectName("cardTitle")
        self.title.setWordWrap(True)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.2)
        self.title.setFont(font)
        layout.addWidget(self.title)

        self.image: QLabel | None = None
        self._missing = False
        image_path = card.image_path
        if image_path:
            self.image = QLabel(self)
            pixmap = QPixmap(str(image_path))
            if pixmap.isNull():
                self._missing = True
                self.image.setText(texts.tr("card_image_missing"))
                self.image.setObjectName("cardMuted")
            else:
                if pixmap.width() > IMAGE_MAX_WIDTH:
                    pixmap = pixmap.scaledToWidth(IMAGE_MAX_WIDTH, Qt.TransformationMode.SmoothTransformation)
                self.image.setPixmap(pixmap)
            layout.addWidget(self.image)

        self.body = QLabel(self)
        self.body.setWordWrap(True)
        self.body.setTextFormat(Qt.TextFormat.MarkdownText)
        self.body.setOpenExternalLinks(True)
        self.body.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.LinksAccessibleByMouse
        )
        self.body.setText(card.body)
        layout.addWidget(self.body)

        self.fields: list[tuple[str, str]] = []
        if card.fields:
            form = QFormLayout()
            form.setHorizontalSpacing(16)
            for item in card.fields:
                label, value = item.label, item.value
                self.fields.append((label, value))
                name = QLabel(label, self)
                name.setObjectName("cardMuted")
                shown = QLabel(value, self)
                shown.setWordWrap(True)
                shown.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
                form.addRow(name, shown)
            layout.addLayout(form)

    def retranslate(self, texts: Texts) -> None:
        """The app's own text again in ``texts``' language (a language switch)."""
        if self.image is not None and self._missing:
            self.image.setText(texts.tr("card_image_missing"))
