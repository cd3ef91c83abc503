"""The remote servers' sign-ins on the Tools page: one row per server that
asked for one, its state in words and the one button that fits —
**Sign in** (needed, expired, or the last attempt failed: the failure in
one line) or **Sign out** (signed in). Hidden while no server signs in.

Dumb: it shows :class:`SignInRow` values and says which button was
pressed; the Tools page runs the sign-in (:mod:`desktop_agent.mcp_engine.oauth`).

Signals:
    sign_in_requested(server: str)
    sign_out_requested(server: str)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop_agent.texts import Texts

if TYPE_CHECKING:
    from desktop_agent.mcp_engine.oauth import SignInState
    from desktop_agent.mcp_engine.status import ServerStatus


@dataclass(frozen=True, slots=True)
class SignInRow:
    server: str
    kind: str
    """``needed``, ``again``, ``signing_in``, ``signed_in`` or ``failed``."""
    reason: str | None = None
    """Why the last sign-in failed (English, from the engine)."""
    refused: str | None = None
    """The server's OAuth error code, when it refused."""

    def words(self, texts: Texts) -> str:
        if self.kind == "failed":
            reason = texts.tr("signin_refused", code=self.refused) if self.refused else (self.reason or "")
            return texts.tr("signin_failed", server=self.server, reason=reason)
        return texts.tr(f"signin_{self.kind}", server=self.server)

    @property
    def signed_in(self) -> bool:
        return self.kind == "signed_in"


def sign_in_rows(
    names: Sequence[str], states: Mapping[str, SignInState], statuses: Mapping[str, ServerStatus]
) -> list[SignInRow]:
    """The rows for the servers in ``names`` (file order) that sign in: those
    with a sign-in state, or whose status says one is needed."""
    rows: list[SignInRow] = []
    for name in names:
        state = states.get(name)
        status = statuses.get(name)
        if state is not None:
            rows.append(SignInRow(name, state.kind, state.reason, state.refused))
        elif status is not None and status.state == "sign_in":
            rows.append(SignInRow(name, "needed"))
    return rows


class _Line(QWidget):
    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.button = QPushButton(self)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.button)


class SignInBox(QWidget):
    sign_in_requested = Signal(str)
    sign_out_requested = Signal(str)

    def __init__(self, texts: Texts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._texts = texts
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.title = QLabel(self)
        self.title.setObjectName("cardTitle")
        self._layout.addWidget(self.title)
        self.lines: dict[str, _Line] = {}
        self._rows: list[SignInRow] = []
        self.retranslate(texts)
        self.setVisible(False)

    def retranslate(self, texts: Texts) -> None:
        self._texts = texts
        self.title.setText(texts.tr("signin_title"))
        self.set_rows(list(self._rows))

    def set_rows(self, rows: list[SignInRow]) -> None:
        """Show ``rows``; lines are kept and updated in place (the page refreshes twice a second)."""
        if [r.server for r in rows] != list(self.lines):
            for line in self.lines.values():
                self._layout.removeWidget(line)
                line.deleteLater()
            self.lines = {}
            for row in rows:
                line = _Line(self)
                name = row.server
                line.button.clicked.connect(lambda _checked=False, name=name: self._pressed(name))
                self._layout.addWidget(line)
                self.lines[name] = line
        self._rows = rows
        for row in rows:
            line = self.lines[row.server]
            line.label.setText(row.words(self._texts))
            line.label.setProperty("state", row.kind)
            line.button.setText(self._texts.tr("signout_button" if row.signed_in else "signin_button"))
            line.button.setEnabled(row.kind != "signing_in")
        self.setVisible(bool(rows))

    def row(self, server: str) -> SignInRow | None:
        return next((r for r in self._rows if r.server == server), None)

    def _pressed(self, server: str) -> None:
        row = self.row(server)
        if row is None:
            return
        if row.signed_in:
            self.sign_out_requested.emit(server)
        else:
            self.sign_in_requested.emit(server)
