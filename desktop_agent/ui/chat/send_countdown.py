"""The line above the input that speech input talks through: the preview
countdown ("Sending in 2 s — press any key or click the text to edit it",
with a bar running out) and the hint that a spoken answer to an approval
is awaited. One line for both, since they never show together: a countdown
only runs with no turn (so no card) waiting.

Dumb: :class:`~desktop_agent.ui.voice.glue.VoiceGlue` says what to show,
from the voice session's actions.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QWidget

from desktop_agent.texts import Texts

BAR_STEPS = 1000


class VoiceLine(QWidget):
    def __init__(self, texts: Callable[[], Texts], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._texts = texts
        """The window's language now (the countdown is worded as it counts)."""
        self.setObjectName("voiceLine")
        self.dot = QLabel("●", self)
        """Red while a spoken answer is listened for (the mic button's colour)."""
        self.dot.setStyleSheet("color: #d32f2f;")
        self.label = QLabel(self)
        font = self.label.font()
        font.setBold(True)
        self.label.setFont(font)
        self.bar = QProgressBar(self)
        self.bar.setRange(0, BAR_STEPS)
        self.bar.setTextVisible(False)
        self.bar.setFixedWidth(120)
        self.bar.setFixedHeight(6)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(14, 4, 14, 0)
        layout.addWidget(self.dot)
        layout.addWidget(self.label)
        layout.addSpacing(8)
        layout.addWidget(self.bar)
        layout.addStretch(1)
        self._hint = ""
        self._counting = False
        self.hide()

    @property
    def counting(self) -> bool:
        return self._counting

    def show_countdown(self, remaining_s: float, total_s: float) -> None:
        """``remaining_s`` < 0: the countdown is over (the hint, if any, shows again)."""
        if remaining_s < 0:
            self._counting = False
            self._render()
            return
        self._counting = True
        self.label.setText(self._texts().tr("voice_countdown", seconds=max(1, math.ceil(remaining_s - 1e-6))))
        self.bar.setValue(round(BAR_STEPS * remaining_s / total_s) if total_s > 0 else 0)
        self.bar.show()
        self.dot.hide()
        self.show()

    def show_hint(self, text: str) -> None:
        """"": no answer is awaited any more."""
        self._hint = text
        self._render()

    def _render(self) -> None:
        if self._counting:
            return
        self.bar.hide()
        self.dot.show()
        self.label.setText(self._hint)
        self.setVisible(bool(self._hint))
