"""Settings → Voice lists each offline engine with its languages and state,
downloads a model from the source chosen on the page (showing how far it
is, or why it failed), and deletes a downloaded one after asking again; in
English and Chinese, with screenshots (tests/artifacts/settings_voice_*.png)."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop_agent.storage.settings import Settings
from desktop_agent.testing.scripted_files import ScriptedFileServer, ServedFile
from desktop_agent.testing.speech_fixtures import whisper_base_dir
from desktop_agent.texts import ENGLISH, Texts
from desktop_agent.ui.settings.dialog import SettingsDialog
from desktop_agent.ui.settings.voice_page import VoicePage
from desktop_agent.voice.downloads import ModelDownloads
from desktop_agent.voice.stt.models import ModelStore
from desktop_agent.voice.stt.whisper_models import WHISPER_BASE

pytestmark = pytest.mark.usefixtures("keep_loop_on_close")

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
BASE = "faster-whisper-base"


async def _until(condition: Callable[[], bool], timeout_s: float = 60) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.02)


def _page(qtbot: QtBot, store: ModelStore, settings: Settings) -> VoicePage:
    page = VoicePage(settings, downloads=ModelDownloads(store), texts=ENGLISH)
    qtbot.add_widget(page)
    page.resize(760, 900)
    page.show()
    return page


def _state(page: VoicePage, key: str) -> str:
    return page.engines.row_widgets(key).state.text()


def _served() -> Mapping[str, ServedFile]:
    folder = whisper_base_dir()
    return {f"/m/{f.name}": ServedFile((folder / f.name).read_bytes(), bytes_per_s=60_000_000)
            for f in WHISPER_BASE.files}


def test_each_engine_says_its_languages_and_what_it_needs(qtbot: QtBot, tmp_path: Path) -> None:
    page = _page(qtbot, ModelStore(tmp_path / "models"), Settings())
    rows = page.engines
    assert _state(page, BASE) == "Needs a download of 141 MB"
    assert _state(page, "faster-whisper-small") == "Needs a download of 464 MB"
    assert _state(page, "pocketsphinx") == "Ready"
    assert _state(page, "piper-en_US-joe-medium") == "Ready"
    assert _state(page, "piper-zh_CN-huayan-medium") == "Needs a download of 60 MB"
    assert _state(page, "espeak") == ("Ready" if shutil.which("espeak-ng") else "Not installed")
    assert rows.row_widgets(BASE).languages.text() == "Chinese, English"
    assert rows.row_widgets("pocketsphinx").languages.text() == "English"
    assert rows.row_widgets(BASE).action.text() == "Download" and rows.row_widgets(BASE).action.isVisible()
    assert not rows.row_widgets("pocketsphinx").action.isVisible()
    assert not rows.row_widgets("piper-en_US-joe-medium").delete.isVisible()  # packaged: never deleted


async def test_download_from_the_pages_source_then_delete_after_asking_again(qtbot: QtBot, tmp_path: Path) -> None:
    store = ModelStore(tmp_path / "models")
    async with ScriptedFileServer(_served()) as files:
        page = _page(qtbot, store, Settings(stt_engine="whisper"))
        # The source chosen on the page, before OK: a custom address.
        page.stt.source.setCurrentIndex(page.stt.source.findData("custom"))
        page.stt.mirror.setText(files.url("/m"))
        page.stt.mirror.editingFinished.emit()
        seen: list[str] = []
        changes: list[bool] = []
        page.engines.changed.connect(lambda: changes.append(True))
        row = page.engines.row_widgets(BASE)
        row.action.click()
        # Waited on the running (qasync) loop: qtbot.waitSignal would spin a nested one.
        async with asyncio.timeout(120):
            while not changes:
                seen.append(row.state.text())
                await asyncio.sleep(0.01)
    assert any(text.startswith("Downloading… ") for text in seen), seen
    assert files.requests == [f"/m/{f.name}" for f in WHISPER_BASE.files]
    await _until(lambda: _state(page, BASE) == "Ready")
    assert row.delete.isVisible() and row.delete.text() == "Delete"
    row.delete.click()
    assert row.delete.text() == "Delete? Click again" and store.ready(WHISPER_BASE)
    row.delete.click()
    assert changes == [True, True]
    assert not store.folder(WHISPER_BASE).exists()
    assert _state(page, BASE) == "Needs a download of 141 MB"


async def test_a_failed_download_says_why_in_its_row_and_retry_is_offered(qtbot: QtBot, tmp_path: Path) -> None:
    store = ModelStore(tmp_path / "models")
    served = dict(_served())
    served["/m/model.bin"] = ServedFile(status=404)
    async with ScriptedFileServer(served) as files:
        page = _page(qtbot, store, Settings(stt_model_source="custom", stt_model_base_url=files.url("/m")))
        row = page.engines.row_widgets(BASE)
        row.action.click()
        await _until(lambda: _state(page, BASE).startswith("Failed: "))
    assert "HTTP 404" in _state(page, BASE) and "the custom address" in _state(page, BASE)
    assert row.action.text() == "Retry"
    assert list(store.folder(WHISPER_BASE).glob("*.part")) == []


@pytest.mark.parametrize("language", ["en", "zh"])
async def test_the_voice_page_in_both_languages(qtbot: QtBot, tmp_path: Path, language: str) -> None:
    words = Texts(language)  # type: ignore[arg-type]
    store = ModelStore(tmp_path / "models")
    served = dict(_served())
    served["/m/model.bin"] = ServedFile(status=404)
    async with ScriptedFileServer(served) as files:
        settings = Settings(stt_engine="whisper", stt_model_source="custom", stt_model_base_url=files.url("/m"))
        dialog = SettingsDialog(settings, model_downloads=ModelDownloads(store), texts=words)
        qtbot.add_widget(dialog)
        dialog.resize(1000, 760)
        dialog.pages.setCurrentRow(1)
        dialog.show()
        page = dialog.voice_page
        page.engines.row_widgets(BASE).action.click()
        await _until(lambda: page.engines.row_widgets(BASE).action.text() == words.tr("engine_retry"))
    page.verticalScrollBar().setValue(page.verticalScrollBar().maximum())
    texts = {key: _state(page, key) for key in (BASE, "pocketsphinx", "piper-zh_CN-huayan-medium")}
    if language == "zh":
        assert texts["pocketsphinx"] == "可用" and texts["piper-zh_CN-huayan-medium"] == "需要下载 60 MB"
        assert texts[BASE].startswith("失败：无法从 自定义地址 下载 Whisper base"), texts[BASE]
        assert page.engines.row_widgets(BASE).languages.text() == "中文、英语"
    else:
        assert texts["pocketsphinx"] == "Ready" and texts[BASE].startswith("Failed: could not download")
    ARTIFACTS.mkdir(exist_ok=True)
    dialog.grab().save(str(ARTIFACTS / f"settings_voice_{language}.png"))
