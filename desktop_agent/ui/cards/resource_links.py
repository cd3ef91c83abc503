"""The resources a tool result links to or carries, as a list on its card.

Each row is a link (name, URI, type). Clicking it opens it where it lives: a
web address in the browser, anything else (an MCP resource URI such as
``demo://…`` or ``file://…``, which only the server can read) is asked for
through :attr:`ResourceLinks.open_requested`, so that whoever holds the
engine reads it and shows it (the card knows no engine). An embedded text
resource carries its content already: it shows under its row, collapsed
until the user opens it.

Signals:
    open_requested(uri: str)
        A non-web link was clicked.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QToolButton, QVBoxLayout, QWidget

from desktop_agent.core.messages import ResourceRef
from desktop_agent.texts import Texts

EMBEDDED_MAX_HEIGHT = 180


def is_web(uri: str) -> bool:
    return uri.lower().startswith(("http://", "https://"))


def describe(texts: Texts, ref: ResourceRef) -> str:
    """The line under a link: its URI, its type, and an embedded blob's size."""
    parts = [ref.uri]
    if ref.mime:
        parts.append(ref.mime)
    if ref.size is not None:
        parts.append(texts.tr("card_resource_bytes", n=ref.size))
    return " · ".join(parts)


class ResourceLinks(QWidget):
    open_requested = Signal(str)

    def __init__(self, texts: Texts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.texts = texts
        self.open_url: Callable[[QUrl], object] = QDesktopServices.openUrl
        """Opens a web link (tests replace it)."""
        self.refs: tuple[ResourceRef, ...] = ()
        self.links: list[QLabel] = []
        """One link per resource, in order."""
        self.toggles: dict[int, QToolButton] = {}
        """Row index → the show/hide button of an embedded text resource."""
        self.bodies: dict[int, QPlainTextEdit] = {}
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(4)
        self.title = QLabel(self)
        self.title.setObjectName("cardMuted")
        self._layout.addWidget(self.title)

    def show_refs(self, refs: tuple[ResourceRef, ...]) -> None:
        if refs == self.refs:
            return
        self.refs = refs
        while self._layout.count() > 1:
            item = self._layout.takeAt(1)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.links, self.toggles, self.bodies = [], {}, {}
        for index, ref in enumerate(refs):
            self._add_row(index, ref)
        self.retranslate(self.texts)

    def retranslate(self, texts: Texts) -> None:
        self.texts = texts
        self.title.setText(texts.tr("card_resources", n=len(self.refs)))
        for index, ref in enumerate(self.refs):
            self.links[index].setText(self._link_html(ref))
            toggle = self.toggles.get(index)
            if toggle is not None:
                toggle.setText(texts.tr("card_resource_hide" if toggle.isChecked() else "card_resource_show"))

    def activate(self, index: int) -> None:
        """As if the user clicked the row's link."""
        uri = self.refs[index].uri
        if is_web(uri):
            self.open_url(QUrl(uri))
        else:
            self.open_requested.emit(uri)

    def _link_html(self, ref: ResourceRef) -> str:
        detail = escape(describe(self.texts, ref))
        tip = f"<br><small>{escape(ref.description)}</small>" if ref.description else ""
        return f'<a href="{escape(ref.uri)}">{escape(ref.name)}</a> <small>{detail}</small>{tip}'

    def _add_row(self, index: int, ref: ResourceRef) -> None:
        row = QWidget(self)
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        link = QLabel(row)
        link.setTextFormat(Qt.TextFormat.RichText)
        link.setWordWrap(True)
        link.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse)
        link.setToolTip(ref.uri)
        link.linkActivated.connect(lambda _href, i=index: self.activate(i))
        self.links.append(link)
        line.addWidget(link, 1)
        self._layout.addWidget(row)
        if ref.text is None:
            return
        toggle = QToolButton(row)
        toggle.setCheckable(True)
        toggle.setAutoRaise(True)
        line.addWidget(toggle, 0, Qt.AlignmentFlag.AlignTop)
        body = QPlainTextEdit(self)
        body.setObjectName("outputBox")
        body.setReadOnly(True)
        body.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        body.setPlainText(ref.text)
        lines = body.document().lineCount() + 1
        body.setFixedHeight(min(EMBEDDED_MAX_HEIGHT, lines * body.fontMetrics().lineSpacing() + 12))
        body.setVisible(False)
        self._layout.addWidget(body)
        toggle.toggled.connect(lambda on, i=index: self._show_body(i, on))
        self.toggles[index], self.bodies[index] = toggle, body

    def _show_body(self, index: int, shown: bool) -> None:
        self.bodies[index].setVisible(shown)
        self.toggles[index].setText(self.texts.tr("card_resource_hide" if shown else "card_resource_show"))
