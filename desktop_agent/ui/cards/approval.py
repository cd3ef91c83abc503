"""A tool card's answer row: Approve and Reject with their keys, "Always
allow", and the second question a destructive tool's "Always allow" asks.

Signals:
    server_trusted()
        Approve was chosen with "Always allow read-only tools from this
        server" ticked (emitted just before ``answered``).
    answered(approved: bool, always_allow: bool)
        Approve or Reject was chosen (a click, or the key the window routes
        here through :meth:`ApprovalControls.answer`). On a destructive
        tool's card, Approve with "Always allow" ticked first asks again
        (a destructive tool is not always allowed by a slip): "Yes,
        always allow" answers with the box, "Just this once" without it, "Back" returns to the buttons.

The keys: Alt+A approves and Alt+R rejects, written on the buttons. Not
Enter, which sends what is typed in the input (an approval must never ride
on a message sent out of habit), and not Esc, which stops the whole turn
from anywhere in the window; rejecting stops it too, but says "rejected by
you" to the model and the audit log, which a key meant to stop things
should not decide alone.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from desktop_agent.ui.common.key_hints import APPROVE_KEY, REJECT_KEY, key_text
from desktop_agent.ui.common.retranslate import TextBindings


class ApprovalControls(QWidget):
    answered = Signal(bool, bool)
    server_trusted = Signal()

    def __init__(self, texts: TextBindings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._texts = texts
        self._pending = False
        self._destructive = False
        self._confirming = False
        """Approve with "Always allow" was chosen on a destructive tool's
        card: it asks once more before answering."""

        self.approve_button = QPushButton(self)
        texts.bind(self.approve_button.setText, "card_approve_key", shortcut=key_text(APPROVE_KEY))
        self.approve_button.setObjectName("approve")
        self.reject_button = QPushButton(self)
        texts.bind(self.reject_button.setText, "card_reject_key", shortcut=key_text(REJECT_KEY))
        self.reject_button.setObjectName("reject")
        self.always = QCheckBox(self)
        texts.bind(self.always.setText, "always_allow")
        self.always_server = QCheckBox(self)
        """Trust this server's read-only tools (offered on a read-only tool's card)."""
        self._offers_tool = True
        self._offers_server = False
        self.approval_row = QWidget(self)
        row = QHBoxLayout(self.approval_row)
        row.setContentsMargins(0, 2, 0, 0)
        row.addWidget(self.approve_button)
        row.addWidget(self.reject_button)
        row.addSpacing(8)
        row.addWidget(self.always)
        row.addWidget(self.always_server)
        row.addStretch(1)
        self.approve_button.clicked.connect(lambda: self.answer(True))
        self.reject_button.clicked.connect(lambda: self.answer(False))

        self.confirm_text = texts.label("card_confirm_always_text", self)
        self.confirm_text.setObjectName("cardRisk")
        self.confirm_text.setWordWrap(True)
        self.confirm_always = QPushButton(self)
        texts.bind(self.confirm_always.setText, "card_confirm_always")
        self.confirm_always.setObjectName("reject")  # red: the risky choice
        self.confirm_once = QPushButton(self)
        texts.bind(self.confirm_once.setText, "card_confirm_once")
        self.confirm_once.setObjectName("approve")
        self.confirm_back = QPushButton(self)
        texts.bind(self.confirm_back.setText, "card_confirm_back")
        self.confirm_row = QWidget(self)
        confirm = QVBoxLayout(self.confirm_row)
        confirm.setContentsMargins(0, 2, 0, 0)
        confirm.addWidget(self.confirm_text)
        confirm_buttons = QHBoxLayout()
        confirm_buttons.addWidget(self.confirm_always)
        confirm_buttons.addWidget(self.confirm_once)
        confirm_buttons.addWidget(self.confirm_back)
        confirm_buttons.addStretch(1)
        confirm.addLayout(confirm_buttons)
        self.confirm_always.clicked.connect(lambda: self._confirmed(True))
        self.confirm_once.clicked.connect(lambda: self._confirmed(False))
        self.confirm_back.clicked.connect(self._back)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        layout.addWidget(self.approval_row)
        layout.addWidget(self.confirm_row)
        self.show_pending(False, destructive=False)

    def offer(self, tool: str | None, server: str | None = None, confirm: str | None = None) -> None:
        """The always-allow choices: the "Always allow" box's words (None: no
        box), the server box's words (None: none), the words of the second
        question a destructive call's box asks (None: the usual ones)."""
        self._offers_tool, self._offers_server = tool is not None, server is not None
        if tool is not None:
            self.always.setText(tool)
        else:
            self.always.setChecked(False)
        if server is not None:
            self.always_server.setText(server)
        else:
            self.always_server.setChecked(False)
        self.confirm_text.setText(confirm or self._texts.texts.tr("card_confirm_always_text"))
        self._render()

    @property
    def confirming(self) -> bool:
        return self._confirming

    def show_pending(self, pending: bool, *, destructive: bool) -> None:
        """The card waits for an answer (the buttons show) or no longer does."""
        self._pending, self._destructive = pending, destructive
        if not pending:
            self._confirming = False
        self._render()

    def answer(self, approved: bool) -> None:
        """Approve (with the box, asking again first for a destructive tool)
        or Reject; nothing once the card no longer waits. Reject works from
        the second question too."""
        if not self._pending:
            return
        always = approved and self.always.isChecked()
        if approved and self._confirming:
            return  # the second question waits for its own buttons
        if always and self._destructive:
            self._confirming = True  # a destructive tool is always-allowed only when asked twice
            self._render()
            return
        self._confirming = False
        if approved and self._offers_server and self.always_server.isChecked():
            self.server_trusted.emit()
        self.answered.emit(approved, always)

    def _confirmed(self, always: bool) -> None:
        """The second question's answer: approve, with or without the box."""
        if not self._pending or not self._confirming:
            return
        self._confirming = False
        if not always:
            self.always.setChecked(False)
        self.answered.emit(True, always)

    def _back(self) -> None:
        self._confirming = False
        self._render()

    def _render(self) -> None:
        self.approval_row.setVisible(self._pending and not self._confirming)
        self.always.setVisible(self._offers_tool)
        self.always_server.setVisible(self._offers_server)
        self.confirm_row.setVisible(self._pending and self._confirming)
        self.setVisible(self._pending)


__all__ = ["ApprovalControls"]
