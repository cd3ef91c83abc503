"""The folders shared with MCP servers (their roots): a list of folders,
each shared with every server or with one, with Add (a folder picker),
Remove, and a "Shared with" choice for the selected folder.

It edits ``Settings.shared_folders`` and joins the Settings dialog's
OK/Cancel like the rest of the Tools page; once saved, the services tell
every running server that the list changed (``Services.apply_settings``)
and answer each server's ``roots/list`` with its own folders
(``Settings.folders_for``).

Signals:
    changed()  the folders or their servers changed
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.texts import Texts
from desktop_agent.ui.common.retranslate import TextBindings

ALL = ""
"""The "All servers" choice's data."""


def folder_line(texts: Texts, path: str, servers: Sequence[str]) -> str:
    """``/home/me/notes — all servers`` or ``… — only fs``."""
    if not servers:
        return texts.tr("shared_folders_line_all", path=path)
    return texts.tr("shared_folders_line_only", path=path, servers=", ".join(servers))


class SharedFoldersBox(QWidget):
    changed = Signal()

    def __init__(
        self, texts: Texts, folders: Mapping[str, Sequence[str]] = {}, servers: Sequence[str] = (),
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.texts = TextBindings(texts)
        self._folders: dict[str, tuple[str, ...]] = {path: tuple(s) for path, s in folders.items()}
        self._servers: list[str] = list(servers)
        self.picker: QFileDialog | None = None
        """The folder picker open now (or last opened)."""

        self.title = self.texts.label("shared_folders", self)
        self.title.setObjectName("cardTitle")
        self.note = self.texts.label("shared_folders_note", self)
        self.note.setObjectName("cardMuted")
        self.note.setWordWrap(True)
        self.list = QListWidget(self)
        self.list.setMaximumHeight(110)
        self.add = QPushButton(self)
        self.texts.bind(self.add.setText, "shared_folders_add")
        self.add.clicked.connect(self.choose_folder)
        self.remove = QPushButton(self)
        self.texts.bind(self.remove.setText, "shared_folders_remove")
        self.remove.clicked.connect(self.remove_selected)
        buttons = QVBoxLayout()
        buttons.addWidget(self.add)
        buttons.addWidget(self.remove)
        buttons.addStretch(1)
        row = QHBoxLayout()
        row.addWidget(self.list, 1)
        row.addLayout(buttons)
        self.scope_label = self.texts.label("shared_folders_scope", self)
        self.scope = QComboBox(self)
        self.scope.activated.connect(lambda _index: self._scope_chosen())
        scope_row = QHBoxLayout()
        scope_row.addWidget(self.scope_label)
        scope_row.addWidget(self.scope, 1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.note)
        layout.addLayout(row)
        layout.addLayout(scope_row)
        self.list.currentRowChanged.connect(lambda _row: self._sync())
        self._fill()

    # ------------------------------------------------------------ state

    def folders(self) -> dict[str, tuple[str, ...]]:
        """What the settings keep: each folder and the servers it is shared with (none: every server)."""
        return dict(self._folders)

    def lines(self) -> list[str]:
        return [self.list.item(i).text() for i in range(self.list.count())]

    def set_servers(self, servers: Sequence[str]) -> None:
        """The servers a folder may be shared with alone (the servers file's)."""
        if list(servers) != self._servers:
            self._servers = list(servers)
            self._sync()

    def retranslate(self, texts: Texts) -> None:
        self.texts.retranslate(texts)
        self._fill()

    # ---------------------------------------------------------- changes

    def choose_folder(self) -> QFileDialog:
        dialog = QFileDialog(self, self.texts.tr("shared_folders_add"), str(Path.home()))
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dialog.fileSelected.connect(self.add_folder)
        self.picker = dialog
        dialog.open()
        return dialog

    def add_folder(self, path: str) -> None:
        """Share ``path`` with every server (a folder already listed is selected instead)."""
        path = str(Path(path).expanduser())
        if path not in self._folders:
            self._folders[path] = ()
            self._fill()
            self.changed.emit()
        self.list.setCurrentRow(list(self._folders).index(path))

    def remove_selected(self) -> None:
        path = self._selected()
        if path is not None:
            del self._folders[path]
            self._fill()
            self.changed.emit()

    def share_with(self, server: str | None) -> None:
        """The selected folder is shared with ``server`` alone (None: every server)."""
        path = self._selected()
        if path is None:
            return
        scope = (server,) if server else ()
        if self._folders[path] != scope:
            self._folders[path] = scope
            row = self.list.currentRow()
            self._fill()
            self.list.setCurrentRow(row)
            self.changed.emit()

    # ---------------------------------------------------------- drawing

    def _selected(self) -> str | None:
        row = self.list.currentRow()
        paths = list(self._folders)
        return paths[row] if 0 <= row < len(paths) else None

    def _scope_chosen(self) -> None:
        data = self.scope.currentData()
        self.share_with(str(data) if data else None)

    def _fill(self) -> None:
        row = self.list.currentRow()
        self.list.clear()
        texts = self.texts.texts
        self.list.addItems([folder_line(texts, path, servers) for path, servers in self._folders.items()])
        if not self._folders:
            self.list.addItem(texts.tr("shared_folders_none"))
            self.list.item(0).setFlags(Qt.ItemFlag.NoItemFlags)
        elif 0 <= row < len(self._folders):
            self.list.setCurrentRow(row)
        self._sync()

    def _sync(self) -> None:
        """The scope choice shows the selected folder's servers; off without a selection."""
        path = self._selected()
        texts = self.texts.texts
        self.scope.blockSignals(True)
        self.scope.clear()
        self.scope.addItem(texts.tr("shared_folders_all"), ALL)
        current = self._folders.get(path, ()) if path is not None else ()
        names = [*self._servers, *(s for s in current if s not in self._servers)]
        for name in names:
            self.scope.addItem(name, name)
        self.scope.setCurrentIndex(names.index(current[0]) + 1 if current else 0)
        self.scope.blockSignals(False)
        self.scope.setEnabled(path is not None)
        self.remove.setEnabled(path is not None)


__all__ = ["SharedFoldersBox", "folder_line"]
