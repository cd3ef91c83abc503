"""The mic button and hot-plug in the window: no microphone is said before
any press, a microphone plugged in is usable at once, and one unplugged
while the user talks keeps what was said. Devices are scripted here
(``test_real_audio*.py`` does the same on a real sound server)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from desktop_agent.testing.fake_devices import ScriptedDevices
from desktop_agent.testing.fake_recognizer import ScriptedRecognizer
from desktop_agent.testing.wav_input import WavAudioInput
from desktop_agent.testing.window_rig import offline_deps
from desktop_agent.texts import CHINESE, ENGLISH
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.shell.main_window import MainWindow
from desktop_agent.ui.voice.deferred_audio import DeferredMicrophone
from desktop_agent.ui.voice.device_choice import Device
from desktop_agent.ui.voice.feature import VoiceFeature
from desktop_agent.voice.vad import WebRtcVad

pytestmark = pytest.mark.usefixtures("keep_loop_on_close")

DATA = Path(__file__).parents[2] / "voice" / "data"
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
HEADSET = Device("usb_headset", "USB headset", default=True)


class CountingMic(WavAudioInput):
    """A WAV microphone that counts the frames it delivered."""

    frames = 0

    def start(self, on_frames: Callable[[bytes], None]) -> None:
        def counted(pcm: bytes) -> None:
            self.frames += 1
            on_frames(pcm)

        super().start(counted)


@pytest.fixture
def wav_mic(monkeypatch: pytest.MonkeyPatch) -> CountingMic:
    """What the Qt microphone would hear: the spoken "what time is it"."""
    import desktop_agent.ui.voice.mic as qt_mic

    made = CountingMic([DATA / "what_time.wav"], speed=4, tail_s=30)
    monkeypatch.setattr(qt_mic, "QtAudioInput", lambda: made)
    return made


async def until(condition: Callable[[], bool], timeout_s: float = 10.0) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.01)


def device_window(qtbot: QtBot, scripted: ScriptedDevices, recognizer: ScriptedRecognizer) -> MainWindow:
    window = MainWindow(tray=False)
    qtbot.add_widget(window)
    deps = offline_deps()
    deps = replace(deps, settings=replace(deps.settings, voice_send="review"),
                   voice=VoiceFeature(DeferredMicrophone(scripted.watcher()), recognizer, vad=WebRtcVad))
    window.attach(deps)
    window.resize(860, 720)
    window.show()
    qtbot.wait_exposed(window)
    return window


def bubbles(window: MainWindow) -> list[str]:
    return [w.text() for w in window.chat.items() if isinstance(w, MessageBubble)]


def state_of(window: MainWindow) -> str:
    return window.mic.state


def save_bottom(window: MainWindow, name: str) -> QImage:
    bar = window.send_button.geometry()
    top = window.send_button.mapTo(window, bar.topLeft() - bar.topLeft()).y() - 20
    image = window.grab(window.rect().adjusted(0, top, 0, 0)).toImage()
    ARTIFACTS.mkdir(exist_ok=True)
    assert image.save(str(ARTIFACTS / name))
    return image


def test_without_a_microphone_the_button_says_why_before_it_is_pressed(qtbot: QtBot) -> None:
    scripted = ScriptedDevices()
    window = device_window(qtbot, scripted, ScriptedRecognizer())
    mic = window.mic
    assert (mic.state, scripted.started) == ("idle", False)  # an idle window looks at no device
    QTest.mouseMove(mic)  # the pointer reaches the button
    assert scripted.started
    assert (mic.state, mic.isEnabled(), window.hands_free_button.isEnabled()) == ("unavailable", False, False)
    assert mic.toolTip() == "Speech input unavailable: no microphone found"
    assert mic.accessibleDescription() == "no microphone found"
    assert bubbles(window) == []  # the button says it; nothing in the conversation
    mic.retranslate(CHINESE)
    assert (mic.toolTip(), mic.accessibleDescription()) == ("语音输入不可用：未找到麦克风", "未找到麦克风")


def test_a_microphone_plugged_in_is_usable_at_once_and_unplugged_unusable(qtbot: QtBot) -> None:
    scripted = ScriptedDevices()
    window = device_window(qtbot, scripted, ScriptedRecognizer())
    QTest.mouseMove(window.mic)
    scripted.plug(HEADSET)
    assert (state_of(window), window.mic.isEnabled(), window.hands_free_button.isEnabled()) == ("idle", True, True)
    assert (window.mic.toolTip(), window.mic.accessibleDescription()) == (ENGLISH.tr("mic_idle"), "")
    scripted.unplug(HEADSET.id)
    assert (state_of(window), window.hands_free_button.isEnabled()) == ("unavailable", False)
    assert bubbles(window) == []


async def test_a_microphone_unplugged_while_talking_keeps_what_was_said(qtbot: QtBot, wav_mic: CountingMic) -> None:
    scripted = ScriptedDevices(inputs=[HEADSET])
    recognizer = ScriptedRecognizer(["what time is it"])
    window = device_window(qtbot, scripted, recognizer)
    QTest.mousePress(window.mic, Qt.MouseButton.LeftButton)
    assert state_of(window) == "listening" and wav_mic.running
    await until(lambda: wav_mic.frames >= 20)  # 0.6 s said
    scripted.unplug(HEADSET.id)  # mid-utterance
    assert not wav_mic.running
    await until(lambda: window.input.toPlainText() == "what time is it")
    QTest.mouseRelease(window.mic, Qt.MouseButton.LeftButton)  # ends nothing more
    assert recognizer.heard == [wav_mic.frames * 960]  # everything recorded until then, kept
    assert bubbles(window) == [
        "The microphone “USB headset” was disconnected — what you said until then is being recognised"
    ]
    assert (state_of(window), window.mic.reason) == ("unavailable", "no microphone found")
