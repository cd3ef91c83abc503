"""The Send ↔ Interrupt button with its two-phase interrupt (contracts §7:
Interrupting… and disabled until ``interrupted`` arrives, so nothing new is
sent before the partial results are kept).

Signals:
    send_requested()        clicked while ``send``
    interrupt_requested()   clicked while ``interrupt``
    fallback_fired()        ``interrupting`` lasted ``fallback_ms`` without
                            ``interrupted`` arriving; the button is back to Send

"Interrupting…" is disabled so the user cannot start a new turn before the
interrupted turn has handed in its partial results; the fallback keeps a
broken back end from locking the window.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QPushButton, QWidget

from desktop_agent.texts import Texts
from desktop_agent.ui.chat.turn_state import ButtonPhase

INTERRUPT_FALLBACK_MS = 15_000


class SendButton(QPushButton):
    send_requested = Signal()
    interrupt_requested = Signal()
    fallback_fired = Signal()

    def __init__(
        self, texts: Texts, parent: QWidget | None = None, *, fallback_ms: int = INTERRUPT_FALLBACK_MS
    ) -> None:
        super().__init__(parent)
        self._texts = texts
        self.setObjectName("send")
        self._phase = ButtonPhase.SEND
        self._fallback = QTimer(self)
        self._fallback.setSingleShot(True)
        self._fallback.setInterval(fallback_ms)
        self._fallback.timeout.connect(self._on_fallback)
        self.clicked.connect(self._on_clicked)
        self._render()

    @property
    def phase(self) -> ButtonPhase:
        return self._phase

    @property
    def fallback_ms(self) -> int:
        return self._fallback.interval()

    def set_phase(self, phase: ButtonPhase) -> None:
        if phase == ButtonPhase.INTERRUPTING:
            if self._phase != ButtonPhase.INTERRUPTING:
                self._fallback.start()
        else:
            self._fallback.stop()
        self._phase = ButtonPhase(phase)
        self._render()

    def retranslate(self, texts: Texts) -> None:
        """Texts again in ``texts``' language (Settings → Appearance)."""
        self._texts = texts
        self._render()

    def _render(self) -> None:
        self.setText(self._texts.tr(self._phase.value))
        self.setEnabled(self._phase != ButtonPhase.INTERRUPTING)
        self.setProperty("phase", self._phase.value)
        self.style().unpolish(self)
        self.style().polish(self)

    def _on_clicked(self) -> None:
        if self._phase == ButtonPhase.SEND:
            self.send_requested.emit()
        elif self._phase == ButtonPhase.INTERRUPT:
            self.interrupt_requested.emit()

    def _on_fallback(self) -> None:
        if self._phase == ButtonPhase.INTERRUPTING:
            self.set_phase(ButtonPhase.SEND)
            self.fallback_fired.emit()
