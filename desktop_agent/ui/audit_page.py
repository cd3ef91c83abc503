"""Settings → Approval history (issue 14): every approval decision recorded
in ``<data>/approvals.jsonl``, filtered by tool, server, decision and date,
and exported as CSV.

A standalone page: it reads the file itself (``storage/audit_log.py``) when
built and on Refresh; which records show is :mod:`core.audit_query`'s
choice, and the page only lays them out. Newest first.

Signals:
    exported(path: str)  the shown records were saved as CSV at ``path``
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core.approval import BUILTIN
from desktop_agent.core.audit import DECISIONS, ApprovalRecord, Decision
from desktop_agent.core.audit_query import AuditFilter, select, server_of, servers, to_csv
from desktop_agent.storage.atomic import atomic_write_text
from desktop_agent.storage.audit_log import AuditRead, audit_log_path, read_audit
from desktop_agent.ui.i18n import tr

COLUMNS = ("time", "tool", "server", "decision", "by", "waited", "arguments")
PERIODS = ("any", "today", "week", "month")


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


def server_text(record: ApprovalRecord) -> str:
    server = server_of(record)
    return tr("audit_builtin") if server == BUILTIN else server


class AuditPage(QWidget):
    exported = Signal(str)

    def __init__(
        self,
        path: Path | None = None,
        *,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        parent: QWidget | None = None,
    ) -> None:
        """``path``: the audit file (default: the data folder's);
        ``now``: the clock the date filter counts back from."""
        super().__init__(parent)
        self.setObjectName("auditPage")
        self.path = path or audit_log_path()
        self._now = now
        self._read = AuditRead(())
        self.shown_records: list[ApprovalRecord] = []

        title = QLabel(tr("audit_title"), self)
        title.setObjectName("cardTitle")
        self.tool_filter = QLineEdit(self)
        self.tool_filter.setPlaceholderText(tr("audit_filter_tool"))
        self.tool_filter.setClearButtonEnabled(True)
        self.server_filter = QComboBox(self)
        self.decision_filter = QComboBox(self)
        self.decision_filter.addItem(tr("audit_any_decision"), None)
        for decision in DECISIONS:
            self.decision_filter.addItem(tr(f"audit_decision_{decision}"), decision)
        self.period_filter = QComboBox(self)
        for period in PERIODS:
            self.period_filter.addItem(tr(f"audit_period_{period}"), period)
        self.refresh_button = QPushButton(tr("audit_refresh"), self)
        self.export_button = QPushButton(tr("audit_export"), self)

        filters = QHBoxLayout()
        filters.addWidget(self.tool_filter, 2)
        filters.addWidget(self.server_filter, 1)
        filters.addWidget(self.decision_filter, 1)
        filters.addWidget(self.period_filter, 1)

        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setHorizontalHeaderLabels([tr(f"audit_col_{c}") for c in COLUMNS])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        for column in range(len(COLUMNS) - 1):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(len(COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)

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

    # ------------------------------------------------------------ data

    def reload(self) -> None:
        """Read the file again (new decisions since the page opened)."""
        self._read = read_audit(self.path)
        chosen = self.server_filter.currentData()
        self.server_filter.blockSignals(True)
        self.server_filter.clear()
        self.server_filter.addItem(tr("audit_any_server"), None)
        for server in servers(self._read.records):
            self.server_filter.addItem(tr("audit_builtin") if server == BUILTIN else server, server)
        index = self.server_filter.findData(chosen) if chosen is not None else 0
        self.server_filter.setCurrentIndex(max(0, index))
        self.server_filter.blockSignals(False)
        self.apply_filter()

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
        self._fill(self.shown_records)
        total = len(self._read.records)
        if total == 0:
            text = tr("audit_empty")
        else:
            text = tr("audit_count", shown=len(self.shown_records), total=total)
        if self._read.skipped:
            text += " · " + tr("audit_skipped", n=self._read.skipped)
        self.count_label.setText(text)
        self.export_button.setEnabled(bool(self.shown_records))

    def _fill(self, records: list[ApprovalRecord]) -> None:
        self.table.setRowCount(len(records))
        for row, record in enumerate(records):
            tool = record.tool_name
            nested = tr("audit_sub_agent", parent=" › ".join(record.parent_tool_call_ids))
            cells = (
                record.when.astimezone().strftime("%Y-%m-%d %H:%M:%S"),
                tool,
                server_text(record),
                tr(f"audit_decision_{record.decision}"),
                tr(f"audit_by_{record.decided_by}"),
                tr("seconds", n=f"{record.waited_s:.1f}"),
                record.arguments_preview,
            )
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, record.tool_call_id)
                if column == 1 and record.parent_tool_call_ids:
                    item.setText(f"↳ {tool}")
                    item.setToolTip(nested)
                elif column == len(cells) - 1:
                    item.setToolTip(f"{text}\nsha256 {record.arguments_sha256}")
                self.table.setItem(row, column, item)

    def rows(self) -> list[tuple[str, ...]]:
        """What the table shows, row by row (for tests and screen readers)."""
        out: list[tuple[str, ...]] = []
        for row in range(self.table.rowCount()):
            items = (self.table.item(row, c) for c in range(self.table.columnCount()))
            out.append(tuple(item.text() if item is not None else "" for item in items))
        return out

    # ---------------------------------------------------------- export

    def export_csv(self, path: Path | None = None) -> bool:
        """Save the shown records as CSV at ``path`` (None: ask where)."""
        if path is None:
            chosen, _ = QFileDialog.getSaveFileName(
                self, tr("audit_export_title"), str(Path.home() / "approvals.csv"), "CSV (*.csv)"
            )
            if not chosen:
                return False
            path = Path(chosen)
        try:
            atomic_write_text(path, to_csv(self.shown_records))
        except OSError as exc:
            self.count_label.setText(tr("audit_export_failed", path=str(path), error=exc.strerror or exc))
            return False
        self.count_label.setText(tr("audit_exported", path=str(path)))
        self.exported.emit(str(path))
        return True
