"""Settings → Voice's list of offline engines: each row names an engine or
model, its languages and where it stands (ready, needs a download of N MB,
downloading %, failed: why, not installed), with what can be done about it
(Download, Cancel, Retry, Delete — Delete asks again on the same button).

It renders :func:`desktop_agent.voice.engine_catalogue.catalogue` rows and
follows the window's :class:`~desktop_agent.voice.downloads.ModelDownloads`,
so a download started here, by the panel above the input or by a recogniser
shows the same here. Downloads use the source chosen on this page, even
before OK (:attr:`EngineList.source`).

Signals:
    changed()   a model arrived or was deleted (the page tells the window,
                which may now use another engine)
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QGridLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from desktop_agent.texts import Texts
from desktop_agent.ui.voice.model_wording import engine_state_text, languages_text
from desktop_agent.voice.downloads import DownloadState, ModelDownloads
from desktop_agent.voice.engine_catalogue import EngineRow, catalogue, delete_model
from desktop_agent.voice.stt.models import ModelDownloadError
from desktop_agent.voice.stt.sources import ModelSource

log = logging.getLogger(__name__)


class _Row:
    """One engine's widgets: its name over its languages, where it stands
    (words that wrap, and a thin bar while downloading), its buttons."""

    def __init__(self, parent: QWidget) -> None:
        self.name = QLabel(parent)
        font = self.name.font()
        font.setBold(True)
        self.name.setFont(font)
        self.languages = QLabel(parent)
        self.languages.setObjectName("cardMuted")
        self.title = QWidget(parent)
        stack = QVBoxLayout(self.title)
        stack.setContentsMargins(0, 0, 0, 0)
        stack.setSpacing(0)
        stack.addWidget(self.name)
        stack.addWidget(self.languages)
        self.state = QLabel(parent)
        self.state.setWordWrap(True)
        self.state.setMinimumWidth(160)
        self.state.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.bar = QProgressBar(parent)
        self.bar.setRange(0, 100)
        self.bar.setTextVisible(False)
        self.bar.setFixedHeight(6)
        self.action = QPushButton(parent)
        self.delete = QPushButton(parent)
        self.row: EngineRow | None = None
        self.confirming = False


class EngineList(QWidget):
    changed = Signal()
    _posted = Signal(object)

    def __init__(
        self,
        downloads: ModelDownloads,
        source: Callable[[], ModelSource],
        texts: Texts,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._texts = texts
        self._downloads = downloads
        self.source = source
        """The source the page's fields name now."""
        self._rows: dict[str, _Row] = {}
        self._tasks: set[asyncio.Task[object]] = set()
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setHorizontalSpacing(12)
        self._grid.setVerticalSpacing(6)
        self._grid.setColumnStretch(1, 1)
        self._headings: dict[str, QLabel] = {}
        # Download callbacks may come from the store's progress: post them to our thread.
        self._posted.connect(self._on_download)
        self._stop = downloads.listen(self._posted.emit)
        self.refresh()

    def closeEvent(self, event: object) -> None:  # Qt's name
        self._stop()

    def rows(self) -> list[EngineRow]:
        return catalogue(self._downloads.store, self.source(), self._downloads.state)

    def row_widgets(self, key: str) -> _Row:
        return self._rows[key]

    def _build(self) -> None:
        """The grid: a heading per kind (input, output), then a line per
        engine and under it its progress bar (shown while downloading)."""
        line, kind = 0, ""
        for row in self.rows():
            if row.kind != kind:
                kind = row.kind
                heading = QLabel(self)
                heading.setObjectName("cardMuted")
                self._headings[f"engines_{kind}"] = heading
                self._grid.addWidget(heading, line, 0, 1, 4)
                line += 1
            widgets = self._rows[row.key] = _Row(self)
            self._grid.addWidget(widgets.title, line, 0, Qt.AlignmentFlag.AlignTop)
            self._grid.addWidget(widgets.state, line, 1)
            self._grid.addWidget(widgets.action, line, 2, Qt.AlignmentFlag.AlignTop)
            self._grid.addWidget(widgets.delete, line, 3, Qt.AlignmentFlag.AlignTop)
            self._grid.addWidget(widgets.bar, line + 1, 1, 1, 3)
            widgets.action.clicked.connect(lambda _c=False, key=row.key: self._act(key))
            widgets.delete.clicked.connect(lambda _c=False, key=row.key: self._delete(key))
            line += 2

    def refresh(self) -> None:
        """Every row again (states, sizes, the source's addresses)."""
        if not self._rows:
            self._build()
        for row in self.rows():
            self._show(self._rows[row.key], row)
        for key, label in self._headings.items():
            label.setText(self._texts.tr(key))

    def retranslate(self, texts: Texts) -> None:
        self._texts = texts
        self.refresh()

    def _show(self, widgets: _Row, row: EngineRow) -> None:
        widgets.row = row
        widgets.name.setText(row.name)
        widgets.languages.setText(languages_text(self._texts, row.languages))
        widgets.state.setText(engine_state_text(self._texts, row))
        widgets.state.setProperty("state", row.state)
        widgets.state.setToolTip(engine_state_text(self._texts, row) if row.state == "failed" else "")
        widgets.bar.setVisible(row.state == "downloading")
        widgets.bar.setValue(int(row.percent or 0))
        action = {"needs_download": "engine_download", "downloading": "engine_cancel", "failed": "engine_retry"}
        widgets.action.setVisible(row.state in action)
        if row.state in action:
            widgets.action.setText(self._texts.tr(action[row.state], mb=""))
        widgets.delete.setVisible(row.deletable)
        widgets.delete.setText(self._texts.tr("engine_delete_confirm" if widgets.confirming else "engine_delete"))

    # ------------------------------------------------------------ actions

    def _act(self, key: str) -> None:
        widgets = self._rows[key]
        row = widgets.row
        if row is None or row.spec is None:
            return
        if row.state == "downloading":
            self._downloads.cancel(key)
            return
        task = self._downloads.start(row.spec, row.base_url)
        watched: asyncio.Task[object] = asyncio.ensure_future(self._watch(task))
        self._tasks.add(watched)
        watched.add_done_callback(self._tasks.discard)

    async def _watch(self, task: asyncio.Future[Path]) -> object:
        try:
            await task
        except (asyncio.CancelledError, ModelDownloadError):
            return None  # the state says it (failed or idle)
        self.changed.emit()
        return None

    def _delete(self, key: str) -> None:
        widgets = self._rows[key]
        row = widgets.row
        if row is None:
            return
        if not widgets.confirming:
            widgets.confirming = True  # the same button asks once more
            self._show(widgets, row)
            return
        widgets.confirming = False
        try:
            deleted = delete_model(row, self._downloads.store)
        except OSError as exc:
            log.warning("could not delete %s: %s", row.name, exc)
            widgets.state.setText(self._texts.tr("engine_delete_failed", reason=exc.strerror or str(exc)))
            return
        self.refresh()
        if deleted:
            self.changed.emit()

    def _on_download(self, state: object) -> None:
        if not isinstance(state, DownloadState):
            return
        widgets = self._rows.get(state.key)
        if widgets is None:
            return
        for row in self.rows():
            if row.key == state.key:
                self._show(widgets, row)
        if state.phase == "done":
            self.refresh()


__all__ = ["EngineList"]
