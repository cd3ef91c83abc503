"""The push-to-talk button beside Send, and the hands-free switch.

Signals (``MicButton``):
    talk_started()    pressed (mouse down) while ``idle``
    talk_ended()      released after ``talk_started``
    about_to_use()    the pointer or the keyboard focus reached the button: a
                      press may follow (the devices are looked at then, not
                      at idle: see ``ui/voice/device_glue.py``)

States, each an icon and a tooltip: ``idle`` (a microphone in the text
colour), ``listening`` (red, a filled dot), ``recognising`` (amber, three
dots), ``unavailable`` (grey, struck through; disabled, the reason in the
tooltip and in the accessible description, which screen readers say).
"""

from __future__ import annotations

from enum import StrEnum

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QEnterEvent, QFocusEvent, QIcon, QPainter, QPalette, QPen, QPixmap
from PySide6.QtWidgets import QToolButton, QWidget

from desktop_agent.texts import Texts, text_in


class MicState(StrEnum):
    """What the mic button shows: speech input's state (``VoiceInput.state``)."""

    IDLE = "idle"
    LISTENING = "listening"
    RECOGNISING = "recognising"
    UNAVAILABLE = "unavailable"


_COLOURS: dict[MicState, str | None] = {
    MicState.IDLE: None,  # the palette's button text
    MicState.LISTENING: "#e0393e",
    MicState.RECOGNISING: "#d69a00",
    MicState.UNAVAILABLE: "#8a8a8a",
}


_REASON_KEYS = ("mic_none", "mic_no_recognizer", "starting")
"""Reasons that arrive as a UI text without fields: said again in the
current language (a reason given before a language switch stays given)."""


def reason_text(texts: Texts, reason: str) -> str:
    """``reason`` in ``texts``' language when it is one of those texts."""
    for key in _REASON_KEYS:
        if reason in (text_in("en", key), text_in("zh", key)):
            return texts.tr(key)
    return reason


def mic_icon(state: MicState, text_colour: QColor, size: int = 28) -> QIcon:
    colour = QColor(_COLOURS[state] or text_colour)
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    p = QPainter(pixmap)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    s = size / 28
    pen = QPen(colour, 2.2 * s)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    p.setPen(pen)
    if state == MicState.LISTENING:
        p.setBrush(colour)
    p.drawRoundedRect(QRectF(10 * s, 3 * s, 8 * s, 14 * s), 4 * s, 4 * s)
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawArc(QRectF(6 * s, 7 * s, 16 * s, 14 * s), 180 * 16, 180 * 16)
    p.drawLine(QPointF(14 * s, 21 * s), QPointF(14 * s, 25 * s))
    p.drawLine(QPointF(10 * s, 25 * s), QPointF(18 * s, 25 * s))
    if state == MicState.RECOGNISING:
        p.setBrush(colour)
        for x in (20, 23.5, 27):
            p.drawEllipse(QPointF((x - 1) * s, 4 * s), 1.2 * s, 1.2 * s)
    if state == MicState.UNAVAILABLE:
        p.drawLine(QPointF(4 * s, 4 * s), QPointF(24 * s, 24 * s))
    p.end()
    return QIcon(pixmap)


class MicButton(QToolButton):
    talk_started = Signal()
    talk_ended = Signal()
    about_to_use = Signal()

    def __init__(self, texts: Texts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._texts = texts
        self.setObjectName("mic")
        self.setAutoRaise(True)
        self.setIconSize(QSize(24, 24))
        self._state = MicState.IDLE
        self._reason = ""
        self._held = False
        self.pressed.connect(self._on_pressed)
        self.released.connect(self._on_released)
        self._render()

    @property
    def state(self) -> MicState:
        return self._state

    @property
    def reason(self) -> str:
        return self._reason

    def set_state(self, state: MicState, reason: str = "") -> None:
        self._state, self._reason = MicState(state), reason
        self._render()

    def retranslate(self, texts: Texts) -> None:
        """Texts again in ``texts``' language (Settings → Appearance)."""
        self._texts = texts
        self._render()

    def _render(self) -> None:
        # The active group's colour: while disabled (before set_state enables
        # it) the current group would be the disabled grey.
        text = self.palette().color(QPalette.ColorGroup.Active, QPalette.ColorRole.ButtonText)
        self.setIcon(mic_icon(self._state, text))
        tips: dict[MicState, str] = {
            MicState.IDLE: self._texts.tr("mic_idle"),
            MicState.LISTENING: self._texts.tr("mic_listening"),
            MicState.RECOGNISING: self._texts.tr("mic_recognising"),
            MicState.UNAVAILABLE: self._texts.tr("mic_unavailable", reason=reason_text(self._texts, self._reason)),
        }
        self.setToolTip(tips[self._state])
        self.setAccessibleName(tips[self._state])
        self.setAccessibleDescription(reason_text(self._texts, self._reason) if self._state == MicState.UNAVAILABLE else "")
        self.setEnabled(self._state != MicState.UNAVAILABLE)
        self.setProperty("mic_state", self._state)

    def _on_pressed(self) -> None:
        if self._state == MicState.IDLE:
            self._held = True
            self.talk_started.emit()

    def _on_released(self) -> None:
        if self._held:
            self._held = False
            self.talk_ended.emit()

    def enterEvent(self, event: QEnterEvent) -> None:
        super().enterEvent(event)
        self.about_to_use.emit()

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        self.about_to_use.emit()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._render()  # a dark palette needs a light microphone

    def cancel_hold(self) -> None:
        """Esc during a hold: the release that follows ends nothing."""
        self._held = False


class HandsFreeButton(QToolButton):
    """A checkable switch: listen all the time (``toggled(bool)``)."""

    def __init__(self, texts: Texts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._texts = texts
        self.setObjectName("hands_free")
        self.setCheckable(True)
        self.setAutoRaise(True)
        self.retranslate(texts)

    def retranslate(self, texts: Texts) -> None:
        """Texts again in ``texts``' language (Settings → Appearance)."""
        self._texts = texts
        self.setText(texts.tr("hands_free_short"))
        self.setToolTip(texts.tr("hands_free"))
