"""The top row of a tool card: spinner or state icon, title, the server it
is from, the argument summary (or "always allowed" while it runs), why it
ran without a click, and the Details toggle. Only built here; what each
says is set by :class:`~desktop_agent.ui.cards.tool_card.ToolCardWidget`
from the card's state."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

from desktop_agent.ui.common.retranslate import TextBindings
from desktop_agent.ui.common.spinner import Spinner


def _plain(parent: QWidget, name: str | None = None) -> QLabel:
    label = QLabel(parent)
    if name is not None:
        label.setObjectName(name)
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


class CardHeader:
    """The header's widgets, children of the card (the style sheet matches
    them inside ``#toolCard``), laid out in :attr:`layout`."""

    def __init__(self, card: QWidget, bindings: TextBindings) -> None:
        self.icon = QLabel(card)
        self.spinner = Spinner(card)
        self.title = _plain(card, "cardTitle")
        self.server = _plain(card, "cardMuted")
        self.badge = _plain(card, "cardMuted")
        self.auto_note = _plain(card, "cardNote")
        """Why a finished call ran without a click ("always allowed"), kept
        small so a call approved by hand can be told from one a setting approved."""
        self.toggle = QToolButton(card)
        self.toggle.setCheckable(True)
        self.toggle.setAutoRaise(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setArrowType(Qt.ArrowType.RightArrow)
        bindings.bind(self.toggle.setText, "details_show")
        self.layout = QHBoxLayout()
        self.layout.setSpacing(6)
        for widget in (self.spinner, self.icon, self.title, self.server, self.badge, self.auto_note):
            self.layout.addWidget(widget)
        self.layout.addStretch(1)
        self.layout.addWidget(self.toggle)
