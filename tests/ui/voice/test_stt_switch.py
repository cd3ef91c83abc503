"""Speech recognition chosen in Settings and used at once: the
Settings row shows only the chosen engine's fields and refuses a bad
address in one translated line; saving another engine swaps the window's
recognisers without a restart; choosing a model that is not on disk starts
its download with the progress panel showing."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from desktop_agent.core.ports import SpeechRecognizer
from desktop_agent.storage.settings import Settings, SettingsError
from desktop_agent.testing.fake_recognizer import ScriptedRecognizer
from desktop_agent.testing.fake_sensevoice import write_fake_sensevoice
from desktop_agent.testing.scripted_files import ScriptedFileServer, ServedFile
from desktop_agent.testing.wav_input import WavAudioInput
from desktop_agent.testing.window_rig import offline_deps
from desktop_agent.texts import CHINESE, ENGLISH, Language, Texts
from desktop_agent.ui.settings.dialog import SettingsEdit
from desktop_agent.ui.settings.stt_row import SttSettingsBox
from desktop_agent.ui.shell.main_window import MainWindow
from desktop_agent.ui.voice.feature import VoiceFeature
from desktop_agent.voice.stt.model_spec import ModelFile, ModelSpec
from desktop_agent.voice.stt.models import DownloadProgress, ModelStore
from desktop_agent.voice.stt.sensevoice import SenseVoiceRecognizer
from desktop_agent.voice.vad import WebRtcVad

pytestmark = pytest.mark.usefixtures("keep_loop_on_close")

DATA = Path(__file__).parents[2] / "voice" / "data"
Built = tuple[SpeechRecognizer | None, SpeechRecognizer | None, str | None]


def test_the_row_shows_only_the_chosen_engines_fields(qtbot: QtBot) -> None:
    box = SttSettingsBox(Settings(stt_engine="openai", stt_base_url="http://127.0.0.1:9000/v1"), ENGLISH)
    qtbot.add_widget(box)
    box.show()
    assert box.name() == "openai" and box.endpoint.isVisible() and not box.mirror.isVisible()
    assert box.note.text() == ENGLISH.tr("stt_note_openai")
    box.engine.setCurrentIndex(box.engine.findData("sensevoice"))
    assert box.source.isVisible() and box.folder.isVisible() and not box.endpoint.isVisible()
    assert not box.mirror.isVisible() and not box.whisper_model.isVisible()  # Hugging Face: no address to give
    box.source.setCurrentIndex(box.source.findData("custom"))
    assert box.mirror.isVisible()
    box.mirror.setText("http://127.0.0.1:8700/sense")
    box.folder.setText(" /models/sense ")
    settings = box.apply_to(Settings())
    assert (settings.stt_engine, settings.stt_model_dir, settings.stt_base_url, settings.stt_model_source,
            settings.stt_model_base_url) == (
        "sensevoice", "/models/sense", "http://127.0.0.1:9000/v1", "custom", "http://127.0.0.1:8700/sense")
    box.engine.setCurrentIndex(box.engine.findData("whisper"))
    assert box.whisper_model.isVisible() and box.source.isVisible()
    box.whisper_model.setCurrentIndex(box.whisper_model.findData("small"))
    box.source.setCurrentIndex(box.source.findData("modelscope"))
    assert not box.mirror.isVisible()
    settings = box.apply_to(Settings())
    assert (settings.stt_engine, settings.stt_whisper_model, settings.stt_model_source) == (
        "whisper", "small", "modelscope")
    box.engine.setCurrentIndex(box.engine.findData("pocketsphinx"))
    assert not box.source.isVisible() and not box.endpoint.isVisible()


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_bad_address_is_one_translated_line(qtbot: QtBot, language: Language) -> None:
    texts = Texts(language)
    box = SttSettingsBox(Settings(stt_engine="sensevoice", stt_model_source="custom"), texts)
    qtbot.add_widget(box)
    box.mirror.setText("hf-mirror.com")
    with pytest.raises(SettingsError) as caught:
        box.apply_to(Settings())
    assert str(caught.value) == texts.tr("settings_bad_address", field=texts.tr("stt_mirror"), value="hf-mirror.com")
    assert ("自定义地址" in str(caught.value)) == (language == "zh")
    box.mirror.setText("")
    with pytest.raises(SettingsError) as empty:
        box.apply_to(Settings())
    assert str(empty.value) == texts.tr("settings_custom_source_empty")


def _mic(window: MainWindow) -> str:
    """The mic button's state, read afresh (mypy would narrow the attribute)."""
    return window.mic.state


async def _until(condition: Callable[[], bool], timeout_s: float = 10) -> None:
    """Wait on the running (qasync) loop; qtbot.waitUntil would spin a nested one."""
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.02)


def _window(qtbot: QtBot, make: Callable[[Settings], Built], audio: WavAudioInput) -> MainWindow:
    window = MainWindow(tray=False)
    qtbot.add_widget(window)
    deps = offline_deps()
    window.attach(replace(deps, voice=VoiceFeature(audio, None, vad=WebRtcVad, make_recognizers=make),
                          settings=replace(deps.settings, voice_send="review")))
    window.show()
    qtbot.wait_exposed(window)
    return window


async def test_saving_another_engine_swaps_the_recognisers_without_a_restart(qtbot: QtBot) -> None:
    made: list[str] = []

    def make(settings: Settings) -> Built:
        made.append(settings.stt_engine)
        if settings.stt_engine == "openai":
            return ScriptedRecognizer(["what time is it"]), None, None
        return None, None, "no endpoint"

    audio = WavAudioInput([DATA / "what_time.wav"], speed=0, tail_s=0.2)
    window = _window(qtbot, make, audio)
    assert _mic(window) == "unavailable"
    settings = window.controller.settings if window.controller is not None else Settings()
    window.apply_settings_edit(SettingsEdit(replace(settings, stt_engine="openai")))
    assert made == ["openai"] and _mic(window) == "idle" and window.mic.isEnabled()
    assert window.hands_free_button.isEnabled()

    window.input.setFocus()
    QTest.keyPress(window.input, Qt.Key.Key_Space)
    await audio.finished.wait()
    QTest.keyRelease(window.input, Qt.Key.Key_Space)
    await _until(lambda: window.input.toPlainText() == "what time is it")

    # The same settings again build nothing; an engine with no way to work disables the button.
    window.apply_settings_edit(SettingsEdit(replace(settings, stt_engine="openai")))
    assert made == ["openai"]
    window.apply_settings_edit(SettingsEdit(replace(settings, stt_engine="pocketsphinx")))
    assert window.mic.state == "unavailable" and not window.mic.isEnabled()
    assert window.mic.toolTip() == ENGLISH.tr("mic_unavailable", reason="no endpoint")


@dataclass
class _Downloading:
    """A recogniser whose model is not on disk yet (SenseVoice's shape)."""

    steps: int = 4
    on_progress: Callable[[DownloadProgress], None] | None = None
    ready: bool = False
    shown: list[bool] = field(default_factory=list)

    @property
    def name(self) -> str:
        return "sensevoice"

    async def prepare(self) -> None:
        for i in range(1, self.steps + 1):
            await asyncio.sleep(0.02)
            assert self.on_progress is not None
            self.on_progress(DownloadProgress("SenseVoice", "model.int8.onnx", i * 1000, self.steps * 1000, i * 1.0))
        self.ready = True

    async def transcribe(self, pcm16: bytes, sample_rate: int = 16000) -> str:
        return ""


async def test_choosing_a_model_not_on_disk_downloads_it_now_with_progress(qtbot: QtBot) -> None:
    recognizer = _Downloading()
    window = _window(qtbot, lambda _s: (recognizer, None, None), WavAudioInput())
    panel = window.model_download
    seen: list[int] = []
    recognizer_progress = panel.progress

    def spy(progress: DownloadProgress) -> None:
        recognizer_progress(progress)
        seen.append(panel.bar.value())
        recognizer.shown.append(panel.isVisible())

    panel.progress = spy  # type: ignore[method-assign]
    settings = window.controller.settings if window.controller is not None else Settings()
    window.apply_settings_edit(SettingsEdit(replace(settings, stt_engine="sensevoice")))
    assert recognizer.on_progress is not None  # the window listens before anything is fetched
    await _until(lambda: recognizer.ready and len(seen) == 4)
    assert seen == sorted(seen) and recognizer.shown[:3] == [True, True, True]
    assert not panel.isVisible()  # the last report (all bytes in) hides it


def _served_model(tmp: Path) -> tuple[ModelSpec, dict[str, ServedFile]]:
    made = write_fake_sensevoice(tmp / "made")
    files, served = [], {}
    for name in ("model.int8.onnx", "tokens.txt"):
        body = (made / name).read_bytes()
        files.append(ModelFile(name, len(body), hashlib.sha256(body).hexdigest()))
        served[f"/m/{name}"] = ServedFile(body, bytes_per_s=400_000)
    return ModelSpec("fake-sensevoice", "SenseVoice (stand-in)", "", tuple(files)), served


async def test_sensevoice_downloads_then_hears_speech_in_the_window(qtbot: QtBot, tmp_path: Path) -> None:
    """The real engine and download: Settings picks SenseVoice, its model
    comes from a loopback server with the panel showing, then push-to-talk
    is recognised by the real sherpa-onnx."""
    spec, served = _served_model(tmp_path)
    async with ScriptedFileServer(served) as files:
        spec = replace(spec, base_url=files.url("/m"))
        store = ModelStore(tmp_path / "models")
        recognizer = SenseVoiceRecognizer(store, spec)
        audio = WavAudioInput([DATA / "what_time.wav"], speed=0, tail_s=0.2)
        window = _window(qtbot, lambda _s: (recognizer, None, None), audio)
        states: list[str] = []
        window.model_download.bar.valueChanged.connect(lambda _v: states.append(window.model_download.state))
        settings = window.controller.settings if window.controller is not None else Settings()
        window.apply_settings_edit(SettingsEdit(replace(settings, stt_engine="sensevoice")))
        await _until(lambda: store.ready(spec) and window.model_download.state == "hidden")
        assert "downloading" in states and files.requests == ["/m/model.int8.onnx", "/m/tokens.txt"]
        window.input.setFocus()
        QTest.keyPress(window.input, Qt.Key.Key_Space)
        await audio.finished.wait()
        QTest.keyRelease(window.input, Qt.Key.Key_Space)
        await _until(lambda: window.input.toPlainText() == "what time is it")


async def test_cancel_on_the_panel_stops_the_download_and_leaves_nothing(qtbot: QtBot, tmp_path: Path) -> None:
    spec, served = _served_model(tmp_path)
    served["/m/model.int8.onnx"] = replace(served["/m/model.int8.onnx"], hold_after=50_000, bytes_per_s=None)
    async with ScriptedFileServer(served) as files:
        spec = replace(spec, base_url=files.url("/m"))
        store = ModelStore(tmp_path / "models")
        window = _window(qtbot, lambda _s: (SenseVoiceRecognizer(store, spec), None, None), WavAudioInput())
        settings = window.controller.settings if window.controller is not None else Settings()
        window.apply_settings_edit(SettingsEdit(replace(settings, stt_engine="sensevoice")))
        await files.holding.wait()
        await _until(lambda: window.model_download.state == "downloading")
        window.model_download.button.click()  # Cancel
        await _until(lambda: window.model_download.state == "hidden")
        await _until(lambda: not list(store.folder(spec).glob("*.part")))
        assert not store.ready(spec) and list(store.folder(spec).iterdir()) == []


async def test_a_failed_download_says_why_on_the_panel(qtbot: QtBot, tmp_path: Path) -> None:
    spec, served = _served_model(tmp_path)
    served["/m/model.int8.onnx"] = ServedFile(status=404)
    async with ScriptedFileServer(served) as files:
        spec = replace(spec, base_url=files.url("/m"))
        store = ModelStore(tmp_path / "models")
        window = _window(qtbot, lambda _s: (SenseVoiceRecognizer(store, spec), None, None), WavAudioInput())
        settings = window.controller.settings if window.controller is not None else Settings()
        window.apply_settings_edit(SettingsEdit(replace(settings, stt_engine="sensevoice")))
        await _until(lambda: window.model_download.state == "failed")
        assert "HTTP 404" in window.model_download.label.text(), window.model_download.label.text()
        assert list(store.folder(spec).glob("*.part")) == []


def test_the_row_follows_a_language_switch(qtbot: QtBot) -> None:
    box = SttSettingsBox(Settings(stt_engine="sensevoice"), ENGLISH)
    qtbot.add_widget(box)
    box.retranslate(CHINESE)
    assert box.engine.currentText() == "离线，中文和英语（SenseVoice）"
    assert box.note.text() == CHINESE.tr("stt_note_sensevoice") and "模型" in box.note.text()
    assert box.folder.placeholderText() == CHINESE.tr("stt_folder_hint")
    box.retranslate(ENGLISH)
    assert box.engine.currentText() == "Offline, Chinese and English (SenseVoice)"
