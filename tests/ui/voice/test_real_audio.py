"""The window on real sound devices: a private PulseAudio server with a
virtual microphone (WAV files played into it) and a virtual speaker (what
the app plays is recorded from it), the real Whisper base model, and the
window built by the composition root as ``python -m desktop_agent`` builds
it. Each test runs in a process of its own (``real_audio``: Qt connects to
the sound server once per process)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QImage, QPainter
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QComboBox, QLabel, QToolTip, QWidget
from pytestqt.qtbot import QtBot

from desktop_agent.testing.pulse import MICROPHONE, SPEAKER, VirtualAudio
from desktop_agent.testing.speech_fixtures import (
    FIXTURES,
    chinese_characters,
    english_words,
    error_rate,
    whisper_base_dir,
)
from desktop_agent.texts import ENGLISH
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.system_message import SystemMessage
from desktop_agent.ui.shell.main_window import MainWindow

if TYPE_CHECKING:
    from desktop_agent.ui.settings.dialog import SettingsDialog

pytestmark = [pytest.mark.usefixtures("keep_loop_on_close"), pytest.mark.integration, pytest.mark.real_audio]

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
RATE = 16000


async def until(condition: Callable[[], bool], timeout_s: float = 10.0) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.02)


@asynccontextmanager
async def app_window(qtbot: QtBot, tmp_path: Path, **settings: object) -> AsyncIterator[MainWindow]:
    """The window as the app builds it (``app.window_deps``, ``app_speech.deferred_sink``),
    recognising with the real Whisper base model; transcripts are left in the
    input (sending them is another part's business)."""
    from desktop_agent.app import window_deps
    from desktop_agent.app_speech import deferred_sink
    from desktop_agent.services import build_services
    from desktop_agent.storage.paths import settings_path

    saved = {"stt_engine": "whisper", "stt_model_dir": str(whisper_base_dir()), "voice_send": "review", **settings}
    settings_path().write_text(json.dumps(saved))
    mcp = tmp_path / "mcp.json"
    mcp.write_text('{"mcpServers": {}}')
    services = await build_services(mcp_config=mcp, tts="none", keep_conversations=True)
    window = MainWindow(tray=False)
    qtbot.add_widget(window)
    sink = deferred_sink(services, window)
    try:
        window.attach(window_deps(services, sink))
        window.resize(860, 720)
        window.show()
        qtbot.wait_exposed(window)
        window.sink = sink  # type: ignore[attr-defined]  # the tests play through it
        yield window
    finally:
        window.close()
        sink.close()
        await services.aclose()


def bubbles(window: MainWindow) -> list[str]:
    """The conversation's lines: notices and system lines."""
    return [w.text() for w in window.chat.items() if isinstance(w, MessageBubble | SystemMessage)]


def save(image: QImage, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    assert image.save(str(ARTIFACTS / name))


async def push_to_talk(window: MainWindow, audio: VirtualAudio, wav: Path) -> str:
    """Hold the mic button, say ``wav`` into the virtual microphone, release;
    the transcript the input then holds."""
    window.input.clear()
    QTest.mousePress(window.mic, Qt.MouseButton.LeftButton)
    assert window.mic.state == "listening"
    await audio.play_into_mic(wav)
    await asyncio.sleep(0.3)  # the sound card's last buffer (real time: a device, not a clock to fake)
    QTest.mouseRelease(window.mic, Qt.MouseButton.LeftButton)
    await until(lambda: window.input.toPlainText() != "", timeout_s=90)
    return window.input.toPlainText()


async def tooltip_of(widget: QWidget) -> QLabel:
    """Show ``widget``'s tooltip (as hovering does) and return Qt's tooltip label."""
    QToolTip.showText(widget.mapToGlobal(QPoint(0, 0)), widget.toolTip(), widget)
    labels: list[QLabel] = []

    def shown() -> bool:
        labels[:] = [w for w in QApplication.topLevelWidgets()
                     if isinstance(w, QLabel) and w.inherits("QTipLabel") and w.isVisible()]
        return bool(labels)

    await until(shown)
    return labels[0]


def with_tooltip(window: MainWindow, widget: QWidget, tip: QLabel) -> QImage:
    """The input row with the tooltip drawn above ``widget`` (a tooltip is a
    window of its own: a grab of the main window would not show it)."""
    top = widget.mapTo(window, QPoint(0, 0)).y() - tip.height() - 16
    shot = window.grab(window.rect().adjusted(0, top, 0, 0)).toImage()
    painter = QPainter(shot)
    x = min(widget.mapTo(window, QPoint(0, 0)).x(), window.width() - tip.width() - 4)
    painter.drawPixmap(QPoint(x, 4), tip.grab())
    painter.end()
    QToolTip.hideText()
    return shot


def loud_seconds(pcm: bytes) -> float:
    """How long the recording is not silent (20 ms frames over a floor)."""
    import array

    samples = array.array("h", pcm[: len(pcm) // 2 * 2])
    frame = RATE // 50
    loud = 0
    for start in range(0, len(samples) - frame + 1, frame):
        chunk = samples[start:start + frame]
        if (sum(s * s for s in chunk) / frame) ** 0.5 > 300:
            loud += 1
    return loud / 50


# --------------------------------------------------------------- Settings


def texts(box: QComboBox) -> list[str]:
    return [box.itemText(i) for i in range(box.count())]


async def settings_shot(qtbot: QtBot, language: str) -> SettingsDialog:
    """Settings → Voice with the microphone list open, saved as a picture."""
    from desktop_agent.storage.settings import Settings
    from desktop_agent.texts import Texts
    from desktop_agent.ui.settings.dialog import SettingsDialog

    words = Texts("zh" if language == "zh" else "en")
    dialog = SettingsDialog(Settings(), texts=words)
    qtbot.add_widget(dialog)
    dialog.pages.setCurrentRow(1)
    dialog.show()
    qtbot.wait_exposed(dialog)
    page = dialog.voice_page
    mic, speaker = page.devices.mic, page.devices.speaker
    default = words.tr("device_system_default_named", device="{}")
    assert texts(mic) == [default.format("Virtual microphone"), "Virtual microphone"]
    assert texts(speaker) == [default.format("Virtual speaker"), "Virtual speaker", "Virtual microphone (feed)"]
    page.ensureWidgetVisible(page.devices.note)
    mic.showPopup()  # the picture shows the list open
    popup = mic.view().window()
    await until(popup.isVisible)
    shot = dialog.grab().toImage()
    painter = QPainter(shot)
    painter.drawPixmap(mic.mapTo(dialog, QPoint(0, mic.height())), popup.grab())  # under the row, as it opens
    painter.end()
    mic.hidePopup()
    save(shot, f"settings_devices_{language}.png")
    return dialog


@pytest.mark.qt_log_ignore("This plugin does not support grabbing the keyboard")  # the open list, offscreen
async def test_the_voice_page_lists_the_virtual_devices_and_follows_hot_plug(
    qtbot: QtBot, pulse_audio: VirtualAudio
) -> None:
    from desktop_agent.storage.settings import Settings

    (await settings_shot(qtbot, "zh")).close()
    dialog = await settings_shot(qtbot, "en")
    page = dialog.voice_page
    mic = page.devices.mic
    pulse_audio.add_microphone("usb_headset", "USB headset")  # plugged in while Settings is open
    await until(lambda: "USB headset" in texts(mic), timeout_s=5)
    mic.setCurrentIndex(mic.findData("usb_headset"))
    chosen = page.apply_to(Settings())
    assert (chosen.audio_input_id, chosen.audio_input_name, chosen.audio_output_id) == ("usb_headset", "USB headset", "")
    pulse_audio.remove_device("usb_headset")  # unplugged while chosen: kept, marked
    await until(lambda: "USB headset (not connected)" in texts(mic), timeout_s=5)
    assert mic.currentData() == "usb_headset"


# ----------------------------------------------------------------- the mic


async def test_push_to_talk_hears_english_and_chinese_through_the_virtual_microphone(
    qtbot: QtBot, tmp_path: Path, pulse_audio: VirtualAudio
) -> None:
    async with app_window(qtbot, tmp_path) as window:
        english = await push_to_talk(window, pulse_audio, FIXTURES / "en1.wav")
        chinese = await push_to_talk(window, pulse_audio, FIXTURES / "zh1.wav")
    assert english_words(english) == ["what", "time", "is", "it"]
    assert error_rate("zh", [("现在几点了", chinese)]) <= 0.2, chinese
    assert chinese_characters(chinese)[:2] == ["现", "在"]


async def test_the_mic_button_follows_a_microphone_plugged_in_and_out(
    qtbot: QtBot, tmp_path: Path, pulse_audio: VirtualAudio
) -> None:
    from desktop_agent.texts import Texts

    pulse_audio.remove_device(MICROPHONE)  # a machine with no microphone
    async with app_window(qtbot, tmp_path) as window:
        mic = window.mic
        assert mic.state == "idle"  # nothing looked at while idle
        QTest.mouseMove(mic)  # the pointer reaches it: before any press
        await until(lambda: window.mic.state == "unavailable", timeout_s=5)
        assert (mic.toolTip(), mic.accessibleDescription()) == (
            "Speech input unavailable: no microphone found", "no microphone found")
        assert not mic.isEnabled() and not window.hands_free_button.isEnabled()
        for language in ("en", "zh"):
            words = Texts(language)
            window.retranslate(words)
            tip = await tooltip_of(mic)
            assert tip.text() == mic.toolTip() == words.tr("mic_unavailable", reason=words.tr("mic_none"))
            save(with_tooltip(window, mic, tip), f"mic_no_device_{language}.png")
        window.retranslate(Texts("en"))

        pulse_audio.add_microphone()  # plugged in: usable at once
        await until(lambda: window.mic.state == "idle", timeout_s=5)
        assert mic.isEnabled() and window.hands_free_button.isEnabled()
        pulse_audio.remove_device(MICROPHONE)  # and out again
        await until(lambda: window.mic.state == "unavailable", timeout_s=5)
        assert bubbles(window) == []  # the button says it all


async def test_a_microphone_unplugged_mid_utterance_is_recognised_up_to_then(
    qtbot: QtBot, tmp_path: Path, pulse_audio: VirtualAudio
) -> None:
    async with app_window(qtbot, tmp_path) as window:
        QTest.mousePress(window.mic, Qt.MouseButton.LeftButton)
        await pulse_audio.play_into_mic(FIXTURES / "en1.wav")
        await asyncio.sleep(0.3)  # the sound card's last buffer
        pulse_audio.remove_device(MICROPHONE)  # still held
        await until(lambda: window.input.toPlainText() != "", timeout_s=90)
        QTest.mouseRelease(window.mic, Qt.MouseButton.LeftButton)
        assert english_words(window.input.toPlainText()) == ["what", "time", "is", "it"]
        assert bubbles(window) == [ENGLISH.tr("mic_lost_kept", device="Virtual microphone")]
        await until(lambda: window.mic.state == "unavailable")
        assert window.mic.reason == ENGLISH.tr("mic_none")


# ------------------------------------------------------------- the speaker


async def test_speech_plays_on_the_chosen_speaker_and_a_new_choice_from_the_next_clip(
    qtbot: QtBot, tmp_path: Path, pulse_audio: VirtualAudio
) -> None:
    from desktop_agent.core.speech_stream import SpeechStream
    from desktop_agent.voice.pcm import read_wav16
    from desktop_agent.voice.stt.whisper import WhisperRecognizer

    pulse_audio.add_speaker("virtual_headphones", "Virtual headphones")
    clip = (FIXTURES / "en1.wav").read_bytes()
    async with app_window(qtbot, tmp_path, audio_output_id="virtual_headphones",
                          audio_output_name="Virtual headphones") as window:
        sink = window.sink  # type: ignore[attr-defined]
        headphones, speaker = pulse_audio.record_speaker("virtual_headphones"), pulse_audio.record_speaker()
        await sink.play(clip, "audio/wav")
        stream = SpeechStream(sample_rate=RATE, engine="test")  # streamed speech: the QAudioSink path
        stream.feed(read_wav16(FIXTURES / "en1.wav"))
        stream.finish()
        await sink.play_stream(stream)
        await asyncio.sleep(0.3)  # the sound card's last buffer (a device)
        on_headphones, on_speaker = headphones.stop(), speaker.stop()

        controller = window.controller
        assert controller is not None
        controller.save_settings(replace(controller.settings, audio_output_id="", audio_output_name=""))
        speaker = pulse_audio.record_speaker()
        await sink.play(clip, "audio/wav")
        await asyncio.sleep(0.3)  # the sound card's last buffer (a device)
        now_on_speaker = speaker.stop()
    spoken = loud_seconds(read_wav16(FIXTURES / "en1.wav"))  # 0.68 s of the clip's 1.1 s is speech
    assert abs(loud_seconds(on_headphones) - 2 * spoken) <= 0.2, loud_seconds(on_headphones)  # the clip, the stream
    assert loud_seconds(on_speaker) == 0.0
    assert abs(loud_seconds(now_on_speaker) - spoken) <= 0.1
    recogniser = WhisperRecognizer(model_dir=whisper_base_dir())
    heard = await recogniser.transcribe(now_on_speaker, RATE)
    assert english_words(heard) == ["what", "time", "is", "it"]


async def test_a_speaker_plugged_in_after_none_is_used_from_the_next_clip(
    qtbot: QtBot, tmp_path: Path, pulse_audio: VirtualAudio
) -> None:
    from desktop_agent.voice.pcm import read_wav16

    pulse_audio.remove_device(MICROPHONE)  # its feed is an output too
    pulse_audio.remove_device(SPEAKER)
    clip = (FIXTURES / "en1.wav").read_bytes()
    async with app_window(qtbot, tmp_path) as window:
        sink = window.sink  # type: ignore[attr-defined]
        await sink.play(clip, "audio/wav")
        assert sink.missing and window.notices.shown() == [f"⚠ {ENGLISH.tr('no_audio_output')}"]
        assert bubbles(window) == []  # the notice line says it, not the conversation
        pulse_audio.add_speaker()
        await until(lambda: not sink.missing, timeout_s=5)
        assert window.notices.shown() == [] and bubbles(window) == []
        assert window.status.currentMessage() == ENGLISH.tr("audio_output_back", device="Virtual speaker")
        recording = pulse_audio.record_speaker()
        await sink.play(clip, "audio/wav")
        await asyncio.sleep(0.3)  # the sound card's last buffer (a device)
        heard = recording.stop()
    assert abs(loud_seconds(heard) - loud_seconds(read_wav16(FIXTURES / "en1.wav"))) <= 0.1
