"""One MCP server's log, read-only (the Tools page's Log…): the MCP log
messages it sent (time, level, logger, text), newest last, and under them
the last lines it wrote to stderr when it failed to start (from its status).

It reads the lines through a callable each time it refreshes (the Tools
page's timer), so it follows a running server without holding the engine,
which Settings → Tools may replace."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from desktop_agent.mcp_engine.server_log import LogLine
from desktop_agent.texts import Texts
from desktop_agent.ui.common.theme import apply_theme


def line_text(line: LogLine) -> str:
    stamp = time.strftime("%H:%M:%S", time.localtime(line.at))
    logger = f" [{line.logger}]" if line.logger else ""
    return f"{stamp} {line.level.upper():<9}{logger} {line.text}"


class ServerLogView(QDialog):
    def __init__(
        self,
        name: str,
        lines: Callable[[], Sequence[LogLine]],
        texts: Texts,
        *,
        error: Callable[[], str | None] = lambda: None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.name = name
        self._lines = lines
        self._error = error
        self._shown: tuple[int, str | None] = (-1, None)
        self.texts = texts
        self.setWindowTitle(texts.tr("mcp_log_title", name=name))
        self.resize(640, 380)
        self.log = QPlainTextEdit(self)
        self.log.setReadOnly(True)
        self.log.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.log.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.stderr = QLabel(self)
        self.stderr.setObjectName("cardMuted")
        self.stderr.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.log, 1)
        layout.addWidget(self.stderr)
        layout.addWidget(buttons)
        apply_theme(self)
        self.refresh()

    def refresh(self) -> None:
        lines, error = self._lines(), self._error()
        if (len(lines), error) == self._shown and lines:
            return
        self._shown = (len(lines), error)
        bar = self.log.verticalScrollBar()
        at_end = bar.value() >= bar.maximum() - 2
        self.log.setPlainText("\n".join(map(line_text, lines)) if lines else self.texts.tr("mcp_log_empty"))
        if at_end:
            bar.setValue(bar.maximum())
        self.stderr.setText(error or "")
        self.stderr.setVisible(bool(error))
