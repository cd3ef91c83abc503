"""Settings → Approval history: every approval decision recorded
in ``<data>/approvals.jsonl``, filtered by tool, server, decision and date,
and exported as CSV.

A standalone page: it reads the file itself (``storage/audit_log.py``) when
built and on Refresh; which records show is :mod:`core.audit_query`'s
choice, and the page only lays them out. Newest first.

The table fits the page: every column as wide as what it shows when there
is room, else the widest give way (their text elides) so that the last,
Arguments, keeps at least its header (:func:`fit_widths`): at the dialog's
default size QA saw "rgument". A language switch retranslates the page.

The file grows forever, so the page keeps it off the GUI thread: a reload
reads in a worker thread (``asyncio.to_thread``, as the window's other
slow reads do) while "Loading…" shows, and an :class:`AuditReader` parses
only what was appended since the last reload. A reload that a later one
overtakes is dropped. With no event loop running (tests, a page built
before the loop starts) it reads at once. The table is a model over the
records, formatting only the cells on screen: a table widget's 140,000
items for 20,000 records took 1.7 s of the GUI thread.

Signals:
    exported(path: str)  the shown records were saved as CSV at ``path``
    loaded(total: int)   a reload's records are shown (``total`` of them)
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from PySide6.QtCore import (
    QAbstractTableModel,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from desktop_agent.core.approval import BUILTIN
from desktop_agent.core.audit import DECISIONS, ApprovalRecord, Decision
from desktop_agent.core.audit_query import AuditFilter, select, server_of, servers, to_csv
from desktop_agent.storage.atomic import atomic_write_text
from desktop_agent.storage.audit_log import AuditRead, audit_log_path, shared_reader
from desktop_agent.texts import Texts
from desktop_agent.ui.common.os_wording import os_error_text
from desktop_agent.ui.common.retranslate import TextBindings, item_text

log = logging.getLogger(__name__)

COLUMNS = ("time", "tool", "server", "decision", "by", "waited", "arguments")
PERIODS = ("any", "today", "week", "month")
UNCUT = frozenset({"time", "decision", "waited"})
"""Columns never narrower than what they show: short, and cut they would mislead."""


def _period_start(period: str, now: datetime) -> datetime | None:
    """The first moment of ``period`` before ``now`` (aware, local days)."""
    if period == "today":
        local = now.astimezone()
        return local.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "week":
        return now - timedelta(days=7)
    if period == "month":
        return now - timedelta(days=30)
    return None


def server_text(texts: Texts, record: ApprovalRecord) -> str:
    server = server_of(record)
    return texts.tr("audit_builtin") if server == BUILTIN else server


def cells(texts: Texts, record: ApprovalRecord) -> tuple[str, ...]:
    """One record's row, column by column (:data:`COLUMNS`)."""
    return (
        record.when.astimezone().strftime("%Y-%m-%d %H:%M:%S"),
        f"↳ {record.tool_name}" if record.parent_tool_call_ids else record.tool_name,
        server_text(texts, record),
        texts.tr(f"audit_decision_{record.decision}"),
        texts.tr(f"audit_by_{record.decided_by}"),
        texts.tr("seconds", n=f"{record.waited_s:.1f}"),
        record.arguments_preview,
    )


def tooltip(texts: Texts, record: ApprovalRecord, column: int) -> str | None:
    if column == 1 and record.parent_tool_call_ids:
        return texts.tr("audit_sub_agent", parent=" › ".join(record.parent_tool_call_ids))
    if column == len(COLUMNS) - 1:
        return f"{record.arguments_preview}\nsha256 {record.arguments_sha256}"
    return None


def fit_widths(wants: list[int], floors: list[int], room: int) -> list[int]:
    """Column widths within ``room``: each its ``wants`` when they fit, else
    the widest are capped alike, never below their ``floors`` (the header's
    own width), which may then still overflow (a very narrow page scrolls)."""
    if sum(wants) <= room:
        return wants
    low, high = 0, max(wants)  # the largest cap that fits
    while low < high:
        cap = (low + high + 1) // 2
        if sum(max(f, min(w, cap)) for w, f in zip(wants, floors, strict=True)) <= room:
            low = cap
        else:
            high = cap - 1
    return [max(f, min(w, low)) for w, f in zip(wants, floors, strict=True)]


class AuditTable(QTableView):
    """The records' table, its columns fitted to its width (:func:`fit_widths`)."""

    def fit_columns(self) -> None:
        header = self.horizontalHeader()
        last = header.count() - 1
        if last < 0:
            return
        titles = [header.sectionSizeHint(column) for column in range(last)]
        wants = [max(t, self.sizeHintForColumn(column)) for column, t in enumerate(titles)]
        # The time, decision and wait stay whole; the others may elide.
        floors = [w if COLUMNS[c] in UNCUT else t for c, (w, t) in enumerate(zip(wants, titles, strict=True))]
        title = header.sectionSizeHint(last)
        room = self.viewport().width() - title  # the last keeps its title (its cells: a tooltip)
        widths = fit_widths(wants, floors, room)
        for column, width in enumerate(widths):
            header.resizeSection(column, width)
        # What the stretched last column shrinks to, else its first width (100 px):
        header.resizeSection(last, max(title, self.viewport().width() - sum(widths)))

    def viewportEvent(self, event: QEvent) -> bool:  # Qt's name
        if event.type() == QEvent.Type.Resize:  # the view, or a scroll bar that came or went
            self.fit_columns()
        return super().viewportEvent(event)


class AuditModel(QAbstractTableModel):
    """The shown records as rows; a cell is formatted when the view asks for it."""

    def __init__(self, texts: Texts, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.texts = texts
        """The language of the headers and the cells' words (the page sets a new one)."""
        self.records: list[ApprovalRecord] = []
        self._rows: dict[int, tuple[str, ...]] = {}
        """Rows formatted so far: the view asks for each cell many times."""

    def set_records(self, records: list[ApprovalRecord]) -> None:
        self.beginResetModel()
        self.records = records
        self._rows = {}
        self.endResetModel()

    def row(self, row: int) -> tuple[str, ...]:
        cached = self._rows.get(row)
        if cached is None:
            cached = self._rows[row] = cells(self.texts, self.records[row])
        return cached

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.records)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.texts.tr(f"audit_col_{COLUMNS[section]}")
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.row(index.row())[index.column()]
        if role == Qt.ItemDataRole.ToolTipRole:
            return tooltip(self.texts, self.records[index.row()], index.column())
        if role == Qt.ItemDataRole.UserRole:
            return self.records[index.row()].tool_call_id
        return None


class AuditPage(QWidget):
    exported = Signal(str)
    loaded = Signal(int)

    def __init__(
        self,
        path: Path | None = None,
        *,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        texts: Texts,
        parent: QWidget | None = None,
    ) -> None:
        """``path``: the audit file (default: the data folder's);
        ``now``: the clock the date filter counts back from."""
        super().__init__(parent)
        self.setObjectName("auditPage")
        self.path = path or audit_log_path()
        self._now = now
        self._read = AuditRead(())
        self._reader = shared_reader(self.path)
        self._generation = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self.shown_records: list[ApprovalRecord] = []

        self.texts = TextBindings(texts)
        title = self.texts.label("audit_title", self)
        title.setObjectName("cardTitle")
        self.tool_filter = QLineEdit(self)
        self.texts.bind(self.tool_filter.setPlaceholderText, "audit_filter_tool")
        self.tool_filter.setClearButtonEnabled(True)
        self.server_filter = QComboBox(self)
        self.decision_filter = QComboBox(self)
        self.decision_filter.addItem("", None)
        self.texts.bind(item_text(self.decision_filter, 0), "audit_any_decision")
        for index, decision in enumerate(DECISIONS, start=1):
            self.decision_filter.addItem("", decision)
            self.texts.bind(item_text(self.decision_filter, index), f"audit_decision_{decision}")
        self.period_filter = QComboBox(self)
        for index, period in enumerate(PERIODS):
            self.period_filter.addItem("", period)
            self.texts.bind(item_text(self.period_filter, index), f"audit_period_{period}")
        self.refresh_button = QPushButton(self)
        self.texts.bind(self.refresh_button.setText, "audit_refresh")
        self.export_button = QPushButton(self)
        self.texts.bind(self.export_button.setText, "audit_export")

        filters = QHBoxLayout()
        filters.addWidget(self.tool_filter, 2)
        filters.addWidget(self.server_filter, 1)
        filters.addWidget(self.decision_filter, 1)
        filters.addWidget(self.period_filter, 1)

        self.model = AuditModel(texts, self)
        self.table = AuditTable(self)
        self.table.setModel(self.model)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)  # sized by fit_columns
        header.setStretchLastSection(True)  # Arguments takes what is left
        header.setResizeContentsPrecision(0)  # the rows on screen: Qt's 1000 took 1.8 s for 20,000 records
        self.model.modelReset.connect(self.table.fit_columns)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # one line each

        self.count_label = QLabel(self)
        self.count_label.setObjectName("cardMuted")
        bottom = QHBoxLayout()
        bottom.addWidget(self.count_label, 1)
        bottom.addWidget(self.refresh_button)
        bottom.addWidget(self.export_button)

        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addLayout(filters)
        layout.addWidget(self.table, 1)
        layout.addLayout(bottom)

        self.tool_filter.textChanged.connect(self.apply_filter)
        self.server_filter.currentIndexChanged.connect(self.apply_filter)
        self.decision_filter.currentIndexChanged.connect(self.apply_filter)
        self.period_filter.currentIndexChanged.connect(self.apply_filter)
        self.refresh_button.clicked.connect(self.reload)
        self.export_button.clicked.connect(lambda: self.export_csv())
        self.reload()

    def retranslate(self, texts: Texts) -> None:
        """Every text again in ``texts``' language (Settings → Appearance)."""
        self.texts.retranslate(texts)
        self.model.texts = texts
        self.server_filter.setItemText(0, self.texts.tr("audit_any_server"))
        index = self.server_filter.findData(BUILTIN)
        if index >= 0:
            self.server_filter.setItemText(index, self.texts.tr("audit_builtin"))
        self.model.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(COLUMNS) - 1)
        if not self.loading():
            self.apply_filter()  # the rows' words and the count

    # ------------------------------------------------------------ data

    def reload(self) -> None:
        """Read the file again (new decisions since the page opened): in a
        worker thread while an event loop runs, else at once."""
        self._generation += 1
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._show(self._read_now())
            return
        self.count_label.setText(self.texts.tr("audit_loading"))
        task = loop.create_task(self._load(self._generation))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def loading(self) -> bool:
        """A reload is reading the file."""
        return bool(self._tasks)

    async def _load(self, generation: int) -> None:
        read = await asyncio.to_thread(self._read_now)
        if generation == self._generation and isValid(self):  # not overtaken, not closed
            self._show(read)

    def _read_now(self) -> AuditRead | OSError:
        try:
            return self._reader.read()
        except OSError as exc:
            log.warning("cannot read the approval audit %s: %s", self.path, exc)
            return exc

    def _show(self, read: AuditRead | OSError) -> None:
        if isinstance(read, OSError):
            self.count_label.setText(self.texts.tr("audit_read_failed", path=str(self.path), error=os_error_text(self.texts.texts, read)))
            return
        self._read = read
        chosen = self.server_filter.currentData()
        self.server_filter.blockSignals(True)
        self.server_filter.clear()
        self.server_filter.addItem(self.texts.tr("audit_any_server"), None)
        for server in servers(self._read.records):
            self.server_filter.addItem(self.texts.tr("audit_builtin") if server == BUILTIN else server, server)
        index = self.server_filter.findData(chosen) if chosen is not None else 0
        self.server_filter.setCurrentIndex(max(0, index))
        self.server_filter.blockSignals(False)
        self.apply_filter()
        self.loaded.emit(len(read.records))

    def current_filter(self) -> AuditFilter:
        decision: Decision | None = self.decision_filter.currentData()
        return AuditFilter(
            tool=self.tool_filter.text().strip(),
            server=self.server_filter.currentData(),
            decision=decision,
            since=_period_start(str(self.period_filter.currentData()), self._now()),
        )

    def apply_filter(self) -> None:
        self.shown_records = select(self._read.records, self.current_filter())
        self.model.set_records(self.shown_records)
        total = len(self._read.records)
        if total == 0:
            text = self.texts.tr("audit_empty")
        else:
            text = self.texts.tr("audit_count", shown=len(self.shown_records), total=total)
        if self._read.skipped:
            text += " · " + self.texts.tr("audit_skipped", n=self._read.skipped)
        self.count_label.setText(text)
        self.export_button.setEnabled(bool(self.shown_records))

    def rows(self) -> list[tuple[str, ...]]:
        """What the table shows, row by row (for tests and screen readers)."""
        return [self.model.row(row) for row in range(self.model.rowCount())]

    # ---------------------------------------------------------- export

    def export_csv(self, path: Path | None = None) -> bool:
        """Save the shown records as CSV at ``path`` (None: ask where)."""
        if path is None:
            chosen, _ = QFileDialog.getSaveFileName(
                self, self.texts.tr("audit_export_title"), str(Path.home() / "approvals.csv"), "CSV (*.csv)"
            )
            if not chosen:
                return False
            path = Path(chosen)
        try:
            # A BOM first (utf-8-sig): Excel on Windows reads a CSV without one
            # in the ANSI code page and garbles Chinese; Python's csv and
            # LibreOffice skip it when read as utf-8-sig.
            atomic_write_text(path, "\ufeff" + to_csv(self.shown_records))
        except OSError as exc:
            self.count_label.setText(self.texts.tr("audit_export_failed", path=str(path), error=os_error_text(self.texts.texts, exc)))
            return False
        self.count_label.setText(self.texts.tr("audit_exported", path=str(path)))
        self.exported.emit(str(path))
        return True
