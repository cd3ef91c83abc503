"""The sound server's own list of microphones and speakers (Linux:
PulseAudio, or PipeWire's PulseAudio server), kept current by its events.

Why not only ``QMediaDevices``: Qt 6.11's PulseAudio backend takes a removed
device out of its map without emitting ``audioInputsChanged`` /
``audioOutputsChanged`` (``qpulseaudio_contextmanager.cpp``, ``eventCallback``
on ``PA_SUBSCRIPTION_EVENT_REMOVE``), so ``QMediaDevices`` keeps listing an
unplugged microphone until some other device is added. Added devices are
reported; removed ones are what this catches. :class:`AudioDevices` lists
Qt's devices that the server still has.

libpulse is the library QtMultimedia already loaded (this starts with the
device watcher, never at idle); a ``pa_mainloop`` is iterated without
blocking from a Qt timer, so every callback runs on the GUI thread: no
thread, no lock. ``PA_CONTEXT_NOAUTOSPAWN``: never starts a sound server.
"""

from __future__ import annotations

import ctypes
import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, QTimer

log = logging.getLogger(__name__)

TICK_MS = 250
"""How often the server's events are read (a device change is seen within it)."""

_READY, _FAILED, _TERMINATED = 4, 5, 6
_NOAUTOSPAWN = 1
_MASK = 0x0001 | 0x0002 | 0x0080  # sinks, sources, server (the defaults)
_NO_SINK = 0xFFFFFFFF  # PA_INVALID_INDEX: a source that is no sink's monitor


class _SampleSpec(ctypes.Structure):
    _fields_ = [("format", ctypes.c_int), ("rate", ctypes.c_uint32), ("channels", ctypes.c_uint8)]


class _ChannelMap(ctypes.Structure):
    _fields_ = [("channels", ctypes.c_uint8), ("map", ctypes.c_int * 32)]


class _CVolume(ctypes.Structure):
    _fields_ = [("channels", ctypes.c_uint8), ("values", ctypes.c_uint32 * 32)]


class _SourceInfo(ctypes.Structure):
    """The start of ``pa_source_info`` (read through a pointer: the rest is never touched)."""

    _fields_ = [
        ("name", ctypes.c_char_p), ("index", ctypes.c_uint32), ("description", ctypes.c_char_p),
        ("sample_spec", _SampleSpec), ("channel_map", _ChannelMap), ("owner_module", ctypes.c_uint32),
        ("volume", _CVolume), ("mute", ctypes.c_int), ("monitor_of_sink", ctypes.c_uint32),
    ]


class _SinkInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("index", ctypes.c_uint32), ("description", ctypes.c_char_p)]


class _ServerInfo(ctypes.Structure):
    _fields_ = [
        ("user_name", ctypes.c_char_p), ("host_name", ctypes.c_char_p), ("server_version", ctypes.c_char_p),
        ("server_name", ctypes.c_char_p), ("sample_spec", _SampleSpec),
        ("default_sink_name", ctypes.c_char_p), ("default_source_name", ctypes.c_char_p),
    ]


_NotifyCb = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
_SourceCb = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(_SourceInfo), ctypes.c_int, ctypes.c_void_p)
_SinkCb = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(_SinkInfo), ctypes.c_int, ctypes.c_void_p)
_ServerCb = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(_ServerInfo), ctypes.c_void_p)
_EventCb = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p)


def _library() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        lib = ctypes.CDLL("libpulse.so.0")
    except OSError:
        return None
    vp, cp, i = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
    for name, restype, argtypes in (
        ("pa_mainloop_new", vp, []),
        ("pa_mainloop_get_api", vp, [vp]),
        ("pa_mainloop_iterate", i, [vp, i, ctypes.POINTER(i)]),
        ("pa_mainloop_free", None, [vp]),
        ("pa_context_new", vp, [vp, cp]),
        ("pa_context_connect", i, [vp, cp, i, vp]),
        ("pa_context_get_state", i, [vp]),
        ("pa_context_disconnect", None, [vp]),
        ("pa_context_unref", None, [vp]),
        ("pa_context_set_subscribe_callback", None, [vp, _EventCb, vp]),
        ("pa_context_subscribe", vp, [vp, i, vp, vp]),
        ("pa_context_get_source_info_list", vp, [vp, _SourceCb, vp]),
        ("pa_context_get_sink_info_list", vp, [vp, _SinkCb, vp]),
        ("pa_context_get_server_info", vp, [vp, _ServerCb, vp]),
        ("pa_operation_unref", None, [vp]),
    ):
        function = getattr(lib, name)
        function.restype, function.argtypes = restype, argtypes
    return lib


@dataclass(frozen=True)
class ServerDevices:
    """What the server has: device names (Qt's device ids) and the defaults."""

    inputs: tuple[str, ...]
    """Sources that are microphones (no sink's monitor), by name."""
    outputs: tuple[str, ...]
    """Sinks, by name."""
    default_input: str = ""
    default_output: str = ""


class PulseWatch(QObject):
    """Reads the server's devices and calls ``on_change`` with a new
    :class:`ServerDevices` each time they change (the first time too).
    :meth:`start` is False where there is no libpulse or no server."""

    def __init__(self, on_change: Callable[[ServerDevices], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._on_change = on_change
        self._lib: ctypes.CDLL | None = None
        self._loop: int | None = None
        self._context: int | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)
        self._subscribed = False
        self._dirty = True
        self._pending = 0
        self._inputs: list[str] = []
        self._outputs: list[str] = []
        self._defaults = ("", "")
        self.devices: ServerDevices | None = None
        """The latest list (None until the server answered)."""
        # ctypes callbacks must outlive every call that may invoke them.
        self._event_cb = _EventCb(self._on_event)
        self._source_cb = _SourceCb(self._on_source)
        self._sink_cb = _SinkCb(self._on_sink)
        self._server_cb = _ServerCb(self._on_server)

    def start(self) -> bool:
        lib = _library()
        if lib is None:
            return False
        loop = lib.pa_mainloop_new()
        context = lib.pa_context_new(lib.pa_mainloop_get_api(loop), b"desktop-agent device watch")
        if not context or lib.pa_context_connect(context, None, _NOAUTOSPAWN, None) < 0:
            if context:
                lib.pa_context_unref(context)
            lib.pa_mainloop_free(loop)
            log.info("device watch: no PulseAudio server to ask")
            return False
        self._lib, self._loop, self._context = lib, loop, context
        self._timer.start()
        self._tick()
        return True

    @property
    def running(self) -> bool:
        return self._context is not None

    def close(self) -> None:
        self._timer.stop()
        lib, loop, context = self._lib, self._loop, self._context
        self._loop = self._context = None
        if lib is not None and context is not None and loop is not None:
            lib.pa_context_disconnect(context)
            lib.pa_context_unref(context)
            lib.pa_mainloop_free(loop)

    def _tick(self) -> None:
        lib, loop, context = self._lib, self._loop, self._context
        if lib is None or loop is None or context is None:
            return
        while lib.pa_mainloop_iterate(loop, 0, None) > 0:
            pass  # everything that is ready, without blocking
        state = lib.pa_context_get_state(context)
        if state in (_FAILED, _TERMINATED):
            log.info("device watch: the sound server went away")
            self.close()
            return
        if state != _READY:
            return
        if not self._subscribed:
            self._subscribed = True
            lib.pa_context_set_subscribe_callback(context, self._event_cb, None)
            self._unref(lib.pa_context_subscribe(context, _MASK, None, None))
        if self._dirty and self._pending == 0:
            self._dirty = False
            self._pending = 3
            self._inputs, self._outputs = [], []
            self._unref(lib.pa_context_get_server_info(context, self._server_cb, None))
            self._unref(lib.pa_context_get_source_info_list(context, self._source_cb, None))
            self._unref(lib.pa_context_get_sink_info_list(context, self._sink_cb, None))

    def _unref(self, operation: int | None) -> None:
        if operation and self._lib is not None:
            self._lib.pa_operation_unref(operation)

    def _on_event(self, _context: int, _kind: int, _index: int, _user: int) -> None:
        self._dirty = True

    def _on_source(self, _context: int, info: ctypes._Pointer[_SourceInfo], last: int, _user: int) -> None:
        if last:
            self._done()
        elif info and info.contents.monitor_of_sink == _NO_SINK and info.contents.name:
            self._inputs.append(info.contents.name.decode("utf-8", "replace"))

    def _on_sink(self, _context: int, info: ctypes._Pointer[_SinkInfo], last: int, _user: int) -> None:
        if last:
            self._done()
        elif info and info.contents.name:
            self._outputs.append(info.contents.name.decode("utf-8", "replace"))

    def _on_server(self, _context: int, info: ctypes._Pointer[_ServerInfo], _user: int) -> None:
        if info:
            server = info.contents
            self._defaults = (
                (server.default_source_name or b"").decode("utf-8", "replace"),
                (server.default_sink_name or b"").decode("utf-8", "replace"),
            )
        self._done()

    def _done(self) -> None:
        self._pending -= 1
        if self._pending > 0:
            return
        devices = ServerDevices(tuple(self._inputs), tuple(self._outputs), *self._defaults)
        if devices != self.devices:
            self.devices = devices
            self._on_change(devices)
