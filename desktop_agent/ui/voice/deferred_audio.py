"""The speaker and the microphone, made when first used, so an idle window
does not pay for QtMultimedia.

QtMultimedia's first device query starts its media backend (FFmpeg, the
sound server's client): ~19 MiB of an idle window, before anything is said
or heard. :class:`DeferredSink` makes the speaker when the first clip
plays, :class:`DeferredMicrophone` opens the microphone at the first press
(or when hands-free starts), so a window that only shows text never loads it.

What changes for the user: a machine without an audio output says so in one
line when the first reply would be spoken (not at start), and from then on
text is never held for silent audio; a machine without a microphone says so
when the mic is first used, or before, as soon as the mic button is reached
(:meth:`DeferredMicrophone.prepare`).

Given the window's :class:`~desktop_agent.ui.voice.audio_devices.AudioDevices`,
both follow hot-plug once the devices are watched: the microphone says
whether there is one (``on_change``) and when the one recording went away
(``on_lost``); the speaker that found no output is made at the next clip
after one appears (``on_back``), and stops being waited for when the last
output goes (``on_missing`` again). Which device each opens is the
setting's choice (``chosen``), read at every press and every speaker use,
so a change in Settings applies from the next utterance or clip.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from desktop_agent.core.ports import AudioSink
from desktop_agent.core.speech_stream import SpeechStream
from desktop_agent.ui.voice.device_choice import SYSTEM_DEFAULT, Device

if TYPE_CHECKING:
    from desktop_agent.ui.voice.audio_devices import AudioDevices
    from desktop_agent.ui.voice.mic import QtAudioInput

log = logging.getLogger(__name__)


class DeferredSink:
    """An :class:`AudioSink` that makes the real one (``make``) at the first
    clip; ``make`` returning None means nothing would be heard here, which
    ``on_missing`` is told. Volume and mute set before then are kept
    and given to the speaker when it is made.

    With ``devices``, watched from the first clip on: an output that appears
    while there is none is used from the next clip (``on_back`` gets its
    name), and when the last output goes, nothing waits for speech again
    until one is back (``on_missing``)."""

    def __init__(
        self,
        make: Callable[[float, bool], AudioSink | None],
        *,
        volume: float = 1.0,
        muted: bool = False,
        on_missing: Callable[[], None] = lambda: None,
        devices: AudioDevices | None = None,
        chosen: Callable[[], str] = lambda: SYSTEM_DEFAULT,
        on_back: Callable[[str], None] = lambda _name: None,
    ) -> None:
        self._make = make
        self._volume = volume
        self._muted = muted
        self.on_missing = on_missing
        self.on_back = on_back
        self._devices = devices
        self._chosen = chosen
        self._made = False
        self._present = True
        self._watching = False
        self._closed = False
        self._sink: AudioSink | None = None

    @property
    def missing(self) -> bool:
        """Asked, and there is no speaker: nobody hears speech here."""
        return self._made and (self._sink is None or not self._present)

    @property
    def speaker(self) -> AudioSink | None:
        """The real speaker once made (None before, or when missing)."""
        return self._sink

    def _get(self) -> AudioSink | None:
        if not self._made:
            self._made = True
            self._sink = self._make(self._volume, self._muted)
            self._present = self._sink is not None
            if self._sink is None:
                self.on_missing()
            self._watch()
        return self._sink if self._present else None

    def _watch(self) -> None:
        """Follow the outputs from now on (the speaker's query has loaded QtMultimedia)."""
        devices = self._devices
        if devices is None or self._watching:
            return
        self._watching = True
        devices.changed.connect(self._on_devices)
        devices.start()

    def _on_devices(self) -> None:
        if self._closed:
            return  # the window is gone: nobody to tell
        assert self._devices is not None
        outputs = self._devices.outputs()
        if outputs and self.missing:
            if self._sink is None:
                self._made = False  # made at the next clip, with the device there is now
            self._present = True
            device = self._devices.output(self._chosen())
            self.on_back(device.name if device is not None else "")
        elif not outputs and self._made and not self.missing:
            self._present = False
            if self._sink is not None:
                self._sink.stop()
            self.on_missing()

    async def play(self, audio: bytes, mime: str) -> None:
        sink = self._get()
        if sink is not None:
            await sink.play(audio, mime)

    async def play_stream(self, stream: SpeechStream) -> None:
        sink = self._get()
        if sink is not None:
            await sink.play_stream(stream)

    def stop(self) -> None:
        if self._sink is not None:
            self._sink.stop()

    def set_muted(self, muted: bool) -> None:
        self._muted = muted
        setter = getattr(self._sink, "set_muted", None)
        if setter is not None:
            setter(muted)

    def set_volume(self, volume: float) -> None:
        self._volume = volume
        setter = getattr(self._sink, "set_volume", None)
        if setter is not None:
            setter(volume)

    def close(self) -> None:
        """Close the speaker and stop following the devices: a speaker
        unplugged once the window has closed tells nobody."""
        self._closed = True
        if self._watching and self._devices is not None:
            self._devices.changed.disconnect(self._on_devices)
            self._watching = False
        closer = getattr(self._sink, "close", None)
        if closer is not None:
            closer()


class DeferredMicrophone:
    """An :class:`~desktop_agent.core.ports.AudioInput` that makes the Qt
    microphone (``ui/voice/mic.py``) at the first :meth:`start`; no microphone is
    then the ``OSError`` that start raises, one translated line.

    With ``devices``, each start opens the setting's choice (``chosen()``:
    the device while it is connected, else the system's default), and from
    the first :meth:`prepare` or start on the devices are watched:
    ``on_change(reason)`` says there is no microphone (the reason, for the
    button) or one again (None), ``on_lost(name)`` that the one recording
    went away (what it recorded until then was delivered)."""

    def __init__(self, devices: AudioDevices | None = None, chosen: Callable[[], str] = lambda: SYSTEM_DEFAULT) -> None:
        self._mic: QtAudioInput | None = None
        self._devices = devices
        self._chosen = chosen
        self._open: Device | None = None
        self._reported: tuple[str | None] | None = None
        self.on_change: Callable[[str | None], None] | None = None
        self.on_lost: Callable[[str], None] | None = None

    @property
    def device(self) -> Device | None:
        """The device recording now (None when stopped, or not known)."""
        return self._open

    def prepare(self) -> None:
        """Watch the devices now: the mic button was reached, a press may
        follow, and a machine without a microphone should say so before it
        (loads QtMultimedia; later calls do nothing)."""
        devices = self._devices
        if devices is None or self._reported is not None:
            return
        devices.changed.connect(self._on_devices)
        devices.start()
        self._on_devices()

    def _on_devices(self) -> None:
        assert self._devices is not None
        inputs = self._devices.inputs()
        recording = self._open
        if recording is not None and all(device.id != recording.id for device in inputs):
            log.info("microphone %r went away while in use", recording.name)
            self.stop()
            self._reported = None  # whether another one is here is said again, after the loss
            if self.on_lost is not None:
                self.on_lost(recording.name)
        from desktop_agent.texts import text_in

        reason = None if inputs else text_in("en", "mic_none")  # the window words it (VoiceInput)
        if self._reported != (reason,):
            self._reported = (reason,)
            if self.on_change is not None:
                self.on_change(reason)

    def start(self, on_frames: Callable[[bytes], None]) -> None:
        if self._mic is None:
            from desktop_agent.ui.voice.mic import QtAudioInput

            self._mic = QtAudioInput()
        device: Device | None = None
        devices = self._devices
        if devices is not None:
            self.prepare()
            device = devices.input(self._chosen())
            if device is None:
                from desktop_agent.ui.voice.mic_error import MicError

                raise MicError("mic_none")
            if hasattr(self._mic, "device"):
                self._mic.device = devices.qt_device(device, output=False)
        self._mic.start(on_frames)
        self._open = device

    def stop(self) -> None:
        self._open = None
        if self._mic is not None:
            self._mic.stop()
