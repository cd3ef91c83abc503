"""QtAudioInput on a machine without a microphone (these machines have none)."""

from __future__ import annotations

import pytest
from PySide6.QtMultimedia import QAudioDevice
from pytestqt.qtbot import QtBot

from desktop_agent.texts import ENGLISH
from desktop_agent.ui.voice.mic import QtAudioInput, capture_format, wanted_format


def test_no_device_raises_one_translated_line(qtbot: QtBot) -> None:
    mic = QtAudioInput(QAudioDevice())  # a null device: what a machine without one gives
    with pytest.raises(OSError) as caught:
        mic.start(lambda _pcm: None)
    assert str(caught.value) == ENGLISH.tr("mic_none")
    mic.stop()  # stopping what never started is harmless


def test_the_wanted_format_is_16_khz_mono_int16() -> None:
    fmt = wanted_format()
    assert (fmt.sampleRate(), fmt.channelCount(), fmt.sampleFormat()) == (16000, 1, fmt.SampleFormat.Int16)
    assert capture_format(QAudioDevice()).sampleRate() <= 0  # a null device offers nothing
