"""The field a rejected card offers: "Tell the model what to do instead".

Rejecting a call ends the turn (the model is told the user rejected it);
without this the user's only way on is to guess that typing in the input
box reaches the same conversation. What is sent here is the conversation's
next user message, as if typed there; the rejection itself still reaches
the model as before.

Signals:
    sent(text: str)
        Send (or Enter) with some text; the window answers with
        :meth:`RedirectField.show_sent` (True: it became the next message;
        False: a turn still runs, the text stays to send again).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from desktop_agent.ui.common.retranslate import TextBindings


class RedirectField(QWidget):
    sent = Signal(str)

    def __init__(self, texts: TextBindings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._texts = texts
        self._sent_text: str | None = None
        self._busy = False
        self.label = texts.label("card_redirect_label", self)
        self.label.setObjectName("cardMuted")
        self.input = QLineEdit(self)
        self.input.setObjectName("redirectInput")
        texts.bind(self.input.setPlaceholderText, "card_redirect_placeholder")
        self.send_button = QPushButton(self)
        texts.bind(self.send_button.setText, "card_redirect_send")
        self.send_button.setEnabled(False)
        self.note = QLabel(self)
        self.note.setObjectName("cardMuted")
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.input, 1)
        row.addWidget(self.send_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.label)
        layout.addLayout(row)
        layout.addWidget(self.note)
        self.input.textChanged.connect(lambda text: self.send_button.setEnabled(bool(text.strip())))
        self.input.returnPressed.connect(self._send)
        self.send_button.clicked.connect(self._send)
        self.withdraw()

    @property
    def offered(self) -> bool:
        """The field waits for the user's words."""
        return not self.input.isHidden()

    def offer(self) -> None:
        """Show the field (the user just rejected the call)."""
        self._sent_text, self._busy = None, False
        self._render(asking=True)

    def withdraw(self) -> None:
        """Hide it (a later turn started): the moment to redirect has passed.
        What was sent stays said."""
        self._busy = False
        self._render(asking=False)

    def show_sent(self, ok: bool) -> None:
        """The window's answer to :attr:`sent`."""
        if ok:
            self._sent_text = self.input.text().strip()
            self.input.clear()
            self._busy = False
            self._render(asking=False)
        else:
            self._busy = True
            self._render(asking=True)

    def retranslate(self) -> None:
        """The note again in the bindings' language (the rest is bound)."""
        self._render(asking=self.offered)

    def _send(self) -> None:
        text = self.input.text().strip()
        if text and self.offered:
            self.sent.emit(text)

    def _render(self, *, asking: bool) -> None:
        texts = self._texts.texts
        if self._sent_text is not None:
            note = texts.tr("card_redirect_sent", text=self._sent_text)
        elif self._busy:
            note = texts.tr("card_redirect_busy")
        else:
            note = ""
        self.label.setVisible(asking)
        self.input.setVisible(asking)
        self.send_button.setVisible(asking)
        self.note.setText(note)
        self.note.setVisible(bool(note))
        self.setVisible(asking or bool(note))


__all__ = ["RedirectField"]
