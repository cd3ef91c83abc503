"""Skip button, mute button and volume slider.

Signals:
    skip_requested()          skip the sentence being spoken (the button;
                              the window's Shift+Esc does the same)
    muted_changed(bool)       the mute button was toggled
    volume_changed(float)     the slider moved (0..1), while dragging too
    volume_committed(float)   the volume settled (released, or a click/key)

Skip is enabled only while speech plays (:meth:`AudioControls.set_speaking`):
a control that does nothing the rest of the time should look it.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPalette
from PySide6.QtWidgets import QHBoxLayout, QSlider, QStyle, QToolButton, QWidget

from desktop_agent.texts import Texts
from desktop_agent.ui.common.key_hints import SKIP_KEY, key_text


def tinted(icon: QIcon, color: QColor, size: QSize) -> QIcon:
    """``icon``'s shape painted in ``color``: the style's speaker is drawn
    dark, which all but vanishes on a dark window."""
    pixmap = icon.pixmap(size)
    painter = QPainter(pixmap)
    painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceIn)
    painter.fillRect(pixmap.rect(), color)
    painter.end()
    return QIcon(pixmap)


class AudioTarget(Protocol):
    """Where the controls' changes go once the window is attached (the turn logic)."""

    def push_audio(self, volume: float, muted: bool) -> None: ...

    def save_muted(self, muted: bool) -> None: ...

    def save_volume(self, volume: float) -> None: ...

    def skip_speech(self) -> bool: ...


class AudioControls(QWidget):
    skip_requested = Signal()
    muted_changed = Signal(bool)
    volume_changed = Signal(float)
    volume_committed = Signal(float)

    def __init__(self, texts: Texts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._texts = texts
        self.skip_button = QToolButton(self)
        self.skip_button.setObjectName("skipSentence")
        self.skip_button.setAutoRaise(True)
        self.skip_button.setEnabled(False)
        self.skip_button.clicked.connect(self.skip_requested)
        self.mute_button = QToolButton(self)
        self.mute_button.setCheckable(True)
        self.mute_button.setAutoRaise(True)
        self.volume = QSlider(Qt.Orientation.Horizontal, self)
        self.volume.setRange(0, 100)
        self.volume.setValue(100)
        self.volume.setFixedWidth(90)
        self.volume.setToolTip(self._texts.tr("volume"))
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.skip_button)
        row.addWidget(self.mute_button)
        row.addWidget(self.volume)
        self.mute_button.toggled.connect(self._on_muted)
        self.volume.valueChanged.connect(self._on_value)
        self.volume.sliderReleased.connect(lambda: self.volume_committed.emit(self.level()))
        self._render()

    def drive(self, target: AudioTarget) -> None:
        """From now on volume, mute and skip reach ``target``: the speaker at
        once, the settings when a slider is released or mute toggled; the
        level and mute shown now reach it at once."""

        def muted_changed(muted: bool) -> None:
            target.push_audio(self.level(), muted)
            target.save_muted(muted)

        self.muted_changed.connect(muted_changed)
        self.volume_changed.connect(lambda level: target.push_audio(level, self.muted()))
        self.volume_committed.connect(target.save_volume)
        self.skip_requested.connect(target.skip_speech)
        target.push_audio(self.level(), self.muted())

    def set_speaking(self, speaking: bool) -> None:
        """Speech plays (skip can act) or not."""
        self.skip_button.setEnabled(speaking)

    def level(self) -> float:
        return self.volume.value() / 100

    def muted(self) -> bool:
        return self.mute_button.isChecked()

    def set_state(self, volume: float, muted: bool) -> None:
        """Show saved values without emitting anything."""
        for widget in (self.volume, self.mute_button):
            widget.blockSignals(True)
        self.volume.setValue(round(volume * 100))
        self.mute_button.setChecked(muted)
        for widget in (self.volume, self.mute_button):
            widget.blockSignals(False)
        self._render()

    def retranslate(self, texts: Texts) -> None:
        """Texts again in ``texts``' language (Settings → Appearance)."""
        self._texts = texts
        self.volume.setToolTip(self._texts.tr("volume"))
        self._render()

    def _render(self) -> None:
        muted = self.muted()
        icon = QStyle.StandardPixmap.SP_MediaVolumeMuted if muted else QStyle.StandardPixmap.SP_MediaVolume
        text = self.palette().color(QPalette.ColorRole.ButtonText)
        self.mute_button.setIcon(tinted(self.style().standardIcon(icon), text, self.mute_button.iconSize()))
        self.mute_button.setToolTip(self._texts.tr("unmute") if muted else self._texts.tr("mute"))
        skip = self.style().standardIcon(QStyle.StandardPixmap.SP_MediaSkipForward)
        self.skip_button.setIcon(tinted(skip, text, self.skip_button.iconSize()))
        self.skip_button.setToolTip(self._texts.tr("skip_sentence", shortcut=key_text(SKIP_KEY)))
        self.skip_button.setAccessibleName(self.skip_button.toolTip())

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._render()  # a dark palette needs a light speaker

    def _on_muted(self, muted: bool) -> None:
        self._render()
        self.muted_changed.emit(muted)

    def _on_value(self, _value: int) -> None:
        self.volume_changed.emit(self.level())
        if not self.volume.isSliderDown():
            self.volume_committed.emit(self.level())
