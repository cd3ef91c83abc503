"""A tool's structured content (MCP ``structuredContent``) as the card shows it.

The model reads the result's text; the user gets something easier to scan
than JSON: a flat object as label/value rows, an array of objects as a table
(one column per key, in the order the keys first appear), anything else as
compact JSON. A nested value inside a row or a cell is compact JSON too, so
nothing is hidden and the widget never recurses into an unbounded tree.

The shape is decided by :func:`layout_of` (pure, tested without Qt); the
widget only draws it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGridLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

MAX_ROWS = 200
"""A table shows at most this many rows (the rest is counted under it)."""
TABLE_MAX_HEIGHT = 240
CELL_MAX_CHARS = 200


@dataclass(frozen=True, slots=True)
class StructuredLayout:
    """How to show a value: ``fields`` (rows of label, value), ``table``
    (``columns`` and ``rows`` of cells) or ``json`` (``text``)."""

    kind: Literal["fields", "table", "json"]
    columns: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    text: str = ""
    hidden_rows: int = 0


def compact(value: Any) -> str:
    """A scalar as the user would write it; anything else as one line of JSON."""
    if isinstance(value, str):
        text = value
    elif value is None or isinstance(value, bool | int | float):
        text = json.dumps(value)
    else:
        text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return text if len(text) <= CELL_MAX_CHARS else text[: CELL_MAX_CHARS - 1] + "…"


def layout_of(value: Any) -> StructuredLayout:
    if isinstance(value, Mapping) and value:
        return StructuredLayout("fields", rows=tuple((str(k), compact(v)) for k, v in value.items()))
    if isinstance(value, Sequence) and not isinstance(value, str) and value:
        if all(isinstance(item, Mapping) for item in value):
            columns: dict[str, None] = {}
            for item in value:
                columns.update(dict.fromkeys(str(k) for k in item))
            shown = value[:MAX_ROWS]
            rows = tuple(tuple(compact(item[c]) if c in item else "" for c in columns) for item in shown)
            return StructuredLayout("table", tuple(columns), rows, hidden_rows=len(value) - len(shown))
    return StructuredLayout("json", text=json.dumps(value, ensure_ascii=False, indent=2))


class StructuredView(QWidget):
    """Shows one structured value; :meth:`show_value` replaces it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.layout_shown: StructuredLayout | None = None
        self._value: Any = None
        self.fields = QWidget(self)
        self._grid = QGridLayout(self.fields)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setHorizontalSpacing(12)
        self._grid.setVerticalSpacing(2)
        self.table = QTableWidget(self)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setMaximumHeight(TABLE_MAX_HEIGHT)
        self.more = QLabel(self)
        self.more.setObjectName("cardMuted")
        self.json = QLabel(self)
        self.json.setObjectName("mono")
        self.json.setWordWrap(True)
        self.json.setTextFormat(Qt.TextFormat.PlainText)
        self.json.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.fields, self.table, self.more, self.json):
            layout.addWidget(widget)
            widget.setVisible(False)

    def show_value(self, value: Any, *, more_rows: Callable[[int], str] = str) -> None:
        """Draw ``value``; ``more_rows`` says how many rows were left out."""
        shape = layout_of(value)
        if shape == self.layout_shown:
            return
        self.layout_shown = shape
        self._fill_fields(shape.rows if shape.kind == "fields" else ())
        if shape.kind == "table":
            self._fill_table(shape)
        self.json.setText(shape.text)
        self.fields.setVisible(shape.kind == "fields")
        self.table.setVisible(shape.kind == "table")
        self.json.setVisible(shape.kind == "json")
        self.more.setText(more_rows(shape.hidden_rows) if shape.hidden_rows else "")
        self.more.setVisible(bool(shape.hidden_rows))

    def field_rows(self) -> list[tuple[str, str]]:
        """The label/value rows shown (for tests and accessibility)."""
        out: list[tuple[str, str]] = []
        for row in range(self._grid.rowCount()):
            label, value = self._grid.itemAtPosition(row, 0), self._grid.itemAtPosition(row, 1)
            if label is not None and value is not None:
                out.append((_text(label.widget()), _text(value.widget())))
        return out

    def _fill_fields(self, rows: Sequence[tuple[str, ...]]) -> None:
        while self._grid.count():
            item = self._grid.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        for row, (name, value) in enumerate(rows):
            label = QLabel(name, self.fields)
            label.setObjectName("cardMuted")
            label.setTextFormat(Qt.TextFormat.PlainText)
            shown = QLabel(value, self.fields)
            shown.setTextFormat(Qt.TextFormat.PlainText)
            shown.setWordWrap(True)
            shown.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self._grid.addWidget(label, row, 0, Qt.AlignmentFlag.AlignTop)
            self._grid.addWidget(shown, row, 1)
        self._grid.setColumnStretch(1, 1)

    def _fill_table(self, shape: StructuredLayout) -> None:
        self.table.clear()
        self.table.setColumnCount(len(shape.columns))
        self.table.setRowCount(len(shape.rows))
        self.table.setHorizontalHeaderLabels(list(shape.columns))
        for r, cells in enumerate(shape.rows):
            for c, cell in enumerate(cells):
                self.table.setItem(r, c, QTableWidgetItem(cell))
        header = self.table.horizontalHeader().height()
        rows_height = sum(self.table.rowHeight(r) for r in range(len(shape.rows)))
        self.table.setFixedHeight(min(TABLE_MAX_HEIGHT, header + rows_height + 2 * self.table.frameWidth() + 2))


def _text(widget: QWidget | None) -> str:
    return widget.text() if isinstance(widget, QLabel) else ""
