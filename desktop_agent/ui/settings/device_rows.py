"""Settings → Voice: which microphone and which speaker.

Each row lists "System default" (naming the device that is now) and every
device there is; a chosen device that is unplugged stays listed, marked,
so saving does not quietly choose another (it is used again when it comes
back). The lists follow hot-plug while the dialog is open. Reading them
loads QtMultimedia (Settings opening is a moment the user expects to wait
for; an idle window never does it).
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QComboBox, QLabel, QWidget

from desktop_agent.storage.settings import Settings
from desktop_agent.texts import Texts
from desktop_agent.ui.voice.audio_devices import AudioDevices
from desktop_agent.ui.voice.device_choice import SYSTEM_DEFAULT, Device, options


class DeviceBox(QComboBox):
    """One row: the item data is the device id ("" for the system default)."""

    def __init__(
        self, devices: AudioDevices, *, output: bool, chosen: str, name: str, texts: Texts, parent: QWidget
    ) -> None:
        super().__init__(parent)
        self.texts = texts
        """The language of the system-default and not-connected rows (:meth:`refresh`)."""
        self._devices, self._output = devices, output
        self._chosen, self._name = chosen, name
        self.setObjectName("speakerDevice" if output else "micDevice")
        self.refresh()
        self.currentIndexChanged.connect(self._remember)

    def _list(self) -> tuple[Device, ...]:
        return self._devices.outputs() if self._output else self._devices.inputs()

    def _remember(self, index: int) -> None:
        if index >= 0:
            self._chosen = str(self.itemData(index))
            self._name = self._names.get(self._chosen, self._name)

    def refresh(self) -> None:
        """The devices there are now, the choice kept."""
        devices = self._list()
        rows = options(devices, self._chosen, self._name)
        self._names = {row.id: row.name for row in rows}
        default = next((d for d in devices if d.default), devices[0] if devices else None)
        self.blockSignals(True)
        self.clear()
        for row in rows:
            if row.id == SYSTEM_DEFAULT:
                text = (self.texts.tr("device_system_default_named", device=default.name) if default is not None
                        else self.texts.tr("device_system_default"))
            else:
                text = row.name if row.present else self.texts.tr("device_not_connected", device=row.name)
            self.addItem(text, row.id)
        self.setCurrentIndex(max(0, self.findData(self._chosen)))
        self.blockSignals(False)

    def chosen(self) -> tuple[str, str]:
        """The id and the name to save."""
        ident = str(self.currentData()) if self.currentIndex() >= 0 else SYSTEM_DEFAULT
        return ident, ("" if ident == SYSTEM_DEFAULT else self._names.get(ident, ""))


class DeviceRows(QObject):
    """The two rows and the line under them (the page lays them out); a
    QObject so the watcher's signal stops reaching it with the page."""

    def __init__(self, devices: AudioDevices, settings: Settings, texts: Texts, parent: QWidget) -> None:
        super().__init__(parent)
        self._devices = devices
        self._texts = texts
        devices.start()
        self.mic = DeviceBox(devices, output=False, chosen=settings.audio_input_id,
                             name=settings.audio_input_name, texts=texts, parent=parent)
        self.speaker = DeviceBox(devices, output=True, chosen=settings.audio_output_id,
                                 name=settings.audio_output_name, texts=texts, parent=parent)
        self.note = QLabel(parent)
        self.note.setObjectName("cardMuted")
        self.note.setWordWrap(True)
        self.refresh()
        devices.changed.connect(self.refresh)

    def refresh(self) -> None:
        self.mic.refresh()
        self.speaker.refresh()
        self._say_missing()

    def _say_missing(self) -> None:
        missing = [self._texts.tr(key) for key, none in (("settings_no_microphone", not self._devices.inputs()),
                                             ("settings_no_speaker", not self._devices.outputs())) if none]
        self.note.setText("\n".join([*missing, self._texts.tr("settings_devices_note")]))

    def retranslate(self, texts: Texts) -> None:
        self._texts = self.mic.texts = self.speaker.texts = texts
        self.refresh()

    def apply_to(self, settings: Settings) -> Settings:
        (mic, mic_name), (speaker, speaker_name) = self.mic.chosen(), self.speaker.chosen()
        return replace(settings, audio_input_id=mic, audio_input_name=mic_name,
                       audio_output_id=speaker, audio_output_name=speaker_name)
