"""The Settings dialog's speech recognition row (issue 11): the engine, and
under it only the fields that engine uses — an endpoint and model for
``openai``, a download mirror or a model folder for ``sensevoice``. Applied
without a restart (:meth:`VoiceGlue.apply`)."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from desktop_agent.storage.settings import STT_ENGINES, Settings, SettingsError
from desktop_agent.ui.i18n import tr
from desktop_agent.ui.retranslate import Texts, item_text


class SttSettingsBox(QWidget):
    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.texts = Texts()
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
        self.mirror = QLineEdit(settings.stt_model_base_url, self)
        self.texts.bind(self.mirror.setPlaceholderText, "stt_mirror_hint")
        self.folder = QLineEdit(settings.stt_model_dir, self)
        self.texts.bind(self.folder.setPlaceholderText, "stt_folder_hint")

        self._openai = QWidget(self)
        openai_form = QFormLayout(self._openai)
        openai_form.setContentsMargins(0, 0, 0, 0)
        openai_form.addRow(self.texts.label("stt_endpoint", self), self.endpoint)
        openai_form.addRow(self.texts.label("stt_model", self), self.model)
        self._sensevoice = QWidget(self)
        sense_form = QFormLayout(self._sensevoice)
        sense_form.setContentsMargins(0, 0, 0, 0)
        sense_form.addRow(self.texts.label("stt_mirror", self), self.mirror)
        sense_form.addRow(self.texts.label("stt_folder", self), self.folder)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.engine, self.note, self._openai, self._sensevoice):
            layout.addWidget(widget)
        self.engine.currentIndexChanged.connect(lambda _i: self._show_fields())
        self._show_fields()

    def retranslate(self) -> None:
        """The texts again in the current language (Settings → Appearance)."""
        self.texts.retranslate()
        self._show_fields()

    def name(self) -> str:
        return str(self.engine.currentData())

    def _show_fields(self) -> None:
        name = self.name()
        self.note.setText(tr(f"stt_note_{name}"))
        self._openai.setVisible(name == "openai")
        self._sensevoice.setVisible(name == "sensevoice")

    def apply_to(self, settings: Settings) -> Settings:
        """``settings`` with this row's values; raises :class:`SettingsError`
        (translated, one line) for an address that is not http(s)."""
        for field, value in (("stt_endpoint", self.endpoint.text()), ("stt_mirror", self.mirror.text())):
            value = value.strip()
            if value and not value.startswith(("http://", "https://")):
                raise SettingsError(tr("settings_bad_address", field=tr(field), value=value))
        return replace(
            settings,
            stt_engine=self.name(),
            stt_base_url=self.endpoint.text().strip(),
            stt_model=self.model.text().strip(),
            stt_model_base_url=self.mirror.text().strip(),
            stt_model_dir=self.folder.text().strip(),
        )
