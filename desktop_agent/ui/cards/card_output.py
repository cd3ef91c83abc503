"""What a tool card shows of a call's output: the last lines live while it
runs (:class:`LiveOutput`, a few lines or more on request), the result's
images (:class:`ImageStrip`), and the monospace label and output box the
details use. Dumb widgets: the card decides when each is shown."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase, QPixmap
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPlainTextEdit, QToolButton, QVBoxLayout, QWidget

from desktop_agent.core.messages import ImageContent
from desktop_agent.ui.cards.state import ToolCardState
from desktop_agent.ui.cards.wording import output_tail
from desktop_agent.ui.common.retranslate import TextBindings

RESULT_MAX_CHARS = 6000
"""A card shows at most this much of a result (the model got all of it)."""
IMAGE_MAX_WIDTH = 360
LIVE_LINES = 4
"""Lines of live output a running card shows; ``LIVE_LINES_MORE`` expanded."""
LIVE_LINES_MORE = 16


def mono_label(parent: QWidget) -> QLabel:
    """Selectable plain text in the monospace style (arguments, result)."""
    label = QLabel(parent)
    label.setObjectName("mono")
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def output_box(parent: QWidget) -> QPlainTextEdit:
    """A read-only, unwrapped box in the system's fixed font (a command's output)."""
    box = QPlainTextEdit(parent)
    box.setObjectName("outputBox")
    box.setReadOnly(True)
    box.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
    box.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    box.setFrameShape(QFrame.Shape.NoFrame)
    return box


def fit_height(box: QPlainTextEdit, max_height: int) -> None:
    """``box`` as tall as its lines (and its horizontal scroll bar when a
    line is wider than it), at most ``max_height``: one line of output is
    not shown in a box a dozen lines tall. A box whose lines all fit has no
    vertical scroll bar."""
    document = box.document()
    height = document.blockCount() * box.fontMetrics().lineSpacing() + 2 * int(document.documentMargin())
    height += 2 * box.frameWidth() + 4
    if document.idealWidth() > box.viewport().width():
        height += box.horizontalScrollBar().sizeHint().height()
    fits = height <= max_height
    box.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff if fits else Qt.ScrollBarPolicy.ScrollBarAsNeeded)
    box.setFixedHeight(height if fits else max_height)


def clip(text: str, limit: int = RESULT_MAX_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n… ({len(text) - limit} more characters)"


class LiveOutput(QWidget):
    """A running call's last lines, as tall as they are, and the button
    that shows more (or fewer) of them."""

    def __init__(self, bindings: TextBindings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._bindings = bindings
        self._more = False
        self._shown: tuple[ToolCardState, bool] | None = None
        self.box = output_box(self)
        self.box.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.more = QToolButton(self)
        self.more.setAutoRaise(True)
        self.more.setText(bindings.texts.tr("output_more"))
        self.more.clicked.connect(self._on_more)
        live = QVBoxLayout(self)
        live.setContentsMargins(0, 0, 0, 0)
        live.setSpacing(0)
        live.addWidget(self.box)
        live.addWidget(self.more, 0, Qt.AlignmentFlag.AlignLeft)

    def show_output(self, state: ToolCardState, running: bool) -> None:
        """Shown while ``running`` with output, hidden otherwise."""
        self._shown = (state, running)
        show = running and bool(state.output)
        self.setVisible(show)
        if not show:
            return
        lines = LIVE_LINES_MORE if self._more else LIVE_LINES
        self.box.setPlainText(output_tail(state, lines))
        shown = min(lines, self.box.document().blockCount())
        line_height = self.box.fontMetrics().lineSpacing()
        self.box.setFixedHeight(shown * line_height + 2 * int(self.box.document().documentMargin()) + 4)
        self.box.horizontalScrollBar().setValue(0)
        texts = self._bindings.texts
        self.more.setText(texts.tr("output_less") if self._more else texts.tr("output_more"))
        more_exists = state.output.count("\n", max(0, len(state.output) - 64 * 1024)) > LIVE_LINES
        self.more.setVisible(more_exists or self._more)

    def _on_more(self) -> None:
        self._more = not self._more
        if self._shown is not None:
            self.show_output(*self._shown)


def image_label(parent: QWidget, image: ImageContent, max_width: int, undecoded: str) -> QLabel:
    """``image`` shown at most ``max_width`` wide, or ``undecoded`` (its type
    and size, worded) where it does not decode."""
    label = QLabel(parent)
    pixmap = QPixmap()
    if pixmap.loadFromData(image.data):
        if pixmap.width() > max_width:
            pixmap = pixmap.scaledToWidth(max_width, Qt.TransformationMode.SmoothTransformation)
        label.setPixmap(pixmap)
    else:
        label.setText(undecoded)
    return label


class ImageStrip(QWidget):
    """A result's images in a row, each at most :data:`IMAGE_MAX_WIDTH` wide
    (one that does not decode is named by its type and size)."""

    def __init__(self, bindings: TextBindings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._bindings = bindings
        self._shown: tuple[ImageContent, ...] = ()
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.addStretch(1)

    def show_images(self, images: tuple[ImageContent, ...]) -> None:
        if images == self._shown:
            return
        self._shown = images
        while self._layout.count() > 1:
            item = self._layout.takeAt(0)
            old = item.widget() if item is not None else None
            if old is not None:
                old.deleteLater()
        texts = self._bindings.texts
        for image in images:
            label = image_label(self, image, IMAGE_MAX_WIDTH,
                                texts.tr("card_image_undecoded", mime=image.mime, n=len(image.data)))
            label.setToolTip(image.mime)
            self._layout.insertWidget(self._layout.count() - 1, label)
