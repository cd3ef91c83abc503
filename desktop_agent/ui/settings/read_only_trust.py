"""Per-server trust in read-only tools: one checkbox per MCP
server, "Allow <server>'s read-only tools without asking", all off until
the user ticks one. It edits ``Settings.trusted_read_only_servers``; what
that allows is decided in core (``core/risk.read_only_trusted``), and such
calls still show as cards and are audited.

A small standalone widget, so the Settings dialog's Tools page can hold it.

Signals:
    changed(trusted: list)  the servers now trusted, in the order shown
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QLabel, QVBoxLayout, QWidget

from desktop_agent.texts import Texts


class ReadOnlyTrustBox(QWidget):
    changed = Signal(list)

    def __init__(
        self, texts: Texts, servers: Sequence[str] = (), trusted: Collection[str] = (),
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._texts = texts
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.title = QLabel(self._texts.tr("trust_title"), self)
        self.title.setObjectName("cardTitle")
        self.note = QLabel(self._texts.tr("trust_note"), self)
        self.note.setObjectName("cardMuted")
        self.note.setWordWrap(True)
        self.empty = QLabel(self._texts.tr("trust_no_servers"), self)
        self.empty.setObjectName("cardMuted")
        self._layout.addWidget(self.title)
        self._layout.addWidget(self.note)
        self._layout.addWidget(self.empty)
        self.boxes: dict[str, QCheckBox] = {}
        self.set_servers(servers, trusted)

    def set_servers(self, servers: Sequence[str], trusted: Collection[str]) -> None:
        """Show ``servers``, ticked where in ``trusted`` (no signal)."""
        for box in self.boxes.values():
            self._layout.removeWidget(box)
            box.deleteLater()
        self.boxes = {}
        for server in servers:
            box = QCheckBox(self._texts.tr("trust_server", server=server), self)
            box.setChecked(server in trusted)
            box.toggled.connect(lambda _on: self.changed.emit(self.trusted()))
            self._layout.addWidget(box)
            self.boxes[server] = box
        self.empty.setVisible(not servers)

    def retranslate(self, texts: Texts) -> None:
        """Its words in ``texts``' language (a language switch in Settings)."""
        self._texts = texts
        self.title.setText(texts.tr("trust_title"))
        self.note.setText(texts.tr("trust_note"))
        self.empty.setText(texts.tr("trust_no_servers"))
        for server, box in self.boxes.items():
            box.setText(texts.tr("trust_server", server=server))

    def trusted(self) -> list[str]:
        return [server for server, box in self.boxes.items() if box.isChecked()]
