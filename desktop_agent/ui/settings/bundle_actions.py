"""The Tools page's MCP bundle actions: choose or drop a ``.mcpb`` file, see
what it is and give its settings (:class:`BundleDialog`), install it; Remove
on a server installed from a bundle uninstalls it (entry, folder, secrets).

The installing is :mod:`desktop_agent.mcp_engine.bundles`; this only asks,
says the outcome in the page's note (one line, in the page's language) and
has the page reload the servers as after any edit of the file. A bundle
dropped on the main window comes here too (the window opens the Tools page).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QMimeData
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QFileDialog, QPushButton, QWidget

from desktop_agent.mcp_engine import bundles, servers_file
from desktop_agent.mcp_engine.bundle_manifest import BundleError, ConfigValue
from desktop_agent.mcp_engine.config_errors import McpConfigError
from desktop_agent.texts import Texts, keys
from desktop_agent.ui.common.os_wording import with_os_reason
from desktop_agent.ui.settings.bundle_dialog import BundleDialog
from desktop_agent.ui.settings.mcp_wording import problem

BUNDLE_SUFFIX = ".mcpb"
Words = Callable[[Texts], str]


class BundleHost(Protocol):
    """What the actions need of the Tools page."""

    def servers_path(self) -> Path | None:
        """The servers file, or None while the servers cannot be changed."""
        ...

    def current_texts(self) -> Texts: ...

    def applied(self, doc: servers_file.Document, note: Words, *, restarting: bool = True) -> None: ...

    def say(self, words: Words) -> None: ...

    def select(self, name: str) -> None: ...


def bundle_paths(mime: QMimeData) -> list[Path]:
    """The local ``.mcpb`` files among dragged URLs."""
    if not mime.hasUrls():
        return []
    paths = [Path(url.toLocalFile()) for url in mime.urls() if url.isLocalFile()]
    return [p for p in paths if p.suffix.lower() == BUNDLE_SUFFIX]


def _reason(texts: Texts, exc: Exception) -> str:
    """Why, in ``texts``' language: a servers-file problem, a bundle's (by its
    UI text, where the engine named one), else the line as it is."""
    if isinstance(exc, McpConfigError):
        return problem(texts, exc)
    if isinstance(exc, BundleError) and exc.key is not None and exc.key in keys() and texts.language != "en":
        return texts.tr(exc.key, **with_os_reason(texts, exc.fields))
    return str(exc)


class BundleActions:
    def __init__(self, page: BundleHost, parent: QWidget) -> None:
        self.page = page
        self._parent = parent
        self.button = QPushButton(parent)
        self.dialog: BundleDialog | None = None
        """The install dialog open now (or last opened)."""

    @staticmethod
    def is_bundle(entry: Mapping[str, Any] | None) -> bool:
        return entry is not None and bundles.is_bundle_entry(entry)

    def choose(self) -> QFileDialog:
        texts = self.page.current_texts()
        dialog = QFileDialog(self._parent, texts.tr("mcp_install_bundle"), str(Path.home()),
                             f"{texts.tr('mcp_bundle_file')} (*{BUNDLE_SUFFIX})")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(lambda path: self.open_path(Path(path)))
        dialog.open()
        return dialog

    def open_path(self, path: Path) -> BundleDialog | None:
        """Check the bundle and ask for its settings; a bad one is one line in the note."""
        if self.page.servers_path() is None:
            return None
        try:
            bundle = bundles.read_bundle(path)
        except BundleError as exc:
            self._failed("mcp_bundle_failed", exc)
            return None
        dialog = BundleDialog(bundle, self.page.current_texts(), self._parent)
        dialog.values_ready.connect(lambda values: self.install(bundle, values))
        self.dialog = dialog
        dialog.open()
        return dialog

    def install(self, bundle: bundles.Bundle, values: Mapping[str, ConfigValue]) -> bool:
        path = self.page.servers_path()
        assert path is not None
        try:
            installed = bundles.install(bundle, values, path)
            doc = servers_file.read_document(path)
        except (BundleError, McpConfigError, OSError) as exc:
            self._failed("mcp_bundle_failed", exc)
            return False
        name = installed.server
        self.page.applied(doc, lambda texts: texts.tr("mcp_bundle_installed", name=name))
        self.page.select(name)
        return True

    def uninstall(self, name: str) -> bool:
        path = self.page.servers_path()
        assert path is not None
        try:
            bundles.uninstall(name, path)
            doc = servers_file.read_document(path)
        except (BundleError, McpConfigError, OSError) as exc:
            self._failed("mcp_bundle_remove_failed", exc)
            return False
        self.page.applied(doc, lambda texts: texts.tr("mcp_bundle_removed", name=name))
        return True

    def _failed(self, key: str, exc: Exception) -> None:
        self.page.say(partial(_failed_words, key, exc))

    def drag_enter(self, event: QDragEnterEvent) -> None:
        if self.page.servers_path() is not None and bundle_paths(event.mimeData()):
            event.acceptProposedAction()

    def drop(self, event: QDropEvent) -> None:
        found = bundle_paths(event.mimeData()) if self.page.servers_path() is not None else []
        if found:
            event.acceptProposedAction()
            self.open_path(found[0])


def _failed_words(key: str, exc: Exception, texts: Texts) -> str:
    return texts.tr(key, reason=_reason(texts, exc))
