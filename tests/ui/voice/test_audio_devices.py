"""Which microphone or speaker: the settings' choice against the devices
there are, and the watcher that says when they change."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop_agent.storage.settings import Settings, SettingsError
from desktop_agent.testing.fake_devices import ScriptedDevices
from desktop_agent.ui.voice.device_choice import (
    SYSTEM_DEFAULT,
    Device,
    Option,
    id_bytes,
    id_text,
    options,
    pick,
)

BUILT_IN = Device("alsa_input.pci-0000_00_1f.3.analog-stereo", "Built-in Audio Analog Stereo", default=True)
HEADSET = Device("alsa_input.usb-Logitech_H390-00.mono-fallback", "Logitech H390 Mono")


def test_a_device_id_is_kept_as_text_and_read_back_as_the_same_bytes() -> None:
    for raw in (b"alsa_input.usb-x", b"{0.0.1.00000000}.{b3f8fa53}", b"\xff\xfe\x00", b"hex:abc"):
        assert id_bytes(id_text(raw)) == raw
    assert id_text(b"virtual_mic") == "virtual_mic"  # readable in settings.json
    assert id_text(b"\xff\x00") == "hex:ff00"


def test_the_chosen_device_is_used_while_connected_then_the_system_default() -> None:
    assert pick(HEADSET.id, [BUILT_IN, HEADSET]) == HEADSET
    assert pick(HEADSET.id, [BUILT_IN]) == BUILT_IN  # unplugged: the default meanwhile
    assert pick(SYSTEM_DEFAULT, [HEADSET, BUILT_IN]) == BUILT_IN
    assert pick(SYSTEM_DEFAULT, [HEADSET]) == HEADSET  # no default named: the first there is
    assert pick(HEADSET.id, []) is None


def test_the_rows_offer_the_default_first_and_keep_an_unplugged_choice() -> None:
    assert options([BUILT_IN, HEADSET], HEADSET.id, HEADSET.name) == [
        Option("", "", True), Option(BUILT_IN.id, BUILT_IN.name, True), Option(HEADSET.id, HEADSET.name, True),
    ]
    assert options([BUILT_IN], HEADSET.id, HEADSET.name) == [
        Option("", "", True), Option(BUILT_IN.id, BUILT_IN.name, True), Option(HEADSET.id, HEADSET.name, False),
    ]


def test_device_settings_are_saved_and_checked() -> None:
    settings = Settings(audio_input_id=HEADSET.id, audio_input_name=HEADSET.name, audio_output_id="hex:ff00")
    assert Settings.from_json(settings.to_json()) == settings
    try:
        Settings.from_json({"audio_input_id": 3})
    except SettingsError as exc:
        assert str(exc) == "settings: audio_input_id must be a device id (text, at most 1024 characters; " \
                           "empty: the system default), got 3"
    else:
        raise AssertionError("a number is no device id")


def test_the_watcher_reads_nothing_until_started_then_says_each_change_once(qtbot: QtBot) -> None:
    scripted = ScriptedDevices(inputs=[BUILT_IN])
    devices = scripted.watcher()
    said: list[tuple[tuple[Device, ...], tuple[Device, ...]]] = []
    devices.changed.connect(lambda: said.append((devices.inputs(), devices.outputs())))
    assert not scripted.started and not devices.started
    devices.start()
    devices.start()
    scripted.plug(HEADSET)
    scripted.plug(BUILT_IN, output=True)
    scripted.unplug(HEADSET.id)
    assert said == [((BUILT_IN,), ()), ((BUILT_IN, HEADSET), ()), ((BUILT_IN, HEADSET), (BUILT_IN,)),
                    ((BUILT_IN,), (BUILT_IN,))]
    assert devices.input(HEADSET.id) == BUILT_IN
