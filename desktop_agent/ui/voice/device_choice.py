"""Which microphone or speaker to use, as plain values (no Qt): the devices
there are, the one the settings name, and what the Settings rows offer.

A device is known by its id (Qt's ``QAudioDevice.id()``: the PulseAudio
source or sink name, the Windows endpoint id, the macOS device UID), kept in
the settings as text, with the name it had, so a device that is unplugged
can still be shown by name. ``""`` is the system default: whatever the
system calls its default device at the moment of use.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

SYSTEM_DEFAULT = ""
"""The device id that means "whatever the system's default is then"."""

_HEX = "hex:"


@dataclass(frozen=True)
class Device:
    id: str
    """The device's id as text (:func:`id_text`)."""
    name: str
    """What the system calls it ("USB Headset Microphone")."""
    default: bool = False
    """The system's default device of its kind, now."""


@dataclass(frozen=True)
class Option:
    """One entry of a Settings device row."""

    id: str
    """:data:`SYSTEM_DEFAULT` or a device id."""
    name: str
    """The device's name ("" for the system default: the UI words it)."""
    present: bool
    """False: the saved device, not connected now (it is used when it comes back)."""


def id_text(raw: bytes) -> str:
    """A device id as settings text: itself when it is UTF-8 (every backend
    Qt has names devices so), else ``hex:`` and its bytes."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return _HEX + raw.hex()
    return _HEX + raw.hex() if text.startswith(_HEX) else text


def id_bytes(text: str) -> bytes:
    """The inverse of :func:`id_text`."""
    return bytes.fromhex(text[len(_HEX):]) if text.startswith(_HEX) else text.encode("utf-8")


def pick(chosen: str, devices: Sequence[Device]) -> Device | None:
    """The device to open: the chosen one while it is connected, else the
    system's default, else the first there is; None when there is none."""
    if chosen != SYSTEM_DEFAULT:
        for device in devices:
            if device.id == chosen:
                return device
    for device in devices:
        if device.default:
            return device
    return devices[0] if devices else None


def options(devices: Sequence[Device], chosen: str, chosen_name: str) -> list[Option]:
    """The system default first, then every device; a chosen device that is
    not connected stays offered (last, marked), so opening Settings while it
    is unplugged does not quietly choose another."""
    rows = [Option(SYSTEM_DEFAULT, "", True), *(Option(d.id, d.name, True) for d in devices)]
    if chosen != SYSTEM_DEFAULT and all(d.id != chosen for d in devices):
        rows.append(Option(chosen, chosen_name or chosen, False))
    return rows
