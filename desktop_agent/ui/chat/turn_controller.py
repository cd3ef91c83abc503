"""TurnController: the Qt side of the turn logic, and nothing else.

:class:`~desktop_agent.ui.chat.turn_logic.TurnLogic` decides (turns,
answers, settings, conversations) without Qt; this QObject is the
:class:`~desktop_agent.ui.chat.turn_events.TurnEvents` it reports to, and
turns each report into a Signal the widgets connect to. The window holds
both: it calls :attr:`TurnController.logic` and renders the signals.

Signals:
    turn_finished(status: TurnEnd)
                                a turn ended; the conversation is saved
    phase_changed(phase: ButtonPhase)
                                the Send/Interrupt button's phase
    notice(level: NoticeLevel, text: str)
                                something to say in the conversation:
                                ``error`` or ``warning`` (Markdown), or
                                ``system`` (one plain line)
    model_changed(applied: AppliedSettings)
                                settings were applied; the model in use now
    speaking_changed(speaking: bool)
                                a turn's speech started or stopped playing
                                (skipping a sentence can act only meanwhile)
    unsent(text: str)           a message was not sent after all: its text
                                goes back to the input

The window imports this module when it is attached to its services, not
before it is shown (start-up: the window shows first).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic

from PySide6.QtCore import QObject, Signal

from desktop_agent.ui.chat.turn_answers import FormReply, readiness_line
from desktop_agent.ui.chat.turn_events import NoticeLevel, TurnEnd
from desktop_agent.ui.chat.turn_logic import CardInfo, TurnLogic, TurnSurface, V
from desktop_agent.ui.chat.turn_state import ButtonPhase

if TYPE_CHECKING:
    from collections.abc import Callable

    from desktop_agent.services import AppliedSettings
    from desktop_agent.texts import Texts
    from desktop_agent.ui.chat.turn_deps import TurnDeps


class TurnController(QObject, Generic[V]):
    turn_finished = Signal(TurnEnd)
    phase_changed = Signal(ButtonPhase)
    notice = Signal(NoticeLevel, str)
    model_changed = Signal(object)
    speaking_changed = Signal(bool)
    unsent = Signal(str)

    def __init__(self, deps: TurnDeps, parent: QObject | None = None, *, texts: Callable[[], Texts]) -> None:
        super().__init__(parent)
        self.logic: TurnLogic[V] = TurnLogic(deps, self, texts=texts)
        """What decides; it reports here."""

    # ---------------------------------------------- TurnEvents → Signals

    def turn_ended(self, status: TurnEnd) -> None:
        self.turn_finished.emit(status)

    def phase_set(self, phase: ButtonPhase) -> None:
        self.phase_changed.emit(phase)

    def said(self, level: NoticeLevel, text: str) -> None:
        self.notice.emit(level, text)

    def settings_applied(self, applied: AppliedSettings) -> None:
        self.model_changed.emit(applied)

    def speaking(self, speaking: bool) -> None:
        self.speaking_changed.emit(speaking)

    def give_back(self, text: str) -> None:
        self.unsent.emit(text)


__all__ = ["CardInfo", "FormReply", "TurnController", "TurnSurface", "readiness_line"]
