"""The Settings dialog's Voice page: speech output (engine,
voice with a ▶ preview, rate, speak every reply), speech input
(:class:`SttSettingsBox`, send at once, barge-in and why it is off), and the
microphone and speaker (``ui/settings/device_rows.py``).

The preview speaks a short sample through the window's own engine and
speaker (``SettingsFeature.preview_voice``) with the page's values, before they
are saved; without a speaker ▶ is disabled and its tooltip says why."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.storage.settings import TTS_ENGINES, VOICE_SEND, Settings
from desktop_agent.texts import Texts, text_in
from desktop_agent.ui.common.retranslate import TextBindings, item_text
from desktop_agent.ui.settings.engine_list import EngineList
from desktop_agent.ui.settings.stt_row import SttSettingsBox

if TYPE_CHECKING:
    from desktop_agent.ui.voice.audio_devices import AudioDevices
    from desktop_agent.voice.downloads import ModelDownloads
    from desktop_agent.voice.stt.sources import ModelSource

log = logging.getLogger(__name__)

VOICE_SUGGESTIONS = (
    "",
    "zh-CN-XiaoxiaoNeural",
    "zh-CN-YunxiNeural",
    "en-US-AriaNeural",
    "en-US-GuyNeural",
    "en-GB-SoniaNeural",
)

VoicePreview = Callable[[Settings, str], Awaitable[None]]
"""Speak a text with these settings' engine, voice and rate (the window's speaker)."""


class PreviewOff(RuntimeError):
    """The chosen speech engine is "Off": the preview has nothing to say it with (the page
    words why in its own language; the message is the English line, for the log)."""

    def __init__(self) -> None:
        super().__init__(text_in("en", "voice_preview_off"))


def rate_percent(rate: str) -> int:
    """``"+10%"`` → 10; anything unreadable → 0."""
    try:
        return int(rate.strip().rstrip("%"))
    except ValueError:
        return 0


def rate_text(percent: int) -> str:
    return f"{percent:+d}%"


class RateBox(QSpinBox):
    """A percentage with its sign (``+10 %``), as the engines take it."""

    def textFromValue(self, value: int) -> str:  # Qt's name
        return f"{value:+d}"


class VoicePage(QScrollArea):
    def __init__(
        self,
        settings: Settings,
        *,
        preview: VoicePreview | None = None,
        downloads: ModelDownloads | None = None,
        devices: AudioDevices | None = None,
        texts: Texts,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        # Long lines wrap instead: a sideways bar would hide the engines' buttons.
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        content = QWidget(self)
        self.setWidget(content)
        self.texts = TextBindings(texts)
        self._settings = settings
        self._preview = preview
        self._playing: asyncio.Task[None] | None = None

        self.tts_engine = QComboBox(self)
        for index, engine in enumerate(TTS_ENGINES):  # the key as data, its name in words
            self.tts_engine.addItem("", engine)
            self.texts.bind(item_text(self.tts_engine, index), f"tts_engine_{engine}")
        self.tts_engine.setCurrentIndex(max(0, self.tts_engine.findData(settings.tts_engine)))
        self.voice = QComboBox(self)
        self.voice.setEditable(True)
        self.voice.addItems(list(VOICE_SUGGESTIONS))
        self.voice.setCurrentText(settings.voice)
        voice_edit = self.voice.lineEdit()
        if voice_edit is not None:
            self.texts.bind(voice_edit.setPlaceholderText, "settings_voice_hint")
        self.play = QPushButton("▶", self)
        self.play.setFixedWidth(36)
        self.play.setEnabled(preview is not None)
        self.texts.bind(self.play.setToolTip, "voice_preview" if preview is not None else "voice_preview_no_speaker")
        self.play.clicked.connect(self.preview)
        voice_row = QHBoxLayout()
        voice_row.addWidget(self.voice, 1)
        voice_row.addWidget(self.play)
        self.rate = RateBox(self)
        self.rate.setRange(-50, 100)
        self.rate.setSingleStep(10)
        self.rate.setSuffix(" %")
        self.rate.setValue(rate_percent(settings.tts_rate))
        self.preview_note = QLabel(self)
        self.preview_note.setObjectName("cardMuted")
        self.preview_note.setWordWrap(True)
        self.preview_note.hide()
        self.speak_all = QCheckBox(self)
        self.texts.bind(self.speak_all.setText, "settings_speak_all")
        self.speak_all.setChecked(settings.speak_every_reply)

        self.stt = SttSettingsBox(settings, texts, self)
        self.voice_send = QComboBox(self)  # a push-to-talk transcript: sent, counted down, or left
        for index, mode in enumerate(VOICE_SEND):
            self.voice_send.addItem("", mode)
            self.texts.bind(item_text(self.voice_send, index), f"voice_send_mode_{mode}")
        self.voice_send.setCurrentIndex(max(0, self.voice_send.findData(settings.voice_send)))
        self.barge_in = QCheckBox(self)
        self.texts.bind(self.barge_in.setText, "settings_barge_in")
        self.texts.bind(self.barge_in.setToolTip, "barge_in_gated")
        self.barge_in.setChecked(settings.barge_in)
        self.barge_in_ms = QSpinBox(self)
        self.barge_in_ms.setRange(30, 5000)
        self.barge_in_ms.setSingleStep(30)
        self.barge_in_ms.setSuffix(" ms")
        self.barge_in_ms.setValue(settings.barge_in_ms)
        self.texts.bind(self.barge_in_ms.setToolTip, "barge_in_gated")
        self.barge_in_words = QSpinBox(self)
        self.barge_in_words.setRange(1, 20)
        self.texts.bind(self.barge_in_words.setSuffix, "barge_in_words")
        self.texts.bind(self.barge_in_words.setToolTip, "barge_in_words_tip")
        self.barge_in_words.setValue(settings.barge_in_min_words)
        barge_row = QHBoxLayout()
        barge_row.addWidget(self.barge_in, 1)
        barge_row.addWidget(self.barge_in_ms)
        barge_row.addWidget(self.barge_in_words)
        self.barge_in_note = QLabel(self)
        self.texts.bind(self.barge_in_note.setText, "barge_in_gated")
        self.barge_in_note.setWordWrap(True)
        self.barge_in_note.setObjectName("cardMuted")

        if downloads is None:
            from desktop_agent.voice.downloads import ModelDownloads
            from desktop_agent.voice.stt.models import default_store

            downloads = ModelDownloads(default_store())
        self.engines = EngineList(downloads, self._source, texts, self)
        self.stt.source_changed.connect(self.engines.refresh)
        from desktop_agent.ui.settings.device_rows import DeviceRows
        from desktop_agent.ui.voice import audio_devices

        self.devices = DeviceRows(devices or audio_devices.shared(), settings, texts, self)

        form = QFormLayout()
        form.addRow(self.texts.label("settings_tts", self), self.tts_engine)
        form.addRow(self.texts.label("settings_voice", self), voice_row)
        form.addRow(self.texts.label("voice_rate", self), self.rate)
        form.addRow("", self.preview_note)
        form.addRow("", self.speak_all)
        form.addRow(self.texts.label("settings_stt", self), self.stt)
        form.addRow(self.texts.label("settings_speech_input", self), self.voice_send)
        form.addRow("", barge_row)
        form.addRow("", self.barge_in_note)
        form.addRow(self.texts.label("settings_mic_device", self), self.devices.mic)
        form.addRow(self.texts.label("settings_speaker_device", self), self.devices.speaker)
        form.addRow("", self.devices.note)
        form.addRow(self.texts.label("settings_engines", self), self.engines)
        layout = QVBoxLayout(content)
        layout.addLayout(form)
        layout.addStretch(1)

    def _source(self) -> ModelSource:
        """The download source the page names now (before OK too)."""
        from desktop_agent.voice.stt.sources import ModelSource

        name = self.stt.source_name()
        custom = self.stt.mirror.text().strip()
        return ModelSource(name, custom) if name in ("huggingface", "modelscope", "custom") else ModelSource()  # type: ignore[arg-type]

    def retranslate(self, texts: Texts) -> None:
        self.texts.retranslate(texts)
        self.stt.retranslate(texts)
        self.engines.retranslate(texts)
        self.devices.retranslate(texts)

    def engine(self) -> str:
        """The chosen speech engine's key (``auto``, ``edge``…)."""
        return str(self.tts_engine.currentData())

    def set_engine(self, engine: str) -> None:
        self.tts_engine.setCurrentIndex(self.tts_engine.findData(engine))

    def apply_to(self, settings: Settings) -> Settings:
        """``settings`` with this page's values (the speech-input row may
        raise :class:`SettingsError`, translated)."""
        settings = replace(
            settings,
            tts_engine=self.engine(),
            voice=self.voice.currentText().strip(),
            tts_rate=rate_text(self.rate.value()),
            speak_every_reply=self.speak_all.isChecked(),
            voice_send=str(self.voice_send.currentData()),
            barge_in=self.barge_in.isChecked(),
            barge_in_ms=self.barge_in_ms.value(),
            barge_in_min_words=self.barge_in_words.value(),
        )
        return self.stt.apply_to(self.devices.apply_to(settings))

    # ------------------------------------------------------------ preview

    def preview(self) -> None:
        """Speak the sample with the page's engine, voice and rate."""
        if self._preview is None or (self._playing is not None and not self._playing.done()):
            return
        settings = replace(
            self._settings,
            tts_engine=self.engine(),
            voice=self.voice.currentText().strip(),
            tts_rate=rate_text(self.rate.value()),
        )
        self.preview_note.hide()
        self.play.setEnabled(False)
        self._playing = asyncio.ensure_future(self._speak(self._preview, settings))

    def playing(self) -> asyncio.Task[None] | None:
        return self._playing

    async def _speak(self, preview: VoicePreview, settings: Settings) -> None:
        try:
            await preview(settings, self.texts.tr("voice_preview_text"))
        except Exception as exc:  # a preview that fails says so; it is no crash
            log.warning("voice preview failed: %s", exc)
            reason = self.texts.tr("voice_preview_off") if isinstance(exc, PreviewOff) else str(exc) or type(exc).__name__
            self.preview_note.setText(self.texts.tr("voice_preview_failed", reason=reason))
            self.preview_note.show()
        finally:
            self.play.setEnabled(True)
