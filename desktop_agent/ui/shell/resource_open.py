"""A tool card's MCP resource link, opened: the resource is read through the
engine (``McpFeature.read_resource``) and shown in a read-only
:class:`ResourceViewer`; a failure is one warning line in the conversation,
and the turn goes on. Web links never come here (the card opens them in the
browser)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from desktop_agent.texts import Texts
from desktop_agent.ui.cards.resource_viewer import ResourceViewer
from desktop_agent.ui.chat.turn_events import NoticeLevel

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from desktop_agent.ui.settings.mcp_feature import ReadResource

log = logging.getLogger(__name__)


class ResourceOpener:
    def __init__(
        self,
        parent: QWidget,
        read: ReadResource | None,
        texts: Callable[[], Texts],
        notice: Callable[[NoticeLevel, Callable[[Texts], str]], None],
    ) -> None:
        self._parent = parent
        self._read = read
        self._texts = texts
        self._notice = notice
        self._tasks: set[asyncio.Task[None]] = set()
        self.viewer: ResourceViewer | None = None
        """The viewer opened last."""

    def open(self, server: str, uri: str) -> asyncio.Task[None] | None:
        if self._read is None or not server:
            self._failed(uri, "no MCP server can read it here")
            return None
        task = asyncio.ensure_future(self._show(self._read, server, uri))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _show(self, read: ReadResource, server: str, uri: str) -> None:
        try:
            content = await read(server, uri)
        except Exception as exc:  # the engine's one line (or whatever broke) becomes a notice
            log.warning("cannot open %s from %s: %s", uri, server, exc)
            self._failed(uri, str(exc))
            return
        viewer = ResourceViewer(
            server, uri, content.text, self._texts(), images=content.images, truncated=content.truncated,
            parent=self._parent,
        )
        self.viewer = viewer
        viewer.open()

    def _failed(self, uri: str, reason: str) -> None:
        self._notice(NoticeLevel.WARNING, lambda texts: texts.tr("resource_open_failed", uri=uri, reason=reason))
