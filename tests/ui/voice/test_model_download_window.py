"""A speech model download in the window: a failure never loses what was
said (pocketsphinx hears it, and the window says so), it is said once in
the UI language naming the source and the reason with Retry and "Try
<the other source>", Retry fetches it again, and the first push-to-talk
with no offline model offers the download (its size and source) and
holds the utterance until the model is here. Real Whisper and pocketsphinx
on real speech; the sources are loopback file servers."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from desktop_agent.core.ports import SpeechRecognizer
from desktop_agent.storage.settings import Settings
from desktop_agent.testing.scripted_files import ScriptedFileServer, ServedFile
from desktop_agent.testing.speech_fixtures import (
    FIXTURES,
    chinese_characters,
    edit_distance,
    whisper_base_dir,
)
from desktop_agent.testing.wav_input import WavAudioInput
from desktop_agent.testing.window_rig import offline_deps
from desktop_agent.texts import CHINESE, ENGLISH, Texts
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.system_message import SystemMessage
from desktop_agent.ui.settings.dialog import SettingsEdit
from desktop_agent.ui.shell.main_window import MainWindow
from desktop_agent.ui.voice.feature import VoiceFeature
from desktop_agent.voice.downloads import ModelDownloads
from desktop_agent.voice.stt.models import ModelDownloadError, ModelStore
from desktop_agent.voice.stt.sources import ModelSource
from desktop_agent.voice.stt.sphinx import PocketsphinxRecognizer
from desktop_agent.voice.stt.whisper import WhisperRecognizer
from desktop_agent.voice.stt.whisper_models import WHISPER_BASE
from desktop_agent.voice.vad import WebRtcVad

pytestmark = pytest.mark.usefixtures("keep_loop_on_close")

Built = tuple[SpeechRecognizer | None, SpeechRecognizer | None, str | None]
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"


async def _until(condition: Callable[[], bool], timeout_s: float = 30) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.02)


def _real_model() -> Mapping[str, ServedFile]:
    folder = whisper_base_dir()
    return {f"/m/{f.name}": ServedFile((folder / f.name).read_bytes()) for f in WHISPER_BASE.files}


def _window(qtbot: QtBot, make: Callable[[Settings], Built], audio: WavAudioInput, store: ModelStore,
            settings: Settings, texts: Texts = ENGLISH) -> MainWindow:
    window = MainWindow(tray=False, texts=texts)
    qtbot.add_widget(window)
    deps = offline_deps(settings=settings)
    recognizer, answers, reason = make(settings)
    window.attach(replace(deps, voice=VoiceFeature(
        audio, recognizer, answers, vad=WebRtcVad, note=reason, make_recognizers=make,
        model_downloads=ModelDownloads(store))))
    window.resize(900, 640)
    window.show()
    qtbot.wait_exposed(window)
    return window


async def _talk(window: MainWindow, audio: WavAudioInput) -> None:
    """Push-to-talk with Space in the empty input, for one recording."""
    window.input.setFocus()
    QTest.keyPress(window.input, Qt.Key.Key_Space)
    await audio.finished.wait()
    QTest.keyRelease(window.input, Qt.Key.Key_Space)


def _system_lines(window: MainWindow) -> list[str]:
    return [w.text() for w in window.chat.items() if isinstance(w, SystemMessage)]


def _notices(window: MainWindow) -> list[str]:
    return [w.text() for w in window.chat.items() if isinstance(w, MessageBubble) and w.role == "warning"]


async def test_a_failed_download_keeps_the_words_says_it_once_and_retry_fetches_it(
    qtbot: QtBot, tmp_path: Path
) -> None:
    store = ModelStore(tmp_path / "models")
    served = dict(_real_model())
    served["/m/model.bin"] = ServedFile(status=404)
    async with ScriptedFileServer(served) as files:
        settings = Settings(stt_engine="whisper", stt_model_source="custom", stt_model_base_url=files.url("/m"),
                            voice_send="review")

        def make(s: Settings) -> Built:
            return WhisperRecognizer(store, source=ModelSource("custom", s.stt_model_base_url)), None, None

        audio = WavAudioInput([FIXTURES / "en3.wav"], speed=0, tail_s=0.3)  # "set a timer for ten minutes"
        window = _window(qtbot, make, audio, store, settings)
        await _talk(window, audio)
        # pocketsphinx heard it while Whisper's model could not come: nothing lost.
        await _until(lambda: window.input.toPlainText() != "")
        assert "ten minutes" in window.input.toPlainText()
        assert _system_lines(window) == [ENGLISH.tr("mic_heard_instead", engine="pocketsphinx", wanted="Whisper base")]
        panel = window.model_download
        assert panel.state == "failed"
        line = panel.label.text()
        assert "HTTP 404" in line and "the custom address" in line and line.endswith("What you said is kept.")
        assert panel.retry.isVisible() and panel.other_source.text() == "Try Hugging Face"
        assert _notices(window) == []  # said once, on the panel, not again in the chat
        ARTIFACTS.mkdir(exist_ok=True)
        window.grab().save(str(ARTIFACTS / "model_download_failed_en.png"))

        # Settings OK with nothing changed fetches nothing again: no second failure to show.
        panel.button.click()  # Close
        requests = len(files.requests)
        window.apply_settings_edit(SettingsEdit(settings))
        await asyncio.sleep(0.3)  # a fetch would reach the local HTTP server: time for it to arrive
        assert panel.state == "hidden" and len(files.requests) == requests

        # The source works again: Retry (the panel's, shown once more for this) fetches the model.
        files.files["/m/model.bin"] = _real_model()["/m/model.bin"]
        panel.failed_download(_failure_of(window))
        panel.retry.click()
        await _until(lambda: store.ready(WHISPER_BASE), timeout_s=120)
        await _until(lambda: panel.state == "hidden")


def _failure_of(window: MainWindow) -> ModelDownloadError:
    return ModelDownloadError("http", source="custom", host="127.0.0.1", model="Whisper base", file="model.bin",
                              status=404, url="http://127.0.0.1/m/model.bin")


async def test_the_failure_reads_in_chinese_and_try_another_source_switches_to_it(
    qtbot: QtBot, tmp_path: Path
) -> None:
    texts = CHINESE
    store = ModelStore(tmp_path / "models")
    made: list[str] = []

    def make(s: Settings) -> Built:
        made.append(s.stt_model_source)
        return WhisperRecognizer(store, source=ModelSource(s.stt_model_source)), None, None  # type: ignore[arg-type]

    settings = Settings(stt_engine="whisper", stt_model_source="huggingface")
    window = _window(qtbot, make, WavAudioInput(), store, settings, texts)  # started in Chinese
    window.model_download.failed_download(
        ModelDownloadError("no_network", source="huggingface", host="huggingface.co", model="Whisper base"),
        kept=True)
    line = window.model_download.label.text()
    assert line == texts.tr("model_download_failed_line", reason=texts.tr(
        "model_error_no_network", source=texts.tr("model_source_huggingface"), host="huggingface.co",
        model="Whisper base"))
    assert "Hugging Face" in line and "huggingface.co" in line and "你说的话已保留" in line and "Errno" not in line
    assert window.model_download.other_source.text() == "改用ModelScope（魔搭社区）"
    ARTIFACTS.mkdir(exist_ok=True)
    window.grab().save(str(ARTIFACTS / "model_download_failed_zh.png"))
    window.model_download.other_source.click()
    await _until(lambda: made[-1:] == ["modelscope"])
    assert window.controller is not None and window.controller.settings.stt_model_source == "modelscope"
    # DESKTOP_AGENT_NO_DOWNLOADS: the new source is refused at once, and said (in Chinese) on the panel.
    await _until(lambda: window.model_download.state == "failed")
    assert "modelscope.cn" in window.model_download.label.text()


async def test_the_first_talk_with_no_offline_model_offers_it_and_holds_the_words_until_it_is_here(
    qtbot: QtBot, tmp_path: Path
) -> None:
    store = ModelStore(tmp_path / "models")
    async with ScriptedFileServer(_real_model()) as files:
        settings = Settings(stt_engine="auto", stt_model_source="custom", stt_model_base_url=files.url("/m"),
                            voice_send="review")

        def make(s: Settings) -> Built:  # what "auto" resolves to: Whisper once its model is here
            if store.ready(WHISPER_BASE):
                return WhisperRecognizer(store), None, None
            return PocketsphinxRecognizer("dictation"), None, None

        audio = WavAudioInput([FIXTURES / "zh1.wav"], speed=0, tail_s=0.3)
        window = _window(qtbot, make, audio, store, settings)
        await _talk(window, audio)
        panel = window.model_download
        assert panel.state == "offer"
        assert panel.label.text() == ENGLISH.tr("model_offer", model="Whisper base", mb="141",
                                                source=ENGLISH.tr("model_source_custom"))
        await asyncio.sleep(0.5)  # a recognition would run in a worker thread: time for it to end
        assert window.input.toPlainText() == ""  # held: pocketsphinx would hear Chinese as English noise
        panel.retry.click()  # Download
        await _until(lambda: window.input.toPlainText() != "", timeout_s=120)
        heard = window.input.toPlainText()
        # Whisper's words, in simplified characters ("现在几点了"; the window's cut of the
        # utterance may cost a character, as a real microphone's would).
        assert edit_distance(chinese_characters("现在几点了"), chinese_characters(heard)) <= 1, heard
        assert heard.startswith("现在") and heard.endswith("点了")
        assert store.ready(WHISPER_BASE) and panel.state == "hidden"
        assert window.mic.state == "idle"


async def test_not_now_hears_it_with_pocketsphinx_and_does_not_ask_again(qtbot: QtBot, tmp_path: Path) -> None:
    store = ModelStore(tmp_path / "models")
    audio = WavAudioInput([FIXTURES / "en3.wav", FIXTURES / "en3.wav"], speed=0, tail_s=0.3)
    window = _window(qtbot, lambda _s: (PocketsphinxRecognizer("dictation"), None, None), audio, store,
                     Settings(stt_engine="auto", voice_send="review"))
    await _talk(window, audio)
    assert window.model_download.state == "offer"
    window.model_download.button.click()  # Not now
    await _until(lambda: "ten minutes" in window.input.toPlainText())
    window.input.clear()
    audio.finished.clear()
    await _talk(window, audio)
    await _until(lambda: "ten minutes" in window.input.toPlainText())
    assert window.model_download.state == "hidden"  # asked once a session
