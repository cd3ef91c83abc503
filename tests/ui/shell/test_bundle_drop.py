"""An MCP bundle dropped on the main window opens Settings at the Tools page
with the bundle's install dialog; without changeable servers the drop is
refused (plain qtbot, no loop)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from pytestqt.qtbot import QtBot

from desktop_agent.testing.bundle_maker import make_bundle
from desktop_agent.testing.window_rig import offline_deps
from desktop_agent.ui.settings.mcp_feature import McpFeature
from desktop_agent.ui.shell.main_window import MainWindow

LEFT, NO_MODS, COPY = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, Qt.DropAction.CopyAction


async def _no_reload() -> None:
    return None


def _window(qtbot: QtBot, tmp_path: Path, *, servers_file: bool) -> MainWindow:
    path = tmp_path / "mcp_servers.json"
    path.write_text(json.dumps({"mcpServers": {}}))
    feature = McpFeature(lambda: [], reload=_no_reload, servers_file=lambda: path) if servers_file else McpFeature(
        lambda: []
    )
    window = MainWindow(tray=False)
    qtbot.add_widget(window)
    window.attach(replace(offline_deps(), mcp=feature))
    return window


def _mime(path: Path) -> QMimeData:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    return mime


def test_a_bundle_dropped_on_the_window_opens_its_install_dialog_on_the_tools_page(
    qtbot: QtBot, tmp_path: Path
) -> None:
    window = _window(qtbot, tmp_path, servers_file=True)
    mime = _mime(make_bundle(tmp_path / "greeter.mcpb"))  # events do not own their mime data
    enter = QDragEnterEvent(QPoint(20, 20), COPY, mime, LEFT, NO_MODS)

    window.dragEnterEvent(enter)
    window.dropEvent(QDropEvent(QPointF(20, 20), COPY, mime, LEFT, NO_MODS))

    assert enter.isAccepted()
    settings = window._settings.dialog
    assert settings is not None and settings.isVisible()
    assert settings.stack.currentWidget() is settings._scroll_of(settings.tools_page)
    bundle_dialog = settings.tools_page.bundles.dialog
    assert bundle_dialog is not None and bundle_dialog.isVisible()
    assert bundle_dialog.bundle.manifest.display_name == "Greeter"


def test_a_drop_is_refused_when_the_servers_cannot_be_changed(qtbot: QtBot, tmp_path: Path) -> None:
    window = _window(qtbot, tmp_path, servers_file=False)
    mime = _mime(make_bundle(tmp_path / "greeter.mcpb"))
    enter = QDragEnterEvent(QPoint(20, 20), COPY, mime, LEFT, NO_MODS)

    window.dragEnterEvent(enter)
    window.dropEvent(QDropEvent(QPointF(20, 20), COPY, mime, LEFT, NO_MODS))

    assert not enter.isAccepted()
    assert window._settings.dialog is None
