"""The window is shown as the user left it (app.first_window,
ui/shell/first_look.py, ui/shell/window_place.py): the saved theme and
language from its first paint, its saved size and place, fitted to the
screens it finds."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QObject, QRect
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_agent.app import first_window
from desktop_agent.texts import text_in
from desktop_agent.ui.common import theme
from desktop_agent.ui.common.appearance import apply_appearance
from desktop_agent.ui.common.theme import DARK, palette_is_dark
from desktop_agent.ui.shell.first_look import SavedLook, read_saved_look
from desktop_agent.ui.shell.main_window import MainWindow
from desktop_agent.ui.shell.window_place import (
    WindowPlace,
    fit_on_screens,
    place_path,
    read_place,
    write_place,
)

SHOTS = Path("/work/shots26/win")


@pytest.fixture
def english(qapp: QApplication) -> Iterator[None]:
    """The test starts and ends in English, following the system's colours."""
    palette = QPalette(qapp.palette())
    apply_appearance("en", "system")
    yield
    apply_appearance("en", "system")
    qapp.setPalette(palette)


class FirstShow(QObject):
    """What the window showed at its first Show event."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.seen: dict[str, tuple[str, str, bool, bool]] = {}
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = "show" if event.type() == QEvent.Type.Show else None
        if watched is self.window and kind is not None and kind not in self.seen:
            w = self.window
            self.seen[kind] = (
                w.windowTitle(), w.send_button.text(), palette_is_dark(w.palette()), DARK.window in w.styleSheet()
            )
        return False


def settings_file(folder: Path, data: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "settings.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ({"language": "zh", "theme": "dark"}, SavedLook("zh", "dark")),
        ({"language": "en", "theme": "light", "model": "x"}, SavedLook("en", "light")),
        ({"language": "fr", "theme": 3}, SavedLook()),  # not a choice: the full load says so later
        ([1, 2], SavedLook()),
    ],
)
def test_the_saved_language_and_theme_are_read_from_the_settings_file(
    tmp_path: Path, content: object, expected: SavedLook
) -> None:
    assert read_saved_look(settings_file(tmp_path, content)) == expected


def test_a_missing_or_broken_settings_file_reads_as_the_system_s_look(tmp_path: Path) -> None:
    assert read_saved_look(tmp_path / "none.json") == SavedLook()
    broken = tmp_path / "settings.json"
    broken.write_text('{"language": "zh", ')
    assert read_saved_look(broken) == SavedLook()
    broken.write_bytes(b"\xff\xfe\x00")
    assert read_saved_look(broken) == SavedLook()


def test_saved_dark_and_chinese_are_what_the_window_first_shows(
    qtbot: QtBot, tmp_path: Path, english: None
) -> None:
    settings_file(tmp_path, {"language": "zh", "theme": "dark"})
    window = first_window(tmp_path)
    qtbot.add_widget(window)
    probe = FirstShow(window)
    window.show()
    qtbot.wait_exposed(window)
    assert probe.seen == {"show": (text_in("zh", "app_title"), text_in("zh", "send"), True, True)}
    assert theme.theme_choice() == "dark"
    shot = tmp_path / "first_look_dark_zh.png"
    assert window.grab().save(str(shot))
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot, SHOTS / shot.name)


def test_with_nothing_saved_the_window_shows_the_system_s_look(
    qtbot: QtBot, tmp_path: Path, english: None
) -> None:
    window = first_window(tmp_path)
    qtbot.add_widget(window)
    probe = FirstShow(window)
    window.show()
    qtbot.wait_exposed(window)
    title, send, _dark, _sheet = probe.seen["show"]
    assert (title, send) == (text_in("en", "app_title"), text_in("en", "send"))
    assert theme.theme_choice() == "system"
    shot = tmp_path / "first_look_system_en.png"
    assert window.grab().save(str(shot))
    shutil.copy(shot, SHOTS / shot.name)


def test_the_window_opens_where_it_was_closed(qtbot: QtBot, tmp_path: Path, english: None) -> None:
    first = first_window(tmp_path)
    qtbot.add_widget(first)
    first.show()
    qtbot.wait_exposed(first)
    first.setGeometry(QRect(40, 30, 640, 500))
    first.close()
    assert read_place(place_path(tmp_path)) == WindowPlace(40, 30, 640, 500, False)

    second = first_window(tmp_path)
    qtbot.add_widget(second)
    assert second.geometry() == QRect(40, 30, 640, 500)
    assert not second.isMaximized()


def test_a_maximised_window_opens_maximised_and_keeps_its_normal_size(tmp_path: Path, qtbot: QtBot,
                                                                     english: None) -> None:
    write_place(place_path(tmp_path), WindowPlace(10, 20, 600, 450, maximized=True))
    window = first_window(tmp_path)
    qtbot.add_widget(window)
    assert window.windowState() & window.windowState().WindowMaximized
    assert window.geometry() == QRect(10, 20, 600, 450)


def test_a_place_off_every_screen_opens_centred_on_the_primary_one(
    qtbot: QtBot, tmp_path: Path, english: None
) -> None:
    write_place(place_path(tmp_path), WindowPlace(5000, 4000, 600, 400))
    window = first_window(tmp_path)
    qtbot.add_widget(window)
    screen = QApplication.primaryScreen().availableGeometry()
    assert screen.contains(window.geometry())
    assert abs(window.geometry().center().x() - screen.center().x()) <= 1
    assert abs(window.geometry().center().y() - screen.center().y()) <= 1


def test_with_nothing_saved_the_window_is_no_larger_than_the_screen(
    qtbot: QtBot, tmp_path: Path, english: None
) -> None:
    window = first_window(tmp_path)
    qtbot.add_widget(window)
    assert QApplication.primaryScreen().availableGeometry().contains(window.geometry())


def test_a_saved_place_is_fitted_to_the_screen_it_mostly_was_on() -> None:
    left, right = QRect(0, 0, 1920, 1080), QRect(1920, 0, 800, 600)
    # Mostly on the small right screen, and too big for it: shrunk and moved inside it.
    assert fit_on_screens(QRect(1800, 100, 1000, 700), [left, right], left) == QRect(1920, 0, 800, 600)
    # Hanging off the bottom-left corner of the big one: moved inside, size kept.
    assert fit_on_screens(QRect(-100, 900, 1100, 760), [left, right], left) == QRect(0, 320, 1100, 760)
    # Where it fits, it stays.
    assert fit_on_screens(QRect(100, 100, 800, 600), [left, right], left) == QRect(100, 100, 800, 600)
    # On no screen at all (a monitor that is gone): centred on the primary one.
    centred = fit_on_screens(QRect(5000, 5000, 800, 600), [left, right], left)
    assert centred.size() == QRect(0, 0, 800, 600).size() and abs(centred.center().x() - left.center().x()) <= 1


@pytest.mark.parametrize(
    "content",
    ['{"x": 1, "y": 2, "width": 3, "height": 4}', '{"x": "1", "y": 2, "width": 800, "height": 600}',
     '{"x": true, "y": 2, "width": 800, "height": 600}', "[]", "not json"],
)
def test_a_place_that_is_not_one_is_not_used(tmp_path: Path, content: str) -> None:
    path = tmp_path / "window.json"
    path.write_text(content)
    assert read_place(path) is None
