"""The conversations sidebar: every saved conversation, newest
first, with a search box over all of them; rename, delete (with undo),
export and import from each row's menu.

It asks a :class:`ConversationLibrary` (the composition root's) for what to
list and tells the window what the user picked; switching conversations is
the window's (and its controller's) business.

Rename, export and import ask through dialog objects opened with
``open()`` (window-modal, no nested event loop) whose accepted signal does
the work, never through the static ``get…`` functions that block in a loop
of their own. The file dialogs stay native wherever the platform has them,
because that is what Windows, macOS and portal-using Linux desktops expect
(the rename dialog is Qt's everywhere: it has no native form); tests set
:attr:`ConversationSidebar.dialog_options` to ``DontUseNativeDialog`` and
drive Qt's own widgets, found among the sidebar's children.

Signals:
    open_requested(conversation_id: str, seq: int, query: str)
        a conversation (``seq`` -1) or a search hit (the matching message's
        index in the history, and the words searched) was chosen
    new_requested()             the New button
    deleted(conversation_id: str)
                                a conversation was deleted (undo is offered)
    imported(conversation_id: str)
                                a file was imported as a new conversation
"""

from __future__ import annotations

import errno
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.texts import Texts
from desktop_agent.ui.common.os_wording import os_error_text, os_reason
from desktop_agent.ui.common.theme import LIGHT, colors_for
from desktop_agent.ui.conversations.search_rows import HitRow, file_name, marked, snippet_parts

if TYPE_CHECKING:
    from desktop_agent.conversation_library import ConversationLibrary, ExportKind
    from desktop_agent.storage.user_files import UserFileError

log = logging.getLogger(__name__)

SIDEBAR_WIDTH = 260
RENAME_WIDTH = 320
"""The title box: a long title is seen whole (the dialog's own is 175 px)."""
SEARCH_DELAY_MS = 200
ROW_PADDING = 14
"""The list's item padding (theme: 6 px above and below) and a little air."""
ID_ROLE = Qt.ItemDataRole.UserRole
SEQ_ROLE = Qt.ItemDataRole.UserRole + 1
TEXT_ROLE = Qt.ItemDataRole.UserRole + 2


class ConversationSidebar(QFrame):
    dialog_options = QFileDialog.Option(0)
    """Options of the export and import dialogs (tests: ``DontUseNativeDialog``)."""

    open_requested = Signal(str, int, str)
    new_requested = Signal()
    deleted = Signal(str)
    imported = Signal(str)

    def __init__(self, library: ConversationLibrary, texts: Texts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._texts = texts
        self.setObjectName("sidebar")
        self.setFixedWidth(SIDEBAR_WIDTH)
        self._library = library
        self._current: str | None = None
        self._pending: tuple[str, str] | None = None
        """(id, title) of the conversation on screen while its first turn
        runs: listed at the top before the store has it (it is saved when
        the turn ends)."""
        self._undoable: list[tuple[str, str]] = []
        """(id, title) of each deletion Undo can still bring back, the newest last."""
        self._folder = Path.home()
        """Where the file dialogs open: the last folder one was used in."""
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(6)
        top = QHBoxLayout()
        self.search = QLineEdit(self)
        self.search.setClearButtonEnabled(True)
        top.addWidget(self.search, 1)
        self.new_button = QToolButton(self)
        self.new_button.setText("＋")
        self.new_button.setAutoRaise(True)
        top.addWidget(self.new_button)
        layout.addLayout(top)
        self.heading = QLabel(self)
        self.heading.setObjectName("cardMuted")
        self.heading.setWordWrap(True)  # an import's or export's outcome is longer than the list is wide
        layout.addWidget(self.heading)
        self.copy_button = QPushButton(self)
        """Import as a copy: offered when an imported file's conversation is here already."""
        self.copy_button.hide()
        self._copy_of: Path | None = None
        self.copy_button.clicked.connect(self._import_copy)
        layout.addWidget(self.copy_button)
        self.list = QListWidget(self)
        self.list.setObjectName("conversationList")
        self.list.setWordWrap(True)
        # Titles wrap within the fixed width: never a sideways scroll bar under the list.
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        layout.addWidget(self.list, 1)
        self.undo_bar = QFrame(self)
        undo = QHBoxLayout(self.undo_bar)
        undo.setContentsMargins(0, 0, 0, 0)
        self.undo_label = QLabel(self.undo_bar)
        self.undo_label.setWordWrap(True)
        self.undo_button = QPushButton(self.undo_bar)
        undo.addWidget(self.undo_label, 1)
        undo.addWidget(self.undo_button)
        self.undo_bar.hide()
        layout.addWidget(self.undo_bar)
        self.import_button = QPushButton(self)
        layout.addWidget(self.import_button)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self.refresh)
        self.search.textChanged.connect(lambda _text: self._search_timer.start())
        self.search.returnPressed.connect(self.refresh)
        self.new_button.clicked.connect(self.new_requested)
        self.list.itemActivated.connect(self._open_item)
        self.list.itemClicked.connect(self._open_item)
        self.list.customContextMenuRequested.connect(self._menu)
        self.undo_button.clicked.connect(self.undo_delete)
        self.import_button.clicked.connect(self._choose_import)
        self.retranslate(texts)
        self.refresh()

    def retranslate(self, texts: Texts) -> None:
        self._texts = texts
        self.search.setPlaceholderText(self._texts.tr("conv_search_placeholder"))
        self.new_button.setToolTip(self._texts.tr("new_chat"))
        self._show_undo()
        self.import_button.setText(self._texts.tr("conv_import"))
        self.copy_button.setText(self._texts.tr("conv_import_copy"))
        self.refresh()

    # ----------------------------------------------------------- listing

    def set_current(self, conversation_id: str | None) -> None:
        """The conversation the window shows (marked in the list)."""
        self._current = conversation_id
        self.refresh()

    def show_pending(self, conversation_id: str, title: str) -> None:
        """List the conversation on screen at once, titled ``title``, while
        the store does not hold it yet (its first turn runs); None of it is
        shown once the store has it."""
        self._pending = (conversation_id, title)
        self.refresh()

    def drop_pending(self) -> None:
        """The turn ended: the list is the store's again."""
        self._pending = None

    def refresh(self) -> None:
        """List again: search results while the box holds a query, else every conversation."""
        self._search_timer.stop()
        query = self.search.text().strip()
        self.list.clear()
        if query:
            hits = self._library.search(query)
            self.heading.setText(self._texts.tr("conv_results", count=len(hits)) if hits else self._texts.tr("conv_no_results"))
            width = self.list.viewport().width() or SIDEBAR_WIDTH - 20
            app = QApplication.instance()
            background = (colors_for(app) if isinstance(app, QApplication) else LIGHT).hit
            for hit in hits:
                title = hit.title or self._texts.tr("conv_untitled")
                item = QListWidgetItem()
                item.setData(ID_ROLE, hit.conversation_id)
                item.setData(SEQ_ROLE, hit.seq)
                words, spans = snippet_parts(hit.text, query)
                item.setData(TEXT_ROLE, f"{title}\n{words}")
                item.setToolTip(hit.text[:500])
                row = HitRow(title, marked(words, spans, background))
                row.setFixedWidth(width)
                row.ensurePolished()
                height = max(row.heightForWidth(width) if row.hasHeightForWidth() else -1, row.sizeHint().height())
                item.setSizeHint(QSize(width, height + ROW_PADDING))
                self.list.addItem(item)
                self.list.setItemWidget(item, row)
            return
        rows = [(s.id, s.title) for s in self._library.summaries()]
        pending = self._pending
        if pending is not None and all(i != pending[0] for i, _t in rows):
            rows.insert(0, pending)  # the newest: its first turn runs
        self.heading.setText(self._texts.tr("conv_heading") if rows else self._texts.tr("conv_none"))
        for conversation_id, title in rows:
            item = QListWidgetItem(title or self._texts.tr("conv_untitled"))
            item.setData(TEXT_ROLE, item.text())
            item.setData(ID_ROLE, conversation_id)
            item.setData(SEQ_ROLE, -1)
            item.setToolTip(title)
            self.list.addItem(item)
            if conversation_id == self._current:
                item.setSelected(True)
                font = item.font()
                font.setBold(True)
                item.setFont(font)

    def items(self) -> list[tuple[str, str, int]]:
        """(conversation id, text, seq) of each row, for tests and screenshots."""
        out: list[tuple[str, str, int]] = []
        for i in range(self.list.count()):
            item = self.list.item(i)
            out.append((str(item.data(ID_ROLE)), str(item.data(TEXT_ROLE)), int(item.data(SEQ_ROLE))))
        return out

    def _open_item(self, item: QListWidgetItem) -> None:
        self.open_requested.emit(str(item.data(ID_ROLE)), int(item.data(SEQ_ROLE)), self.search.text().strip())

    # ------------------------------------------------------------ actions

    def rename(self, conversation_id: str, title: str) -> bool:
        ok = self._library.rename(conversation_id, title)
        if ok:
            self.refresh()
        return ok

    def delete(self, conversation_id: str) -> None:
        """Delete it, undoably: each deletion joins the ones Undo can bring
        back (all of them, newest first, until the next start purges them),
        so deleting another never drops the chance to undo the one before."""
        title = next((t for i, t, _s in self.items() if i == conversation_id), "")
        self._library.delete(conversation_id)
        self._undoable = [(i, t) for i, t in self._undoable if i != conversation_id]
        self._undoable.append((conversation_id, title.splitlines()[0] if title else ""))
        self._show_undo()
        self.refresh()
        self.deleted.emit(conversation_id)

    def undo_delete(self) -> None:
        """Bring back the newest deletion; the bar then offers the one before."""
        if self._undoable:
            conversation_id, _title = self._undoable.pop()
            self._library.undelete(conversation_id)
        self._show_undo()
        self.refresh()

    def undoable(self) -> list[str]:
        """The deletions Undo can still bring back, the next one first (for tests)."""
        return [i for i, _t in reversed(self._undoable)]

    def _show_undo(self) -> None:
        """The bar names the deletion Undo brings back next and, when there
        are more, how many it can still bring back; hidden when none."""
        if not self._undoable:
            self.undo_bar.hide()
            return
        title, count = self._undoable[-1][1] or self._texts.tr("conv_untitled"), len(self._undoable)
        self.undo_label.setText(self._texts.tr("conv_deleted", title=title))
        self.undo_button.setText(self._texts.tr("conv_undo") if count == 1 else self._texts.tr("conv_undo_count", count=count))
        self.undo_button.setToolTip(self._texts.tr("conv_undo_tip", title=title))
        self.undo_bar.show()

    def export_to(self, conversation_id: str, path: Path, kind: ExportKind) -> bool:
        """Write the conversation to ``path``; the outcome is said in the heading."""
        try:
            ok = self._library.export_to(conversation_id, path, kind)
        except OSError as exc:
            log.warning("could not export the conversation: %s", exc)
            self.heading.setText(self._texts.tr("conv_export_failed", name=path.name, error=os_error_text(self._texts, exc)))
            return False
        self.heading.setText(self._texts.tr("conv_exported", name=path.name) if ok else self._texts.tr("conv_export_gone"))
        return ok

    def import_file(self, path: Path, *, as_copy: bool = False) -> str | None:
        """Import an exported conversation; its id, or None (the reason in the
        heading). One that is here already is opened instead, and the heading
        says so, with :attr:`copy_button` to import it again as a copy."""
        from desktop_agent.storage.conversation_export import AlreadyImported, ConversationFileError
        from desktop_agent.storage.user_files import UserFileError

        self.copy_button.hide()
        try:
            conversation_id = self._library.import_file(path, as_copy=as_copy)
        except AlreadyImported as exc:
            self.search.clear()
            self.refresh()
            self.imported.emit(exc.existing_id)  # opened: what the user wanted to see
            self.heading.setText(self._texts.tr("conv_import_already", title=exc.fields["title"], name=path.name))
            self._copy_of = path
            self.copy_button.show()
            return None
        except UserFileError as exc:
            reason = _file_problem(self._texts, exc)
        except ConversationFileError as exc:
            reason = self._texts.tr(exc.key, **exc.fields)
        else:
            self.search.clear()
            self.refresh()
            self.imported.emit(conversation_id)
            return conversation_id
        self.heading.setText(self._texts.tr("conv_import_failed", name=path.name, reason=reason))
        return None

    def _menu(self, point: QPoint) -> QMenu | None:
        """The row's menu at ``point`` (list viewport coordinates), shown."""
        item = self.list.itemAt(point)
        if item is None:
            return None
        conversation_id, title = str(item.data(ID_ROLE)), str(item.data(TEXT_ROLE))  # now: a refresh deletes item
        menu = QMenu(self)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.addAction(self._texts.tr("conv_rename"), lambda: self._ask_rename(conversation_id, title))
        menu.addAction(self._texts.tr("conv_export_md"), lambda: self._choose_export(conversation_id, title, "markdown"))
        menu.addAction(self._texts.tr("conv_export_json"), lambda: self._choose_export(conversation_id, title, "json"))
        menu.addSeparator()
        menu.addAction(self._texts.tr("conv_delete"), lambda: self.delete(conversation_id))
        menu.popup(self.list.viewport().mapToGlobal(point))
        return menu

    def _ask_rename(self, conversation_id: str, title: str) -> QInputDialog:
        dialog = QInputDialog(self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.setWindowTitle(self._texts.tr("conv_rename_title"))
        dialog.setLabelText(self._texts.tr("conv_rename_label"))
        dialog.setTextValue(title.splitlines()[0] if title else "")
        dialog.setOkButtonText(self._texts.tr("settings_ok"))  # Qt's own words stay English without its translations
        dialog.setCancelButtonText(self._texts.tr("settings_cancel"))
        line = dialog.findChild(QLineEdit)  # made by setTextValue; the dialog's own width follows its layout
        if line is not None:
            line.setMinimumWidth(RENAME_WIDTH)
        dialog.textValueSelected.connect(lambda text: self.rename(conversation_id, text))
        dialog.open()
        return dialog

    def _file_dialog(self, title: str, accept: str) -> QFileDialog:
        dialog = QFileDialog(self, title)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.setOptions(self.dialog_options)
        for label, text in ((QFileDialog.DialogLabel.Accept, self._texts.tr(accept)),
                            (QFileDialog.DialogLabel.Reject, self._texts.tr("settings_cancel")),
                            (QFileDialog.DialogLabel.FileName, self._texts.tr("conv_file_name")),
                            (QFileDialog.DialogLabel.FileType, self._texts.tr("conv_file_type"))):
            dialog.setLabelText(label, text)
        dialog.setDirectory(str(self._folder))
        dialog.fileSelected.connect(self._remember_folder)
        return dialog

    def _remember_folder(self, name: str) -> None:
        self._folder = Path(name).parent

    def _choose_export(self, conversation_id: str, title: str, kind: ExportKind) -> QFileDialog:
        suffix = "md" if kind == "markdown" else "json"
        dialog = self._file_dialog(self._texts.tr("conv_export"), "conv_save")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilter(self._texts.tr("conv_markdown_files" if kind == "markdown" else "conv_json_files"))
        dialog.setDefaultSuffix(suffix)
        dialog.selectFile(file_name(title, suffix))
        dialog.fileSelected.connect(lambda name: self.export_to(conversation_id, Path(name), kind))
        dialog.open()
        return dialog

    def _import_copy(self) -> None:
        if self._copy_of is not None:
            self.import_file(self._copy_of, as_copy=True)

    def _choose_import(self) -> QFileDialog:
        dialog = self._file_dialog(self._texts.tr("conv_import_title"), "conv_open")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptOpen)
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.setNameFilter(self._texts.tr("conv_json_files"))
        dialog.fileSelected.connect(lambda name: self.import_file(Path(name)))
        dialog.open()
        return dialog


def _file_problem(texts: Texts, exc: UserFileError) -> str:
    """Why a file picked for import could not be read, in the UI language."""
    if exc.code == "missing":
        return texts.tr("conv_import_unreadable", error=os_reason(texts, errno.ENOENT, os.strerror(errno.ENOENT)))
    if exc.code == "unreadable":
        code, words = exc.fields.get("errno"), str(exc.fields.get("error", ""))
        return texts.tr("conv_import_unreadable", error=os_reason(texts, code, words))
    if exc.code == "not_utf8":
        return texts.tr("conv_import_not_text")
    if exc.code == "too_large":
        return texts.tr("conv_import_too_large", limit=exc.fields.get("limit", ""))
    return texts.tr("conv_import_not_regular")
