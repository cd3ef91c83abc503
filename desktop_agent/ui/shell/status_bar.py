"""Status bar: the model (and, for the demo model, how to connect a real
one) and each MCP server's state.

Each server is one item (``server_chips.py``: as many as fit, then "+N",
so the items never widen the window): a coloured dot and its caption; hovering shows its
tools, one per line, after the reason in one line when it failed; a click
opens the same as a menu, with **Retry** for a failed server (servers
start in the background and may fail after the window is up).

It takes plain values (:class:`McpServerView`), so it knows nothing of the
MCP engine; :func:`server_views` adapts anything with ``name``, ``state``,
``tool_count``, ``error`` and ``tools`` attributes (``mcp_engine.ServerStatus``).

Signals:
    retry_requested(name: str)  the user chose Retry in a failed server's menu
    sign_in_requested(name: str)  the user chose Sign in in the menu of a
                                  server that waits for a sign-in
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, Signal
from PySide6.QtGui import QMouseEvent, QResizeEvent
from PySide6.QtWidgets import QLabel, QMenu, QStatusBar, QWidget

from desktop_agent.texts import Texts, keys
from desktop_agent.ui.common.elided_label import ElidedLabel
from desktop_agent.ui.shell.server_chips import ServerChips

_STATE_COLORS = {"ready": "#2da44e", "starting": "#d29922", "failed": "#cf222e", "sign_in": "#d29922"}
_IDLE_COLOR = "#8c959f"
MODEL_GAP = 40
"""Pixels kept between the model's line and the servers' items (and the size grip)."""


@dataclass(frozen=True, slots=True)
class McpServerView:
    name: str
    state: str
    tool_count: int = 0
    error: str | None = None
    tools: tuple[str, ...] = ()
    """The server's tool names, in its order."""

    def caption(self, texts: Texts) -> str:
        """Plain text: ``MCP time: ready, 2 tools``."""
        key = f"mcp_state_{self.state}"
        state = texts.tr(key) if key in keys() else self.state
        if self.state == "ready":
            state = texts.tr("status_mcp_tools", state=state, count=self.tool_count)
        return texts.tr("status_mcp", name=self.name, state=state)

    def rich_caption(self, texts: Texts) -> str:
        """The caption after a coloured dot (rich text for the label)."""
        color = _STATE_COLORS.get(self.state, _IDLE_COLOR)
        return f'<span style="color:{color}">●</span> {html.escape(self.caption(texts))}'

    @property
    def reason(self) -> str | None:
        """Why it failed (or waits for a sign-in), on one line (the engine's
        message may carry a stderr tail over several); None otherwise."""
        if self.state not in ("failed", "sign_in") or not self.error:
            return None
        return " ".join(self.error.split())

    @property
    def can_retry(self) -> bool:
        return self.state == "failed"

    def details(self, texts: Texts) -> list[str]:
        """What hover and click show, one entry a line: the reason it
        failed (or that it is starting), then each tool."""
        lines: list[str] = []
        if self.reason is not None:
            lines.append(self.reason)
        elif self.state == "starting" and not self.tools:
            lines.append(texts.tr("mcp_tip_starting"))
        lines.extend(self.tools)
        if self.state == "ready" and not self.tools and self.tool_count == 0:
            lines.append(texts.tr("mcp_no_tools"))
        return lines

    def tooltip(self, texts: Texts) -> str:
        return "\n".join(self.details(texts))


def server_views(statuses: Iterable[Any]) -> list[McpServerView]:
    return [
        McpServerView(
            str(getattr(s, "name", "?")),
            str(getattr(s, "state", "?")),
            int(getattr(s, "tool_count", 0) or 0),
            getattr(s, "error", None),
            tuple(str(t) for t in getattr(s, "tools", ()) or ()),
        )
        for s in statuses
    ]


class StatusBar(QStatusBar):
    retry_requested = Signal(str)
    sign_in_requested = Signal(str)

    def __init__(self, texts: Texts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._texts = texts
        self.model = ElidedLabel(self._texts.tr("starting"), self)
        """The model; cut with "…" when the bar is narrow (whole on hover)."""
        self.model.setObjectName("statusModel")
        self.addWidget(self.model, 1)
        self.chips = ServerChips(self)
        """The servers' items: as many as fit, then "+N" (never wider than the window)."""
        self.chips.more.installEventFilter(self)
        self.addPermanentWidget(self.chips)
        self._views: list[McpServerView] = []
        self._model_shown: tuple[str, bool, str | None] | None = None
        self.menu: QMenu | None = None
        """The server menu open now (or last opened)."""

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._share_room()

    def _share_room(self) -> None:
        """The servers' items get what the model's line leaves, and at least
        half the bar: a long model name is then cut rather than every server."""
        room = self.width()
        self.chips.setMaximumWidth(max(room // 2, room - self.model.sizeHint().width() - MODEL_GAP))

    @property
    def servers(self) -> list[QLabel]:
        """One item a server, in order, hidden ones included (plain labels: the bar watches their clicks)."""
        return self.chips.labels

    def retranslate(self, texts: Texts) -> None:
        """Texts again in ``texts``' language (Settings → Appearance)."""
        self._texts = texts
        if self._model_shown is not None:
            name, is_demo, notice = self._model_shown
            self.set_model(name, is_demo=is_demo, demo_notice=notice)
        else:
            self.model.setText(self._texts.tr("starting"))
        views, self._views = self._views, []
        self.set_servers(views)  # each server's caption and tooltip say it again

    def set_model(self, name: str, *, is_demo: bool, demo_notice: str | None = None) -> None:
        self._model_shown = (name, is_demo, demo_notice)
        if is_demo:
            self.model.setText(self._texts.tr("status_demo"))
            self.model.setToolTip(demo_notice or "")
        else:
            self.model.setText(self._texts.tr("status_model", model=name))
            self.model.setToolTip("")
        self._share_room()

    def set_servers(self, servers: Sequence[McpServerView]) -> None:
        if self._views == list(servers):
            return
        for label in self.servers:
            label.hide()
            label.deleteLater()
        self._views = list(servers)
        labels: list[QLabel] = []
        for server in servers:
            label = QLabel(server.rich_caption(self._texts), self.chips)
            label.setToolTip(server.tooltip(self._texts))
            label.setCursor(Qt.CursorShape.PointingHandCursor)
            label.installEventFilter(self)
            labels.append(label)
        self.chips.set_labels(labels, [server.caption(self._texts) for server in servers])

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.MouseButtonPress
            and isinstance(event, QMouseEvent)
            and event.button() == Qt.MouseButton.LeftButton
        ):
            if watched is self.chips.more:
                self.open_overflow_menu()
                return True
            for index, label in enumerate(self.servers):
                if label is watched:
                    self.open_menu(index)
                    return True
        return super().eventFilter(watched, event)

    def server_menu(self, server: McpServerView) -> QMenu:
        """The menu a click on ``server`` opens: its details (not
        clickable), then Retry when it failed, Sign in when it waits for one."""
        menu = QMenu(self)
        for line in server.details(self._texts):
            menu.addAction(line).setEnabled(False)
        if server.can_retry:
            menu.addSeparator()
            retry = menu.addAction(self._texts.tr("mcp_retry"))
            name = server.name
            retry.triggered.connect(lambda: self.retry_requested.emit(name))
        if server.state == "sign_in":
            menu.addSeparator()
            sign_in = menu.addAction(self._texts.tr("mcp_sign_in"))
            name = server.name
            sign_in.triggered.connect(lambda: self.sign_in_requested.emit(name))
        return menu

    def overflow_menu(self) -> QMenu:
        """The menu "+N" opens: each server that does not fit, as a submenu
        holding what a click on its own item would open."""
        menu = QMenu(self)
        for index in self.chips.hidden():
            view = self._views[index]
            sub = self.server_menu(view)
            sub.setTitle(view.caption(self._texts))
            menu.addMenu(sub)
        return menu

    def open_overflow_menu(self) -> QMenu:
        """Pop the "+N" menu up above it (not modal)."""
        return self._popup(self.overflow_menu(), self.chips.more)

    def open_menu(self, index: int) -> QMenu:
        """Pop server ``index``'s menu up above its item (not modal: the
        event loop runs on); it is deleted once closed."""
        return self._popup(self.server_menu(self._views[index]), self.servers[index])

    def _popup(self, menu: QMenu, above: QWidget) -> QMenu:
        if self.menu is not None:
            self.menu.close()
        self.menu = menu
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.aboutToHide.connect(self._forget_menu)
        menu.popup(above.mapToGlobal(QPoint(0, 0)) - QPoint(0, menu.sizeHint().height()))
        return menu

    def _forget_menu(self) -> None:
        self.menu = None
