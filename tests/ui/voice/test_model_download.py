"""ModelDownloadPanel: how far the speech model's download is, in English
and Chinese, Cancel, a failure's reason; and where the window shows it
(screenshots in tests/artifacts/)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_agent.texts import CHINESE, ENGLISH
from desktop_agent.ui.shell.main_window import MainWindow
from desktop_agent.ui.voice.model_download import ModelDownloadPanel, download_caption
from desktop_agent.voice.stt.models import SENSEVOICE, DownloadProgress

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
TOTAL = 240 << 20  # MiB, so the sizes read as round numbers
MIDWAY = DownloadProgress(SENSEVOICE.label, "model.int8.onnx", 101 << 20, TOTAL, 40.0)
"""42 % of 240 MB after 40 s: about 56 s left."""


@pytest.fixture
def panel(qtbot: QtBot) -> ModelDownloadPanel:
    widget = ModelDownloadPanel(ENGLISH)
    qtbot.add_widget(widget)
    return widget


def shown(panel: ModelDownloadPanel) -> dict[str, object]:
    out: dict[str, object] = {"state": panel.state}
    if panel.state != "hidden":
        out["label"] = panel.label.text()
        out["button"] = panel.button.text()
        if panel.bar.isVisibleTo(panel):
            out["bar"] = panel.bar.value()
    return out


def test_a_new_panel_is_hidden(panel: ModelDownloadPanel) -> None:
    assert shown(panel) == {"state": "hidden"}


def test_progress_shows_percent_size_and_time_left(panel: ModelDownloadPanel) -> None:
    panel.progress(MIDWAY)
    assert shown(panel) == {
        "state": "downloading",
        "label": "Downloading the speech model: 42 % · 101 of 240 MB · about 56 s left",
        "button": "Cancel",
        "bar": 42,
    }


def test_progress_in_chinese(qtbot: QtBot) -> None:
    panel = ModelDownloadPanel(CHINESE)
    qtbot.add_widget(panel)
    panel.progress(DownloadProgress(SENSEVOICE.label, "model.int8.onnx", 101 << 20, TOTAL, 100.0))
    assert shown(panel) == {
        "state": "downloading",
        "label": "正在下载语音识别模型：42% · 101/240 MB · 约 3 分钟",
        "button": "取消",
        "bar": 42,
    }


def test_no_time_is_guessed_at_the_start(panel: ModelDownloadPanel) -> None:
    panel.progress(DownloadProgress("M", "f", 0, TOTAL, 0.0))
    assert (panel.label.text(), panel.bar.value()) == ("Downloading the speech model: 0 % · 0 of 240 MB", 0)
    assert download_caption(ENGLISH, DownloadProgress("M", "f", 300_000, 1_200_000, 0.5)) == (
        "Downloading the speech model: 25 % · 0.3 of 1.1 MB"
    )


def test_the_final_report_hides_the_panel(panel: ModelDownloadPanel) -> None:
    panel.progress(MIDWAY)
    panel.progress(DownloadProgress(SENSEVOICE.label, "tokens.txt", TOTAL, TOTAL, 90.0))
    assert shown(panel) == {"state": "hidden"}


def test_cancel_asks_to_cancel_and_hides(panel: ModelDownloadPanel, qtbot: QtBot) -> None:
    panel.progress(MIDWAY)
    with qtbot.waitSignal(panel.cancel_requested, timeout=1000):
        panel.button.click()
    assert shown(panel) == {"state": "hidden"}


def test_a_failure_says_why_and_close_does_not_cancel(panel: ModelDownloadPanel, qtbot: QtBot) -> None:
    panel.progress(MIDWAY)
    panel.failed("could not download model.int8.onnx: HTTP 404\nfrom https://example.invalid/m")
    assert shown(panel) == {
        "state": "failed",
        "label": "Speech model download failed: could not download model.int8.onnx: HTTP 404 "
        "from https://example.invalid/m",
        "button": "Close",
    }
    with qtbot.assertNotEmitted(panel.cancel_requested):
        panel.button.click()
    assert shown(panel) == {"state": "hidden"}
    panel.progress(MIDWAY)  # a new try
    assert (shown(panel)["button"], shown(panel)["bar"]) == ("Cancel", 42)


def test_progress_posted_from_another_thread_arrives(panel: ModelDownloadPanel, qtbot: QtBot) -> None:
    worker = threading.Thread(target=panel.post, args=(MIDWAY,))
    worker.start()
    worker.join(5)
    qtbot.waitUntil(lambda: panel.state == "downloading", timeout=2000)
    assert panel.bar.value() == 42


def _screenshot(window: MainWindow, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for _ in range(5):  # the panel shows, measures and lays out over a few passes
        QApplication.processEvents()
    assert window.grab().toImage().save(str(ARTIFACTS / name)), name


def _sits_between_the_chat_and_the_input(window: MainWindow) -> bool:
    panel = window.model_download
    top = panel.mapTo(window, panel.rect().topLeft()).y()
    bottom = panel.mapTo(window, panel.rect().bottomLeft()).y()
    chat_bottom = window.chat.mapTo(window, window.chat.rect().bottomLeft()).y()
    input_top = window.input.mapTo(window, window.input.rect().topLeft()).y()
    return chat_bottom < top < bottom < input_top and panel.width() > window.width() * 0.9


def test_the_window_shows_the_download_above_the_input(qtbot: QtBot, shown_window: MainWindow) -> None:
    window = shown_window
    assert window.model_download.state == "hidden"
    window.model_progress(MIDWAY)
    _screenshot(window, "model_download_en.png")

    assert shown(window.model_download) == {
        "state": "downloading",
        "label": "Downloading the speech model: 42 % · 101 of 240 MB · about 56 s left",
        "button": "Cancel",
        "bar": 42,
    }
    assert _sits_between_the_chat_and_the_input(window)
    window.model_progress(DownloadProgress(SENSEVOICE.label, "tokens.txt", TOTAL, TOTAL, 90.0))
    assert window.model_download.state == "hidden"


def test_the_chinese_window_shows_the_download(qtbot: QtBot, shown_window: MainWindow) -> None:
    window = shown_window
    window.retranslate(CHINESE)
    window.model_progress(MIDWAY)
    _screenshot(window, "model_download_zh.png")

    assert shown(window.model_download) == {
        "state": "downloading",
        "label": "正在下载语音识别模型：42% · 101/240 MB · 约 56 秒",
        "button": "取消",
        "bar": 42,
    }
    assert _sits_between_the_chat_and_the_input(window)


def test_the_window_shows_a_failed_download(qtbot: QtBot, shown_window: MainWindow) -> None:
    window = shown_window
    window.model_progress(MIDWAY)
    window.model_download.failed("could not download model.int8.onnx from huggingface.co: All connection attempts failed")
    _screenshot(window, "model_download_failed_en.png")
    assert window.model_download.state == "failed"
    assert _sits_between_the_chat_and_the_input(window)
