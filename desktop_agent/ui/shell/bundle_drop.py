"""An MCP bundle (``.mcpb``) dropped anywhere on the window: Settings opens
at its Tools page, which shows the bundle and asks for its settings, as if
it had been dropped there (:mod:`desktop_agent.ui.settings.bundle_actions`).
Accepted only while the servers can be changed (``open_settings`` given:
the window is attached with a servers file); other drops keep their meaning."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtGui import QDragEnterEvent, QDropEvent

from desktop_agent.ui.settings.bundle_actions import bundle_paths

if TYPE_CHECKING:
    from desktop_agent.ui.settings.bundle_dialog import BundleDialog
    from desktop_agent.ui.settings.dialog import SettingsDialog

OpenSettings = Callable[[], "SettingsDialog | None"]


def drag_enter(event: QDragEnterEvent, open_settings: OpenSettings | None) -> None:
    if open_settings is not None and bundle_paths(event.mimeData()):
        event.acceptProposedAction()
    else:
        event.ignore()


def drop(event: QDropEvent, open_settings: OpenSettings | None) -> BundleDialog | None:
    found = bundle_paths(event.mimeData()) if open_settings is not None else []
    if not found or open_settings is None:
        event.ignore()
        return None
    event.acceptProposedAction()
    dialog = open_settings()
    if dialog is None:
        return None
    dialog.show_page(dialog.tools_page)
    return dialog.tools_page.bundles.open_path(found[0])
