"""The sidebar's rename, export and import through their real dialogs
as a user meets them: a row's context menu is opened with a right click and its
actions are clicked; the dialogs are found as the window's modal widget
and typed into; cancel changes nothing; a bad file says what was wrong in
one translated line and loses nothing. Screenshot:
tests/artifacts/sidebar_rename_zh.png."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypeVar

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QColor, QPainter, QPixmap
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QFileDialog, QInputDialog, QLineEdit, QMenu
from pytestqt.qtbot import QtBot

from desktop_agent.storage.conversations import ConversationStore
from desktop_agent.texts import CHINESE
from desktop_agent.ui.conversations.search_rows import file_name
from desktop_agent.ui.conversations.sidebar import ConversationSidebar
from desktop_agent.ui.shell.main_window import MainWindow
from tests.ui.conversations.test_sidebar import ARTIFACTS, _sidebar, _window
from tests.ui.conversations.test_sidebar import store as store  # the fixture: trip, zh and code

D = TypeVar("D", QInputDialog, QFileDialog)

pytestmark = pytest.mark.qt_log_ignore(  # the offscreen platform cannot do these for a popup menu
    "This plugin does not support raise", "This plugin does not support grabbing", extend=True)


@pytest.fixture
def window(qtbot: QtBot, store: ConversationStore) -> MainWindow:
    window = _window(qtbot, store)
    _sidebar(window).dialog_options = QFileDialog.Option.DontUseNativeDialog  # Qt's widgets, to drive
    return window


def _menu_action(qtbot: QtBot, sidebar: ConversationSidebar, conversation_id: str, text: str) -> None:
    """Right-click the row of ``conversation_id`` and click ``text`` in its menu."""
    row = next(i for i, (c, _t, _s) in enumerate(sidebar.items()) if c == conversation_id)
    where = sidebar.list.visualItemRect(sidebar.list.item(row)).center()
    sidebar.list.customContextMenuRequested.emit(where)  # what a right click (or the menu key) sends
    menu = QApplication.activePopupWidget()
    assert isinstance(menu, QMenu) and menu.parent() is sidebar and menu.isVisible()
    action = next(a for a in menu.actions() if a.text() == text)
    QTest.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())
    qtbot.waitUntil(lambda: not sidebar.findChildren(QMenu), timeout=3000)  # a sync test: deleted on close


def _modal(kind: type[D]) -> D:
    """The dialog now open over the window (window-modal, not a nested loop)."""
    dialog = QApplication.activeModalWidget()
    assert isinstance(dialog, kind), dialog
    assert dialog.isVisible() and dialog.isModal()
    return dialog


def _choose(dialog: QFileDialog, path: Path) -> None:
    """Type ``path`` as the file name and click Save (or Open)."""
    name = dialog.findChild(QLineEdit, "fileNameEdit")
    assert isinstance(name, QLineEdit)
    name.setText(str(path))
    buttons = dialog.findChild(QDialogButtonBox, "buttonBox")
    assert isinstance(buttons, QDialogButtonBox)
    button = buttons.button(QDialogButtonBox.StandardButton.Save) or buttons.button(QDialogButtonBox.StandardButton.Open)
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)


def _closed(qtbot: QtBot, sidebar: ConversationSidebar) -> None:
    qtbot.waitUntil(lambda: not sidebar.findChildren(QInputDialog) and not sidebar.findChildren(QFileDialog),
                    timeout=3000)


def test_rename_through_the_menu_and_its_dialog_and_cancel_changes_nothing(
    qtbot: QtBot, window: MainWindow, store: ConversationStore
) -> None:
    sidebar = _sidebar(window)
    _menu_action(qtbot, sidebar, "trip", "Rename…")
    dialog = _modal(QInputDialog)
    assert (dialog.windowTitle(), dialog.labelText(), dialog.textValue()) == (
        "Rename conversation", "Title:", "Plan a weekend in Paris")
    line = dialog.findChild(QLineEdit)
    assert isinstance(line, QLineEdit) and line.hasFocus()
    line.selectAll()
    QTest.keyClicks(line, "Paris trip")
    QTest.keyClick(line, Qt.Key.Key_Return)
    _closed(qtbot, sidebar)
    assert ("trip", "Paris trip", -1) in sidebar.items()
    stored = store.load("trip")
    assert stored is not None and stored.title == "Paris trip"

    _menu_action(qtbot, sidebar, "trip", "Rename…")
    line = _modal(QInputDialog).findChild(QLineEdit)
    assert isinstance(line, QLineEdit)
    QTest.keyClicks(line, " and more")
    QTest.keyClick(line, Qt.Key.Key_Escape)
    _closed(qtbot, sidebar)
    stored = store.load("trip")
    assert ("trip", "Paris trip", -1) in sidebar.items() and stored is not None and stored.title == "Paris trip"


def test_export_both_kinds_through_the_file_dialog_then_import_the_json(
    qtbot: QtBot, window: MainWindow, store: ConversationStore, tmp_path: Path
) -> None:
    sidebar = _sidebar(window)
    _menu_action(qtbot, sidebar, "trip", "Export as Markdown…")
    dialog = _modal(QFileDialog)
    assert dialog.acceptMode() == QFileDialog.AcceptMode.AcceptSave
    assert [Path(f).name for f in dialog.selectedFiles()] == ["Plan a weekend in Paris.md"]
    assert dialog.nameFilters() == ["Markdown (*.md)"]
    _choose(dialog, tmp_path / "trip.md")
    _closed(qtbot, sidebar)
    markdown = (tmp_path / "trip.md").read_text(encoding="utf-8")
    assert markdown.startswith("# Plan a weekend in Paris\n\n## User\n\nPlan a weekend in Paris\n")
    assert 'Tool `weather`:\n\n```json\n{\n  "city": "Paris"\n}\n```\n\nResult:\n\n```\nsunny, 24 °C\n```' in markdown
    assert sidebar.heading.text() == "Saved trip.md"

    _menu_action(qtbot, sidebar, "trip", "Export as JSON…")
    dialog = _modal(QFileDialog)
    assert Path(dialog.directory().absolutePath()) == tmp_path  # the last folder
    _choose(dialog, tmp_path / "trip")  # the suffix is added
    _closed(qtbot, sidebar)
    data = json.loads((tmp_path / "trip.json").read_text(encoding="utf-8"))
    assert (data["format"], data["title"], len(data["messages"])) == ("desktop-agent-conversation",
                                                                     "Plan a weekend in Paris", 64)

    imported: list[str] = []
    sidebar.imported.connect(imported.append)
    QTest.mouseClick(sidebar.import_button, Qt.MouseButton.LeftButton)
    dialog = _modal(QFileDialog)
    assert dialog.acceptMode() == QFileDialog.AcceptMode.AcceptOpen
    _choose(dialog, tmp_path / "trip.json")
    _closed(qtbot, sidebar)
    assert imported == ["trip"] and window.controller is not None  # here already: that one opens
    assert window.controller.conversation.conversation_id == "trip"
    assert sidebar.heading.text() == "trip.json is already imported as “Plan a weekend in Paris”: opened it, nothing was added"
    assert len(store.conversations()) == 3
    QTest.mouseClick(sidebar.copy_button, Qt.MouseButton.LeftButton)  # a copy, asked for
    assert len(imported) == 2 and window.controller.conversation.conversation_id == imported[1] != "trip"
    assert [t for i, t, _s in sidebar.items() if i == imported[1]] == ["Plan a weekend in Paris"]
    assert len(store.conversations()) == 4


def test_cancelled_file_dialogs_change_nothing(
    qtbot: QtBot, window: MainWindow, store: ConversationStore, tmp_path: Path
) -> None:
    sidebar = _sidebar(window)
    before = sidebar.items()
    _menu_action(qtbot, sidebar, "zh", "Export as JSON…")
    dialog = _modal(QFileDialog)
    dialog.setDirectory(str(tmp_path))
    QTest.keyClick(dialog, Qt.Key.Key_Escape)
    _closed(qtbot, sidebar)
    QTest.mouseClick(sidebar.import_button, Qt.MouseButton.LeftButton)
    _modal(QFileDialog).reject()
    _closed(qtbot, sidebar)
    assert sidebar.items() == before and list(tmp_path.glob("*.json")) == []
    assert sidebar.heading.text() == "Conversations"


@pytest.mark.parametrize(("content", "reason"), [
    (b"{}", "it holds no message list"),
    (b"# a Markdown export", "it is not JSON"),
    (b'{"messages": [1, 2]}', "its message list holds entries that are not messages"),
    (b"\xff\xfe{", "it is not UTF-8 text"),
])
def test_a_bad_file_says_what_was_wrong_in_one_line_and_loses_nothing(
    qtbot: QtBot, window: MainWindow, store: ConversationStore, tmp_path: Path, content: bytes, reason: str
) -> None:
    sidebar = _sidebar(window)
    before = sidebar.items()
    (tmp_path / "bad.json").write_bytes(content)
    QTest.mouseClick(sidebar.import_button, Qt.MouseButton.LeftButton)
    dialog = _modal(QFileDialog)
    _choose(dialog, tmp_path / "bad.json")
    _closed(qtbot, sidebar)
    assert sidebar.heading.text() == f"Could not import bad.json: {reason}"
    assert sidebar.items() == before and len(store.conversations()) == 3
    assert window.controller is not None and window.controller.conversation.conversation_id == "code"


def test_a_bad_file_is_explained_in_chinese_too(qtbot: QtBot, store: ConversationStore, tmp_path: Path) -> None:
    window = _window(qtbot, store)
    window.retranslate(CHINESE)
    sidebar = _sidebar(window)
    (tmp_path / "bad.json").write_text("{}", encoding="utf-8")
    assert sidebar.import_file(tmp_path / "bad.json") is None
    assert sidebar.heading.text() == "无法导入 bad.json：文件中没有消息列表"


def test_delete_from_the_menu_offers_undo(qtbot: QtBot, window: MainWindow) -> None:
    sidebar = _sidebar(window)
    _menu_action(qtbot, sidebar, "zh", "Delete")
    assert [i for i, _t, _s in sidebar.items()] == ["code", "trip"] and sidebar.undo_bar.isVisible()


def test_an_export_name_is_the_title_made_safe() -> None:
    assert file_name('a/b: "c"?\nsecond line', "md") == "a_b_ _c.md"
    assert file_name("明天北京的天气怎么样？", "json") == "明天北京的天气怎么样？.json"
    assert file_name("  ..  ", "md") == "conversation.md"


def _with_dialog(window: MainWindow, dialog: QInputDialog) -> QPixmap:
    """The window with the dialog drawn where it is (offscreen windows have no compositor)."""
    shot = window.grab()
    painter = QPainter(shot)
    at = QRect(dialog.mapToGlobal(QPoint(0, 0)) - window.mapToGlobal(QPoint(0, 0)), dialog.size())
    painter.fillRect(at.adjusted(-1, -1, 1, 1), QColor("#8c959f"))  # the frame a window manager draws
    painter.fillRect(at, dialog.palette().window())  # a top level's background is the platform's
    painter.drawPixmap(at.topLeft(), dialog.grab())
    painter.end()
    return shot


def test_screenshot_of_the_rename_dialog_in_chinese(qtbot: QtBot, store: ConversationStore) -> None:
    window = _window(qtbot, store)
    window.retranslate(CHINESE)
    sidebar = _sidebar(window)
    _menu_action(qtbot, sidebar, "zh", "重命名…")
    dialog = _modal(QInputDialog)
    assert (dialog.windowTitle(), dialog.labelText(), dialog.textValue()) == (
        "重命名对话", "标题：", "明天北京的天气怎么样？")
    assert (dialog.okButtonText(), dialog.cancelButtonText()) == ("确定", "取消")
    assert dialog.isVisible() and window.geometry().contains(dialog.geometry().center())
    ARTIFACTS.mkdir(exist_ok=True)
    assert _with_dialog(window, dialog).save(str(ARTIFACTS / "sidebar_rename_zh.png"))
    dialog.reject()
