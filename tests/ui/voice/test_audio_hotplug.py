"""The speaker and microphone made at first use, following the devices:
the settings' choice at each use, and devices plugged in and out."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pytestqt.qtbot import QtBot

from desktop_agent.testing.fake_devices import ScriptedDevices
from desktop_agent.testing.fake_sink import FakeAudioSink
from desktop_agent.texts import ENGLISH
from desktop_agent.ui.voice.deferred_audio import DeferredMicrophone, DeferredSink
from desktop_agent.ui.voice.device_choice import Device

BUILT_IN = Device("built_in", "Built-in microphone", default=True)
HEADSET = Device("usb_headset", "USB headset")
SPEAKERS = Device("speakers", "Speakers", default=True)


class RecordingMic:
    """Stands in for the Qt microphone: records which device each start opened."""

    def __init__(self) -> None:
        self.device: object = None
        self.calls: list[str] = []

    def start(self, on_frames: Callable[[bytes], None]) -> None:
        self.calls.append("start")

    def stop(self) -> None:
        self.calls.append("stop")


@pytest.fixture
def mic(monkeypatch: pytest.MonkeyPatch) -> RecordingMic:
    import desktop_agent.ui.voice.mic as qt_mic

    made = RecordingMic()
    monkeypatch.setattr(qt_mic, "QtAudioInput", lambda: made)
    return made


def test_each_start_opens_the_choice_of_that_moment(qtbot: QtBot, mic: RecordingMic) -> None:
    scripted = ScriptedDevices(inputs=[BUILT_IN, HEADSET])
    chosen = [HEADSET.id]
    microphone = DeferredMicrophone(scripted.watcher(), lambda: chosen[0])
    opened: list[Device | None] = []
    for choice in (HEADSET.id, "", "gone_device"):
        chosen[0] = choice
        microphone.start(lambda _pcm: None)
        opened.append(microphone.device)
        microphone.stop()
    assert opened == [HEADSET, BUILT_IN, BUILT_IN]
    assert microphone.device is None


def test_the_microphone_says_when_there_is_none_and_when_one_is_back(qtbot: QtBot, mic: RecordingMic) -> None:
    scripted = ScriptedDevices()
    microphone = DeferredMicrophone(scripted.watcher())
    said: list[str | None] = []
    microphone.on_change = said.append
    assert not scripted.started  # nothing looked at before it is asked
    microphone.prepare()
    microphone.prepare()
    with pytest.raises(OSError, match=f"^{ENGLISH.tr('mic_none')}$"):
        microphone.start(lambda _pcm: None)
    scripted.plug(HEADSET)
    scripted.plug(BUILT_IN)
    scripted.unplug(HEADSET.id)
    scripted.unplug(BUILT_IN.id)
    assert said == [ENGLISH.tr("mic_none"), None, ENGLISH.tr("mic_none")]


def test_the_microphone_in_use_unplugged_is_said_once_and_stopped(qtbot: QtBot, mic: RecordingMic) -> None:
    scripted = ScriptedDevices(inputs=[BUILT_IN, HEADSET])
    microphone = DeferredMicrophone(scripted.watcher(), lambda: HEADSET.id)
    lost: list[str] = []
    said: list[str | None] = []
    microphone.on_lost, microphone.on_change = lost.append, said.append
    microphone.start(lambda _pcm: None)
    scripted.unplug(BUILT_IN.id)  # not the one in use
    scripted.unplug(HEADSET.id)
    assert (lost, said, mic.calls, microphone.device) == (["USB headset"], [None, ENGLISH.tr("mic_none")],
                                                          ["start", "stop"], None)


async def test_an_output_plugged_in_later_is_used_from_the_next_clip(qtbot: QtBot) -> None:
    scripted = ScriptedDevices()
    devices = scripted.watcher()
    fake = FakeAudioSink(auto_finish_s=0.0)
    events: list[str] = []

    def make(_volume: float, _muted: bool) -> FakeAudioSink | None:
        events.append("make")
        return fake if devices.outputs() else None

    sink = DeferredSink(make, devices=devices, on_missing=lambda: events.append("missing"),
                        on_back=lambda name: events.append(f"back: {name}"))
    await sink.play(b"RIFF1", "audio/wav")
    assert sink.missing
    scripted.plug(SPEAKERS, output=True)
    assert not sink.missing  # the turn on screen waits for speech again
    await sink.play(b"RIFF2", "audio/wav")
    scripted.unplug(SPEAKERS.id)
    assert sink.missing
    await sink.play(b"RIFF3", "audio/wav")  # nobody hears it: not played
    scripted.plug(SPEAKERS, output=True)
    await sink.play(b"RIFF4", "audio/wav")
    assert events == ["make", "missing", "back: Speakers", "make", "missing", "back: Speakers"]
    assert [audio for audio, _mime in fake.plays] == [b"RIFF2", b"RIFF4"]


async def test_a_closed_speaker_no_longer_follows_the_devices(qtbot: QtBot) -> None:
    scripted = ScriptedDevices()
    scripted.plug(SPEAKERS, output=True)
    devices = scripted.watcher()
    fake = FakeAudioSink(auto_finish_s=0.0)
    events: list[str] = []
    sink = DeferredSink(lambda _v, _m: fake, devices=devices, on_missing=lambda: events.append("missing"),
                        on_back=lambda name: events.append(f"back: {name}"))
    await sink.play(b"RIFF1", "audio/wav")  # made and watched from here
    sink.close()
    scripted.unplug(SPEAKERS.id)  # e.g. a sound server going away as the app exits
    scripted.plug(SPEAKERS, output=True)
    assert events == []
