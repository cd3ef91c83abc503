"""The MCP servers' items never widen the window (ui/shell/server_chips.py):
as many as fit, then "+N" naming the rest; the model's line is cut with
"…" and whole on hover (ui/common/elided_label.py)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QMenu
from pytestqt.qtbot import QtBot

from desktop_agent.testing.window_rig import offline_deps
from desktop_agent.texts import CHINESE, ENGLISH, Texts
from desktop_agent.ui.common.appearance import apply_appearance
from desktop_agent.ui.shell.main_window import MainWindow
from desktop_agent.ui.shell.status_bar import McpServerView, StatusBar

SHOTS = Path("/work/shots26/win")

SIX = [
    McpServerView("filesystem", "ready", 14, tools=("read_file",)),
    McpServerView("everything", "ready", 11, tools=("echo",)),
    McpServerView("time", "ready", 2, tools=("get_current_time", "convert_time")),
    McpServerView("browser", "failed", 0, "exited with code 1"),
    McpServerView("github", "starting"),
    McpServerView("sqlite", "sign_in", 0, "needs a sign-in"),
]

POPUP_NOISE = pytest.mark.qt_log_ignore(
    "This plugin does not support raise", "This plugin does not support grabbing the keyboard"
)


@pytest.fixture
def look(qapp: QApplication) -> Iterator[None]:
    palette = QPalette(qapp.palette())
    yield
    apply_appearance("en", "system")
    qapp.setPalette(palette)


def shown_window(qtbot: QtBot, texts: Texts, width: int) -> MainWindow:
    window = MainWindow(tray=False, texts=texts)
    qtbot.add_widget(window)
    window.attach(offline_deps())
    window.resize(width, 700)
    window.show()
    qtbot.wait_exposed(window)
    return window


def settle(window: MainWindow) -> None:
    """Let the status bar lay its items out (a layout request is a posted event)."""
    for _ in range(5):
        QApplication.processEvents()
    window.status.chips.resize(window.status.chips.size())


@pytest.mark.parametrize("texts", [ENGLISH, CHINESE], ids=["en", "zh"])
def test_six_servers_leave_a_1100_px_window_1100_px_wide(
    qtbot: QtBot, tmp_path: Path, look: None, texts: Texts
) -> None:
    window = shown_window(qtbot, texts, 1100)
    before = window.minimumSizeHint().width()
    window.status.set_servers(SIX)
    settle(window)

    assert window.width() == 1100
    assert window.minimumSizeHint().width() <= before
    chips = window.status.chips
    hidden = chips.hidden()
    assert hidden and hidden == list(range(len(SIX) - len(hidden), len(SIX)))  # the last ones, in order
    assert chips.more.isVisible() and chips.more.text() == f"+{len(hidden)}"
    assert chips.more.toolTip().splitlines() == [SIX[i].caption(texts) for i in hidden]
    shown = [label for label in window.status.servers if label.isVisible()]
    assert shown and all(label.geometry().right() < chips.more.geometry().left() for label in shown)
    assert chips.geometry().right() <= window.status.width()
    shot = tmp_path / f"status_chips_1100_{texts.language}.png"
    assert window.grab().save(str(shot))
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot, SHOTS / shot.name)


@pytest.mark.parametrize("texts", [ENGLISH, CHINESE], ids=["en", "zh"])
def test_a_narrow_window_cuts_the_model_line_and_shows_it_whole_on_hover(
    qtbot: QtBot, tmp_path: Path, look: None, texts: Texts
) -> None:
    window = shown_window(qtbot, texts, 640)
    window.status.set_model("qwen2.5-coder-1.5b-instruct-q4_k_m-long-model-name.gguf", is_demo=False)
    window.status.set_servers(SIX)
    settle(window)

    model = window.status.model
    full = texts.tr("status_model", model="qwen2.5-coder-1.5b-instruct-q4_k_m-long-model-name.gguf")
    assert window.width() == 640
    assert model.text() == full  # the label keeps its whole text
    assert model.is_elided() and model.shown_text().endswith("…")
    assert model.shown_tooltip() == full
    shot = tmp_path / f"status_chips_640_{texts.language}.png"
    assert window.grab().save(str(shot))
    shutil.copy(shot, SHOTS / shot.name)


def test_all_servers_show_when_there_is_room(qtbot: QtBot) -> None:
    bar = StatusBar(ENGLISH)
    qtbot.add_widget(bar)
    bar.resize(1600, 24)
    bar.set_servers(SIX[:2])
    bar.show()
    qtbot.wait_exposed(bar)
    settle_bar(bar)
    assert bar.chips.hidden() == [] and not bar.chips.more.isVisible()
    assert all(label.isVisible() for label in bar.servers)


def settle_bar(bar: StatusBar) -> None:
    for _ in range(5):
        QApplication.processEvents()


@POPUP_NOISE
def test_plus_n_opens_each_hidden_server_s_menu(qtbot: QtBot) -> None:
    bar = StatusBar(ENGLISH)
    qtbot.add_widget(bar)
    bar.resize(500, 24)
    bar.set_servers(SIX)
    bar.show()
    qtbot.wait_exposed(bar)
    settle_bar(bar)
    hidden = bar.chips.hidden()
    assert hidden

    menu = bar.open_overflow_menu()
    titles = [action.text() for action in menu.actions()]
    assert titles == [SIX[i].caption(ENGLISH) for i in hidden]
    failed = next(a.menu() for a in menu.actions() if a.text() == SIX[3].caption(ENGLISH))
    assert isinstance(failed, QMenu)
    assert [a.text() for a in failed.actions() if a.isEnabled() and not a.isSeparator()] == ["Retry"]
    menu.close()
