"""The Settings dialog's speech recognition row: the engine, and under it
only the fields that engine uses — an endpoint and model for ``openai``;
for the offline engines that download a model (``auto``, ``whisper``,
``sensevoice``) where to download it from (Hugging Face, ModelScope or a
custom address) or a model folder on disk, and for Whisper its size.
Applied without a restart (:meth:`VoiceGlue.apply`)."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from desktop_agent.storage.settings import (
    STT_ENGINES,
    STT_MODEL_SOURCES,
    WHISPER_MODEL_NAMES,
    Settings,
    SettingsError,
)
from desktop_agent.texts import Texts
from desktop_agent.ui.common.retranslate import TextBindings, item_text

DOWNLOADING_ENGINES = ("auto", "whisper", "sensevoice")
"""Engines whose model comes from a download source."""


class SttSettingsBox(QWidget):
    """Signals: ``source_changed()`` — the download source or its address
    changed (the engine list shows the new addresses)."""

    source_changed = Signal()

    def __init__(self, settings: Settings, texts: Texts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.texts = TextBindings(texts)
        self.engine = QComboBox(self)
        for index, name in enumerate(STT_ENGINES):
            self.engine.addItem("", name)
            self.texts.bind(item_text(self.engine, index), f"stt_engine_{name}")
        self.engine.setCurrentIndex(max(0, self.engine.findData(settings.stt_engine)))
        self.note = QLabel(self)
        self.note.setObjectName("cardMuted")
        self.note.setWordWrap(True)

        self.endpoint = QLineEdit(settings.stt_base_url, self)
        self.texts.bind(self.endpoint.setPlaceholderText, "stt_endpoint_hint")
        self.model = QLineEdit(settings.stt_model, self)
        self.model.setPlaceholderText("whisper-1")
        self.whisper_model = QComboBox(self)
        for index, name in enumerate(WHISPER_MODEL_NAMES):
            self.whisper_model.addItem("", name)
            self.texts.bind(item_text(self.whisper_model, index), f"stt_whisper_{name}")
        self.whisper_model.setCurrentIndex(max(0, self.whisper_model.findData(settings.stt_whisper_model)))
        self.source = QComboBox(self)
        for index, name in enumerate(STT_MODEL_SOURCES):
            self.source.addItem("", name)
            self.texts.bind(item_text(self.source, index), f"model_source_{name}")
        self.source.setCurrentIndex(max(0, self.source.findData(settings.stt_model_source)))
        self.mirror = QLineEdit(settings.stt_model_base_url, self)
        self.texts.bind(self.mirror.setPlaceholderText, "stt_mirror_hint")
        self.folder = QLineEdit(settings.stt_model_dir, self)
        self.texts.bind(self.folder.setPlaceholderText, "stt_folder_hint")

        self._openai = QWidget(self)
        openai_form = QFormLayout(self._openai)
        openai_form.setContentsMargins(0, 0, 0, 0)
        openai_form.addRow(self.texts.label("stt_endpoint", self), self.endpoint)
        openai_form.addRow(self.texts.label("stt_model", self), self.model)
        self._offline = QWidget(self)
        offline = QFormLayout(self._offline)
        offline.setContentsMargins(0, 0, 0, 0)
        self._whisper_label = self.texts.label("stt_whisper_model", self)
        offline.addRow(self._whisper_label, self.whisper_model)
        offline.addRow(self.texts.label("stt_source", self), self.source)
        self._mirror_label = self.texts.label("stt_mirror", self)
        offline.addRow(self._mirror_label, self.mirror)
        offline.addRow(self.texts.label("stt_folder", self), self.folder)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.engine, self.note, self._openai, self._offline):
            layout.addWidget(widget)
        self.engine.currentIndexChanged.connect(lambda _i: self._show_fields())
        self.source.currentIndexChanged.connect(lambda _i: self._on_source())
        self.mirror.editingFinished.connect(self.source_changed.emit)
        self._show_fields()

    def retranslate(self, texts: Texts) -> None:
        """The texts again in ``texts``' language (Settings → Appearance)."""
        self.texts.retranslate(texts)
        self._show_fields()

    def name(self) -> str:
        return str(self.engine.currentData())

    def source_name(self) -> str:
        return str(self.source.currentData())

    def _on_source(self) -> None:
        self._show_fields()
        self.source_changed.emit()

    def _show_fields(self) -> None:
        name = self.name()
        self.note.setText(self.texts.tr(f"stt_note_{name}"))
        self._openai.setVisible(name == "openai")
        self._offline.setVisible(name in DOWNLOADING_ENGINES)
        self._whisper_label.setVisible(name in ("auto", "whisper"))
        self.whisper_model.setVisible(name in ("auto", "whisper"))
        self._mirror_label.setVisible(self.source_name() == "custom")
        self.mirror.setVisible(self.source_name() == "custom")

    def apply_to(self, settings: Settings) -> Settings:
        """``settings`` with this row's values; raises :class:`SettingsError`
        (translated, one line) for an address that is not http(s), or a
        custom source with no address."""
        for field, value in (("stt_endpoint", self.endpoint.text()), ("stt_mirror", self.mirror.text())):
            value = value.strip()
            if value and not value.startswith(("http://", "https://")):
                raise SettingsError(self.texts.tr("settings_bad_address", field=self.texts.tr(field), value=value))
        if self.source_name() == "custom" and not self.mirror.text().strip() and self.name() in DOWNLOADING_ENGINES:
            raise SettingsError(self.texts.tr("settings_custom_source_empty"))
        return replace(
            settings,
            stt_engine=self.name(),
            stt_base_url=self.endpoint.text().strip(),
            stt_model=self.model.text().strip(),
            stt_whisper_model=str(self.whisper_model.currentData()),
            stt_model_source=self.source_name(),
            stt_model_base_url=self.mirror.text().strip(),
            stt_model_dir=self.folder.text().strip(),
        )
