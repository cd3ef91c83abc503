"""The microphones and speakers there are, watched for hot-plug once asked.

Reading them starts QtMultimedia's media backend (~19 MiB, and an idle
window must stay under 150 MiB: ``benchmarks/bench_ui.py``), so nothing here
runs until :meth:`AudioDevices.start`: when the pointer or the keyboard
focus reaches the mic button, at the first press, when Settings opens, or
at the first clip played (the speaker has loaded the backend then anyway).
From then on the lists follow what is plugged in or out, and ``changed``
says so.

The Qt side (``ui/voice/qt_devices.py``) is a :class:`DeviceSource`; tests give a
scripted one. The window has one :func:`shared` watcher: the microphone, the
speaker and Settings see the same lists.

Signals (``AudioDevices``):
    changed()    the inputs or the outputs changed (also when first read)
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Signal

from desktop_agent.ui.voice.device_choice import Device, pick

if TYPE_CHECKING:
    from PySide6.QtMultimedia import QAudioDevice

log = logging.getLogger(__name__)


class DeviceSource(Protocol):
    """Where the lists come from (QtMultimedia, or a test's script)."""

    def inputs(self) -> tuple[Device, ...]: ...

    def outputs(self) -> tuple[Device, ...]: ...

    def qt_device(self, device: Device, output: bool) -> QAudioDevice | None:
        """The Qt device to open for ``device`` (None: a scripted one)."""
        ...


SourceFactory = Callable[[Callable[[], None]], DeviceSource]
"""Makes a source that calls the given function whenever its lists may have changed."""


def _qt_source(notify: Callable[[], None]) -> DeviceSource:
    from desktop_agent.ui.voice.qt_devices import QtDeviceSource

    return QtDeviceSource(notify)


class AudioDevices(QObject):
    changed = Signal()

    def __init__(self, make_source: SourceFactory = _qt_source, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._make_source = make_source
        self._source: DeviceSource | None = None
        self._lists: tuple[tuple[Device, ...], tuple[Device, ...]] = ((), ())

    @property
    def started(self) -> bool:
        return self._source is not None

    def start(self) -> None:
        """Read the devices and watch them from now on (once; later calls do nothing)."""
        if self._source is not None:
            return
        self._source = self._make_source(self._refresh)
        self._lists = (self._source.inputs(), self._source.outputs())
        log.info("audio devices: %d in, %d out", len(self._lists[0]), len(self._lists[1]))
        self.changed.emit()

    def _refresh(self) -> None:
        source = self._source
        if source is None:
            return
        lists = (source.inputs(), source.outputs())
        if lists != self._lists:
            self._lists = lists
            log.info("audio devices changed: in %s, out %s",
                     [d.name for d in lists[0]], [d.name for d in lists[1]])
            self.changed.emit()

    def inputs(self) -> tuple[Device, ...]:
        self.start()
        return self._lists[0]

    def outputs(self) -> tuple[Device, ...]:
        self.start()
        return self._lists[1]

    def input(self, chosen: str) -> Device | None:
        """The microphone to open for the setting ``chosen`` (:func:`pick`)."""
        return pick(chosen, self.inputs())

    def output(self, chosen: str) -> Device | None:
        return pick(chosen, self.outputs())

    def qt_device(self, device: Device, *, output: bool) -> QAudioDevice | None:
        self.start()
        assert self._source is not None
        return self._source.qt_device(device, output)


_shared: AudioDevices | None = None


def shared() -> AudioDevices:
    """The window's one watcher (made now, started when first asked)."""
    global _shared
    if _shared is None:
        _shared = AudioDevices()
    return _shared


def set_shared(devices: AudioDevices | None) -> AudioDevices | None:
    """Use ``devices`` as :func:`shared` (tests: a scripted source); returns the one before."""
    global _shared
    before, _shared = _shared, devices
    return before
