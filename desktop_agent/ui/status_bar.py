"""Status bar: the model (and, for the demo model, how to connect a real
one) and each MCP server's state.

It takes plain values (:class:`McpServerView`), so it knows nothing of the
MCP engine; :func:`server_views` adapts anything with ``name``, ``state``,
``tool_count`` and ``error`` attributes (``mcp_engine.ServerStatus``).
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtWidgets import QLabel, QStatusBar, QWidget

from desktop_agent.ui.i18n import tr

_STATE_COLORS = {"ready": "#2da44e", "starting": "#d29922", "failed": "#cf222e"}
_IDLE_COLOR = "#8c959f"


@dataclass(frozen=True, slots=True)
class McpServerView:
    name: str
    state: str
    tool_count: int = 0
    error: str | None = None

    def caption(self) -> str:
        """Plain text: ``MCP time: ready, 2 tools``."""
        state = self.state
        if self.state == "ready":
            key = "status_mcp_one_tool" if self.tool_count == 1 else "status_mcp_tools"
            state = tr(key, state=self.state, count=self.tool_count)
        return tr("status_mcp", name=self.name, state=state)

    def rich_caption(self) -> str:
        """The caption after a coloured dot (rich text for the label)."""
        color = _STATE_COLORS.get(self.state, _IDLE_COLOR)
        return f'<span style="color:{color}">●</span> {html.escape(self.caption())}'


def server_views(statuses: Iterable[Any]) -> list[McpServerView]:
    return [
        McpServerView(
            str(getattr(s, "name", "?")),
            str(getattr(s, "state", "?")),
            int(getattr(s, "tool_count", 0) or 0),
            getattr(s, "error", None),
        )
        for s in statuses
    ]


class StatusBar(QStatusBar):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = QLabel(tr("starting"), self)
        self.model.setObjectName("statusModel")
        self.addWidget(self.model, 1)
        self.servers: list[QLabel] = []

    def set_model(self, name: str, *, is_demo: bool, demo_notice: str | None = None) -> None:
        if is_demo:
            self.model.setText(tr("status_demo"))
            self.model.setToolTip(demo_notice or "")
        else:
            self.model.setText(tr("status_model", model=name))
            self.model.setToolTip("")

    def set_servers(self, servers: Sequence[McpServerView]) -> None:
        shown = [(label.text(), label.toolTip()) for label in self.servers]
        if shown == [(s.rich_caption(), s.error or "") for s in servers]:
            return
        for label in self.servers:
            self.removeWidget(label)
            label.deleteLater()
        self.servers = []
        for server in servers:
            label = QLabel(server.rich_caption(), self)
            label.setToolTip(server.error or "")
            self.addPermanentWidget(label)
            self.servers.append(label)
