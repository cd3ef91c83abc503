"""The Settings dialog's Tools page: the MCP servers as a list
(state, tool count, an enable switch; add, edit, remove, import another
host's file), the always-allowed tools with Revoke, and the limits of a
turn (steps, approval timeout).

Server changes are saved to the servers file (atomically, keys we do not
show kept: :mod:`desktop_agent.mcp_engine.servers_file`) and applied at
once through :class:`McpControl` — they are not part of OK/Cancel, like a
file saved in another host. Everything else joins the dialog's edit."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.mcp_engine import servers_file
from desktop_agent.mcp_engine.config_errors import McpConfigError
from desktop_agent.mcp_engine.server_import import ClashChoice, apply_import, changes, preview_import
from desktop_agent.storage.settings import Settings
from desktop_agent.texts import Texts
from desktop_agent.ui.common.retranslate import TextBindings
from desktop_agent.ui.settings.bundle_actions import BundleActions
from desktop_agent.ui.settings.mcp_import_preview import McpImportPreview
from desktop_agent.ui.settings.mcp_server_editor import McpServerEditor
from desktop_agent.ui.settings.mcp_wording import (
    allow_entry_text,
    import_failed,
    import_outcome,
    listed,
    problem,
    server_line,
    server_tooltip,
)
from desktop_agent.ui.settings.read_only_trust import ReadOnlyTrustBox
from desktop_agent.ui.settings.server_log_view import ServerLogView
from desktop_agent.ui.settings.shared_folders import SharedFoldersBox
from desktop_agent.ui.settings.sign_in_box import SignInBox, sign_in_rows

if TYPE_CHECKING:
    from desktop_agent.mcp_engine import ServerStatus
    from desktop_agent.mcp_engine.oauth import SignInState
    from desktop_agent.mcp_engine.server_log import LogLine

log = logging.getLogger(__name__)
REFRESH_MS = 500


@dataclass(frozen=True)
class McpControl:
    """The running servers, as the Tools page needs them."""

    path: Path
    """The servers file in use."""
    statuses: Callable[[], Iterable[ServerStatus]]
    reload: Callable[[], Awaitable[None]]
    """Read the file again and run what it says (``Services.reload_mcp``)."""
    sign_ins: Callable[[], Mapping[str, SignInState]] | None = None
    """Each remote server's sign-in (``OAuthManager.states``); None: no sign-in rows."""
    sign_in: Callable[[str], Awaitable[str | None]] | None = None
    """Sign in to a server, then restart it (``McpEngine.sign_in``)."""
    sign_out: Callable[[str], Awaitable[None]] | None = None
    logs: Callable[[str], Sequence[LogLine]] = lambda _name: ()
    """A server's MCP log messages (``McpEngine.server_logs``), for Log…."""


class ToolsPage(QWidget):
    def __init__(
        self, settings: Settings, *, control: McpControl | None = None, texts: Texts, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.texts = TextBindings(texts)
        self._control = control
        self._tasks: set[asyncio.Task[None]] = set()
        self._sign_tasks: set[asyncio.Future[None]] = set()
        """Sign-ins and sign-outs under way (not reloads: the note does not wait for them)."""
        self._entries: dict[str, dict[str, Any]] = {}
        self._note: Callable[[Texts], str] | None = None
        """The note's words, kept to say them again in another language."""
        self._restarting = False
        """The note says the servers are restarting: replaced once none is starting."""
        self.editor: McpServerEditor | None = None
        """The server editor open now (or last opened)."""
        self.log_view: ServerLogView | None = None
        self.import_preview: McpImportPreview | None = None
        """The import's preview opened last."""
        """The log view open now (or last opened)."""

        self.mcp_file = QLineEdit(settings.mcp_config_path, self)
        if control is not None:
            self.mcp_file.setPlaceholderText(str(control.path))  # the file in use when none is set
        browse = QPushButton(self)
        self.texts.bind(browse.setText, "settings_browse")
        browse.clicked.connect(self._browse)
        file_row = QHBoxLayout()
        file_row.addWidget(self.mcp_file, 1)
        file_row.addWidget(browse)

        self.servers = QListWidget(self)
        self.servers.setMinimumHeight(110)
        self.add = QPushButton(self)
        self.edit = QPushButton(self)
        self.remove = QPushButton(self)
        self.import_button = QPushButton(self)
        self.bundles = BundleActions(self, self)
        """Install a ``.mcpb`` bundle (button or drop), uninstall one (Remove)."""
        self.log_button = QPushButton(self)
        for button, key, slot in (
            (self.add, "mcp_add", self.add_server),
            (self.edit, "mcp_edit", self.edit_server),
            (self.remove, "mcp_remove", self.remove_server),
            (self.import_button, "mcp_import", self.choose_import),
            (self.bundles.button, "mcp_install_bundle", self.bundles.choose),
            (self.log_button, "mcp_log", self.show_log),
        ):
            self.texts.bind(button.setText, key)
            button.clicked.connect(slot)
            button.setEnabled(control is not None)
        buttons = QVBoxLayout()
        for button in (self.add, self.edit, self.remove, self.import_button, self.bundles.button, self.log_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        server_row = QHBoxLayout()
        server_row.addWidget(self.servers, 1)
        server_row.addLayout(buttons)
        self.mcp_note = QLabel(self)
        self.mcp_note.setObjectName("cardMuted")
        self.mcp_note.setWordWrap(True)
        self.texts.bind(self.mcp_note.setText, "mcp_applied_at_once" if control else "mcp_no_control")

        self.sign_ins = SignInBox(texts, self)
        self.sign_ins.sign_in_requested.connect(lambda name: self._run(self._sign_in(name)))
        self.sign_ins.sign_out_requested.connect(lambda name: self._run(self._sign_out(name)))

        self.allowed = QListWidget(self)
        self.allowed.setMaximumHeight(100)
        self.revoke = QPushButton(self)
        self.texts.bind(self.revoke.setText, "settings_revoke")
        self.revoke.clicked.connect(self._revoke_selected)
        self.allowed.currentRowChanged.connect(lambda _row: self._sync_revoke())
        allowed_row = QHBoxLayout()
        allowed_row.addWidget(self.allowed, 1)
        allowed_row.addWidget(self.revoke, 0, Qt.AlignmentFlag.AlignTop)
        self._allowed_names = list(settings.always_allow)
        self._fill_allowed(settings.always_allow)

        self.trust = ReadOnlyTrustBox(texts, (), settings.trusted_read_only_servers, self)
        self._trusted = list(settings.trusted_read_only_servers)
        self.trust.changed.connect(lambda names: setattr(self, "_trusted", list(names)))
        self.shared_folders = SharedFoldersBox(texts, settings.shared_folders, parent=self)

        self.max_steps = QSpinBox(self)
        self.max_steps.setRange(1, 100)
        self.max_steps.setValue(settings.max_steps)
        self.approval_timeout = QSpinBox(self)
        self.approval_timeout.setRange(5, 24 * 3600)
        self.approval_timeout.setSuffix(" s")
        self.approval_timeout.setValue(round(settings.approval_timeout_s))

        form = QFormLayout()
        form.addRow(self.texts.label("settings_mcp_file", self), file_row)
        form.addRow(self.texts.label("mcp_servers", self), server_row)
        form.addRow("", self.mcp_note)
        form.addRow("", self.sign_ins)
        form.addRow(self.texts.label("settings_always_allow", self), allowed_row)
        form.addRow("", self.trust)
        form.addRow("", self.shared_folders)
        form.addRow(self.texts.label("settings_max_steps", self), self.max_steps)
        form.addRow(self.texts.label("settings_approval_timeout", self), self.approval_timeout)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addStretch(1)

        self.servers.itemChanged.connect(self._on_item_changed)
        self.servers.currentRowChanged.connect(lambda _r: self._sync_buttons())
        self._timer = QTimer(self)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self.refresh)
        if control is not None:
            self._timer.start()
        self.setAcceptDrops(control is not None)
        self.refresh(reread=True)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        self.bundles.drag_enter(event)

    def dropEvent(self, event: QDropEvent) -> None:
        self.bundles.drop(event)

    def retranslate(self, texts: Texts) -> None:
        self.texts.retranslate(texts)
        self.sign_ins.retranslate(texts)
        if self._note is not None:
            self.mcp_note.setText(self._note(texts))
        self._fill_allowed(tuple(self._allowed_names))
        self.shared_folders.retranslate(texts)
        self.trust.retranslate(texts)  # the read-only section
        self.refresh()

    # -------------------------------------------------------------- servers

    def refresh(self, *, reread: bool = False) -> None:
        """Show the file's servers with their current state."""
        if self._control is None:
            return
        if reread:
            try:
                self._entries = servers_file.entries(servers_file.read_document(self._control.path))
            except McpConfigError as exc:
                self._entries = {}
                self._set_note(partial(problem, exc=exc))
        statuses = {s.name: s for s in self._control.statuses()}
        names = list(self._entries)
        if list(self.trust.boxes) != names:
            self.trust.set_servers(names, self._trusted)
        self.shared_folders.set_servers(names)
        self.servers.blockSignals(True)  # what is set here is no user's toggle
        if [self.servers.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.servers.count())] != names:
            selected = self.selected_name()
            self.servers.clear()
            for name in names:
                item = QListWidgetItem()
                item.setData(Qt.ItemDataRole.UserRole, name)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                self.servers.addItem(item)
                if name == selected:
                    self.servers.setCurrentItem(item)
        # Updated in place (the timer calls this twice a second): no flicker, hover and selection kept.
        for row, name in enumerate(names):
            item, entry, status = self.servers.item(row), self._entries[name], statuses.get(name)
            line = server_line(self.texts.texts, name, entry, status)
            item.setText(line)
            on = servers_file.is_enabled(entry)
            item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
            item.setToolTip(server_tooltip(line, status, self.texts.texts) if on else "")
        self.servers.blockSignals(False)
        if self._control.sign_ins is not None:
            self.sign_ins.set_rows(sign_in_rows(names, self._control.sign_ins(), statuses))
        self._sync_buttons()
        self._settle_note(names, statuses)

    def _set_note(self, words: Callable[[Texts], str], *, restarting: bool = False) -> None:
        self._note = words
        self._restarting = restarting
        self.mcp_note.setText(words(self.texts.texts))

    def _settle_note(self, names: list[str], statuses: dict[str, ServerStatus]) -> None:
        """"Restarting" gives way to what came of it once no server is starting."""
        if not self._restarting or self.reloading():
            return
        running = [n for n in names if servers_file.is_enabled(self._entries[n])]
        if any(n not in statuses or statuses[n].state == "starting" for n in running):
            return
        failed = [n for n in running if statuses[n].state == "failed"]
        if failed:
            self._set_note(lambda texts: texts.tr("mcp_servers_not_running", names=listed(texts, failed)))
        else:
            self._set_note(lambda texts: texts.tr("mcp_servers_ready"))

    def server_lines(self) -> list[str]:
        return [self.servers.item(i).text() for i in range(self.servers.count())]

    def selected_name(self) -> str | None:
        item = self.servers.currentItem()
        return str(item.data(Qt.ItemDataRole.UserRole)) if item is not None else None

    def select(self, name: str) -> None:
        for i in range(self.servers.count()):
            if self.servers.item(i).data(Qt.ItemDataRole.UserRole) == name:
                self.servers.setCurrentRow(i)

    def _sync_buttons(self) -> None:
        chosen = self._control is not None and self.selected_name() is not None
        self.edit.setEnabled(chosen)
        self.remove.setEnabled(chosen)
        self.log_button.setEnabled(chosen)

    def _save(
        self,
        change: Callable[[servers_file.Document], servers_file.Document],
        note: Callable[[Texts], str],
        *,
        failed: Callable[[Texts, McpConfigError | OSError], str] = (
            lambda texts, exc: texts.tr("mcp_save_failed", reason=problem(texts, exc))
        ),
    ) -> bool:
        """Apply ``change`` to the file, save it, and reload the servers;
        ``note`` says it is done (restarting), ``failed`` why it is not."""
        assert self._control is not None
        try:
            doc = change(servers_file.read_document(self._control.path))
        except (McpConfigError, OSError) as exc:
            self._set_note(partial(_failed_with, failed, exc))
            return False
        return self._write(doc, note, failed=failed)

    def _write(
        self,
        doc: servers_file.Document,
        note: Callable[[Texts], str],
        *,
        failed: Callable[[Texts, McpConfigError | OSError], str],
        restarting: bool = True,
    ) -> bool:
        """Save ``doc`` and reload the servers; ``restarting``: ``note``
        gives way to the servers' state once they are up."""
        assert self._control is not None
        try:
            servers_file.write_document(self._control.path, doc)
        except (McpConfigError, OSError) as exc:
            self._set_note(partial(_failed_with, failed, exc))
            return False
        self.applied(doc, note, restarting=restarting)
        return True

    def servers_path(self) -> Path | None:
        return self._control.path if self._control is not None else None

    def current_texts(self) -> Texts:
        return self.texts.texts

    def say(self, words: Callable[[Texts], str]) -> None:
        """``words`` in the note under the servers (said again after a language switch)."""
        self._set_note(words)

    def applied(self, doc: servers_file.Document, note: Callable[[Texts], str], *, restarting: bool = True) -> None:
        """``doc`` was saved (here or by a bundle's install): show it, say ``note``, reload the servers."""
        self._entries = servers_file.entries(doc)
        self._set_note(note, restarting=restarting)
        self.refresh()
        task = asyncio.ensure_future(self._reload())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _reload(self) -> None:
        assert self._control is not None
        try:
            await self._control.reload()
        except Exception as exc:  # the file was saved; say why it does not run
            log.warning("mcp reload failed: %s", exc)
            self._set_note(partial(_reload_failed, exc=exc))
        finally:  # done now, so the refresh below may settle the note
            task = asyncio.current_task()
            if task is not None:
                self._tasks.discard(task)
        self.refresh()

    def _run(self, coro: Awaitable[None]) -> None:
        task = asyncio.ensure_future(coro)
        self._sign_tasks.add(task)
        task.add_done_callback(self._sign_tasks.discard)

    async def _sign_in(self, name: str) -> None:
        """The browser opens; the row says "finish signing in" (the page's
        refresh reads it), then the outcome."""
        if self._control is None or self._control.sign_in is None:
            return
        await self._control.sign_in(name)
        self.refresh()

    async def _sign_out(self, name: str) -> None:
        if self._control is None or self._control.sign_out is None:
            return
        await self._control.sign_out(name)
        self.refresh()

    def reloading(self) -> bool:
        return bool(self._tasks)

    def _on_item_changed(self, item: QListWidgetItem) -> None:
        name = str(item.data(Qt.ItemDataRole.UserRole))
        enabled = item.checkState() == Qt.CheckState.Checked
        self._save(lambda doc: servers_file.with_enabled(doc, name, enabled), lambda texts: texts.tr("mcp_saved"))

    def _open_editor(self, name: str, entry: dict[str, Any] | None) -> McpServerEditor:
        editor = McpServerEditor(name, entry, taken=frozenset(self._entries), texts=self.texts.texts, parent=self)
        old = name or None
        editor.entry_ready.connect(
            lambda new, data: self._save(
                lambda doc: servers_file.with_entry(doc, new, data, old_name=old), lambda texts: texts.tr("mcp_saved")
            )
        )
        self.editor = editor
        editor.open()
        return editor

    def add_server(self) -> McpServerEditor:
        return self._open_editor("", None)

    def edit_server(self) -> McpServerEditor | None:
        name = self.selected_name()
        if name is None:
            return None
        return self._open_editor(name, self._entries.get(name))

    def show_log(self) -> ServerLogView | None:
        """The selected server's log messages (and why it failed, when it did)."""
        name, control = self.selected_name(), self._control
        if name is None or control is None:
            return None

        def error() -> str | None:
            return next((s.error for s in control.statuses() if s.name == name), None)

        view = ServerLogView(name, lambda: control.logs(name), self.texts.texts, error=error, parent=self)
        self._timer.timeout.connect(view.refresh)
        view.finished.connect(lambda _code: self._timer.timeout.disconnect(view.refresh))
        self.log_view = view
        view.open()
        return view

    def remove_server(self) -> None:
        name = self.selected_name()
        if name is not None and self.bundles.is_bundle(self._entries.get(name)):
            self.bundles.uninstall(name)
        elif name is not None:
            self._save(lambda doc: servers_file.without_entry(doc, name), lambda texts: texts.tr("mcp_removed", name=name))

    def choose_import(self) -> QFileDialog:
        """The file dialog, opened where Claude Desktop or Cursor keep their file."""
        folder = servers_file.import_start_folder(Path.home(), sys.platform, os.environ)
        dialog = QFileDialog(self, self.texts.tr("mcp_import"), str(folder), "JSON (*.json)")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        for known in ("claude_desktop_config.json", "mcp.json"):
            if (folder / known).is_file():
                dialog.selectFile(str(folder / known))
                break
        dialog.fileSelected.connect(lambda path: self.preview_import(Path(path)))
        dialog.open()
        return dialog

    def preview_import(self, path: Path) -> McpImportPreview | None:
        """What importing ``path`` would do, shown before anything is written
        (:attr:`import_preview`); its Import runs :meth:`import_file` with
        the clash choices. None, and the note says why, when the file is
        refused or holds nothing to import."""
        assert self._control is not None
        try:
            items = preview_import(servers_file.read_document(self._control.path), servers_file.read_import(path))
        except McpConfigError as exc:
            self._set_note(partial(import_failed, exc=exc))
            return None
        if not changes(items):  # all here already, or none usable: the note says which
            self.import_file(path)
            return None
        dialog = McpImportPreview(self.texts.texts, path, items, self)
        dialog.accepted.connect(lambda: self.import_file(path, dialog.choices()))
        self.import_preview = dialog
        dialog.open()
        return dialog

    def import_file(self, path: Path, choices: Mapping[str, ClashChoice] | None = None) -> bool:
        """Merge another host's servers (``mcpServers``) into the file: odd
        names made valid, broken entries and servers here already skipped, a
        name clash as ``choices`` say (a numbered name when they say
        nothing), the outcome said in one line."""
        assert self._control is not None
        try:
            doc = servers_file.read_document(self._control.path)
            merged, outcome = apply_import(doc, preview_import(doc, servers_file.read_import(path)), choices)
        except McpConfigError as exc:
            self._set_note(partial(import_failed, exc=exc))
            return False
        if not outcome.added and not outcome.replaced:  # nothing to save or restart
            self._set_note(lambda texts: import_outcome(texts, outcome)[1])
            return import_outcome(self.texts.texts, outcome)[0]
        # The outcome stays on screen: renames and skips are what to read.
        return self._write(merged, lambda texts: import_outcome(texts, outcome)[1], failed=import_failed, restarting=False)

    # ---------------------------------------------------------- always-allow

    def _fill_allowed(self, names: tuple[str, ...]) -> None:
        self.allowed.clear()
        self.allowed.addItems([allow_entry_text(self.texts.texts, name) for name in names])
        if not names:
            self.allowed.addItem(self.texts.tr("settings_none_allowed"))
            self.allowed.item(0).setFlags(Qt.ItemFlag.NoItemFlags)
        self._allowed_names = list(names)
        self._sync_revoke()

    def _sync_revoke(self) -> None:
        self.revoke.setEnabled(bool(self._allowed_names) and self.allowed.currentRow() >= 0)

    def _revoke_selected(self) -> None:
        row = self.allowed.currentRow()
        if 0 <= row < len(self._allowed_names):
            self._fill_allowed(tuple(n for i, n in enumerate(self._allowed_names) if i != row))

    def allowed_tools(self) -> tuple[str, ...]:
        return tuple(self._allowed_names)

    # --------------------------------------------------------------- result

    def _browse(self) -> None:
        dialog = QFileDialog(self, self.texts.tr("settings_mcp_file"), self.mcp_file.text() or "", "JSON (*.json)")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(self.mcp_file.setText)
        dialog.open()

    def apply_to(self, settings: Settings) -> Settings:
        return replace(
            settings,
            mcp_config_path=self.mcp_file.text().strip(),
            always_allow=self.allowed_tools(),
            max_steps=self.max_steps.value(),
            approval_timeout_s=float(self.approval_timeout.value()),
            trusted_read_only_servers=tuple(self._trusted),
            shared_folders=self.shared_folders.folders(),
        )


def _reload_failed(texts: Texts, exc: Exception) -> str:
    """Why the saved servers do not run, in ``texts``' language."""
    return texts.tr("mcp_reload_failed", reason=problem(texts, exc) if isinstance(exc, McpConfigError) else str(exc))


def _failed_with(
    failed: Callable[[Texts, McpConfigError | OSError], str], exc: McpConfigError | OSError, texts: Texts
) -> str:
    """``failed``'s words for ``exc`` in ``texts``' language (a note said again after a switch)."""
    return failed(texts, exc)
