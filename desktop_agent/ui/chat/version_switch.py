"""‹ 1/2 ›: the versions of a turn that Regenerate or Edit made, under the
turn's reply (``core/versions.py`` keeps them; ``message_actions.ChatActions``
says where they are and switches). Always in sight, unlike the actions
that float on hover: that an answer has another version is worth seeing.

Signals:
    stepped(delta: int)    ‹ (-1) or › (+1) was clicked
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

from desktop_agent.texts import Texts


class VersionSwitch(QWidget):
    stepped = Signal(int)

    def __init__(self, texts: Texts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("versionSwitch")
        self._texts = texts
        self._index, self._count = 1, 1
        self.previous = QToolButton(self)
        self.previous.setText("‹")
        self.label = QLabel(self)
        self.label.setObjectName("cardMuted")
        self.next = QToolButton(self)
        self.next.setText("›")
        for button, delta in ((self.previous, -1), (self.next, 1)):
            button.setObjectName("messageAction")
            button.setAutoRaise(True)
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.clicked.connect(lambda _checked=False, d=delta: self.stepped.emit(d))
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(2)
        row.addWidget(self.previous)
        row.addWidget(self.label)
        row.addWidget(self.next)
        row.addStretch(1)
        self.retranslate(texts)

    def show_position(self, index: int, count: int) -> None:
        """Version ``index`` (1-based) of ``count`` is shown."""
        self._index, self._count = index, count
        self.previous.setEnabled(index > 1)
        self.next.setEnabled(index < count)
        self.retranslate(self._texts)

    def retranslate(self, texts: Texts) -> None:
        self._texts = texts
        fields = {"index": self._index, "count": self._count}
        self.label.setText(texts.tr("msg_version", **fields))
        self.label.setToolTip(texts.tr("msg_version_tip", **fields))
        self.previous.setToolTip(texts.tr("msg_version_previous"))
        self.next.setToolTip(texts.tr("msg_version_next"))

    def position(self) -> tuple[int, int]:
        """(index, count) as shown, for tests."""
        return self._index, self._count
