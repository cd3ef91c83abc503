"""Sound devices a test plugs in and out: a
:class:`~desktop_agent.ui.voice.audio_devices.DeviceSource` without QtMultimedia
(real ones, on a private sound server, are in ``testing/pulse.py``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from desktop_agent.ui.voice.audio_devices import AudioDevices
from desktop_agent.ui.voice.device_choice import Device

if TYPE_CHECKING:
    from PySide6.QtMultimedia import QAudioDevice


class ScriptedDevices:
    """The devices there are; :meth:`plug` and :meth:`unplug` tell the watcher."""

    def __init__(self, inputs: Iterable[Device] = (), outputs: Iterable[Device] = ()) -> None:
        self._inputs, self._outputs = list(inputs), list(outputs)
        self._notify: Callable[[], None] = lambda: None
        self.started = False

    def watcher(self) -> AudioDevices:
        """An :class:`AudioDevices` over these devices."""
        return AudioDevices(self._start)

    def _start(self, notify: Callable[[], None]) -> ScriptedDevices:
        self.started = True
        self._notify = notify
        return self

    def plug(self, device: Device, *, output: bool = False) -> None:
        (self._outputs if output else self._inputs).append(device)
        self._notify()

    def unplug(self, device_id: str) -> None:
        self._inputs = [d for d in self._inputs if d.id != device_id]
        self._outputs = [d for d in self._outputs if d.id != device_id]
        self._notify()

    def inputs(self) -> tuple[Device, ...]:
        return tuple(self._inputs)

    def outputs(self) -> tuple[Device, ...]:
        return tuple(self._outputs)

    def qt_device(self, device: Device, output: bool) -> QAudioDevice | None:
        return None
