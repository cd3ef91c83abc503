"""QtMultimedia's devices as a :class:`~desktop_agent.ui.voice.audio_devices.DeviceSource`.

``QMediaDevices`` reports added devices; on Linux its PulseAudio backend
never reports removed ones (see ``ui/voice/pulse_watch.py``), so where a sound
server answers, only the devices it still has are listed, and its own
events say when to look again. Imported only by the watcher's ``start``:
this loads QtMultimedia.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtMultimedia import QAudioDevice, QMediaDevices

from desktop_agent.ui.voice.device_choice import Device, id_text
from desktop_agent.ui.voice.pulse_watch import PulseWatch, ServerDevices


def _device(qt: QAudioDevice, default: bool) -> Device:
    return Device(id_text(bytes(qt.id().data())), qt.description(), default)


class QtDeviceSource(QObject):
    def __init__(self, notify: Callable[[], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._notify = notify
        self._media = QMediaDevices(self)
        self._media.audioInputsChanged.connect(notify)
        self._media.audioOutputsChanged.connect(notify)
        self._server: ServerDevices | None = None
        self._pulse = PulseWatch(self._on_server, self)
        self._pulse.start()

    def _on_server(self, devices: ServerDevices) -> None:
        self._server = devices
        self._notify()

    def _listed(self, qt: list[QAudioDevice], names: tuple[str, ...] | None, default: str | None) -> tuple[Device, ...]:
        devices = []
        for device in qt:
            found = _device(device, device.isDefault() if default is None else False)
            if names is not None and found.id not in names:
                continue  # unplugged: Qt never said so
            if default is not None:
                found = Device(found.id, found.name, found.id == default)
            devices.append(found)
        return tuple(devices)

    def inputs(self) -> tuple[Device, ...]:
        server = self._server
        return self._listed(QMediaDevices.audioInputs(), server.inputs if server else None,
                            server.default_input if server else None)

    def outputs(self) -> tuple[Device, ...]:
        server = self._server
        return self._listed(QMediaDevices.audioOutputs(), server.outputs if server else None,
                            server.default_output if server else None)

    def qt_device(self, device: Device, output: bool) -> QAudioDevice | None:
        for qt in QMediaDevices.audioOutputs() if output else QMediaDevices.audioInputs():
            if id_text(bytes(qt.id().data())) == device.id:
                return qt
        return None
