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
broken back end from locking the window. The fallback runs on a
:class:`~desktop_agent.core.timers.Timers` (Qt's by default), so a test
moves it with a ``FakeClock``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QPushButton, QWidget

from desktop_agent.texts import Texts
from desktop_agent.ui.chat.turn_state import ButtonPhase
from desktop_agent.ui.common.qt_timers import QtTimers

if TYPE_CHECKING:
    from desktop_agent.core.timers import Cancellable, Timers

INTERRUPT_FALLBACK_MS = 15_000


class SendButton(QPushButton):
    send_requested = Signal()
    interrupt_requested = Signal()
    fallback_fired = Signal()

    def __init__(
        self, texts: Texts, parent: QWidget | None = None, *, fallback_ms: int = INTERRUPT_FALLBACK_MS,
        timers: Timers | None = None,
    ) -> None:
        super().__init__(parent)
        self._texts = texts
        self.setObjectName("send")
        self._phase = ButtonPhase.SEND
        self._fallback_ms = fallback_ms
        self._timers: Timers = timers or QtTimers()
        self._fallback: Cancellable | None = None
        self.clicked.connect(self._on_clicked)
        self._render()

    @property
    def phase(self) -> ButtonPhase:
        return self._phase

    @property
    def fallback_ms(self) -> int:
        return self._fallback_ms

    def set_phase(self, phase: ButtonPhase) -> None:
        if phase == ButtonPhase.INTERRUPTING:
            if self._phase != ButtonPhase.INTERRUPTING:
                self._stop_fallback()
                self._fallback = self._timers.call_later(self._fallback_ms / 1000, self._on_fallback)
        else:
            self._stop_fallback()
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

    def _stop_fallback(self) -> None:
        if self._fallback is not None:
            self._fallback.cancel()
            self._fallback = None

    def _on_fallback(self) -> None:
        self._fallback = None
        if self._phase == ButtonPhase.INTERRUPTING:
            self.set_phase(ButtonPhase.SEND)
            self.fallback_fired.emit()
