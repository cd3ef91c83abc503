"""A tool card's MCP resource link, clicked, is read through the engine and
shown in a read-only viewer; a failure is one warning line in the
conversation (async tests on the qasync loop, tests/ui/conftest.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from pytestqt.qtbot import QtBot

from desktop_agent.core.messages import ResourceRef, ToolCallMessage
from desktop_agent.mcp_engine.catalog import ResourceContent
from desktop_agent.mcp_engine.errors import McpEngineError
from desktop_agent.testing.window_rig import offline_deps
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.turn_view import TurnView
from desktop_agent.ui.settings.mcp_feature import McpFeature
from desktop_agent.ui.shell.main_window import MainWindow
from tests.ui.cards.test_tool_card import png

URI = "demo://resource/dynamic/text/2"


class Reader:
    def __init__(self, fail: bool = False) -> None:
        self.asked: list[tuple[str, str]] = []
        self.fail = fail

    async def __call__(self, server: str, uri: str) -> ResourceContent:
        self.asked.append((server, uri))
        if self.fail:
            raise McpEngineError(f'mcp server "{server}" could not read {uri}: Resource not found')
        return ResourceContent(server, uri, "Resource 2: plain text", truncated=True, mime_type="text/plain")


def _window(qtbot: QtBot, reader: Reader) -> MainWindow:
    window = MainWindow(tray=False)
    qtbot.add_widget(window)
    window.attach(replace(offline_deps(), mcp=McpFeature(lambda: [], read_resource=reader)))
    return window


@pytest.mark.asyncio
async def test_a_clicked_resource_link_is_read_and_shown(qtbot: QtBot) -> None:
    reader = Reader()
    window = _window(qtbot, reader)
    view = TurnView(window.chat, server_of=lambda _name: "everything")
    view.tool_event(ToolCallMessage("executing", "c1", "get-resource-links", {}))
    view.tool_event(ToolCallMessage("result", "c1", "get-resource-links", {}, result="…", is_error=False,
                                    resources=(ResourceRef(URI, "Text Resource 2", "text/plain"),)))
    card = view.cards["c1"]

    card.resource_links.links[0].linkActivated.emit(URI)
    for task in list(window.resources._tasks):
        await task

    assert reader.asked == [("everything", URI)]
    viewer = window.resources.viewer
    assert viewer is not None and viewer.isVisible()
    assert viewer.text.toPlainText() == "Resource 2: plain text"
    assert viewer.truncated.isVisibleTo(viewer)
    assert viewer.windowTitle() == f"{URI} — everything"


@pytest.mark.asyncio
async def test_a_resource_that_cannot_be_read_is_one_warning_line(qtbot: QtBot) -> None:
    window = _window(qtbot, Reader(fail=True))

    task = window.resources.open("everything", URI)
    assert task is not None
    await task

    assert window.resources.viewer is None
    [notice] = [w for w in window.chat.items() if isinstance(w, MessageBubble) and w.role == "warning"]
    assert notice.text() == (
        f'Could not open {URI}: mcp server "everything" could not read {URI}: Resource not found'
    )


def test_an_image_resource_shows_as_an_image(qtbot: QtBot) -> None:
    from desktop_agent.core.messages import ImageContent
    from desktop_agent.texts import CHINESE
    from desktop_agent.ui.cards.resource_viewer import ResourceViewer

    viewer = ResourceViewer("everything", "demo://img", "", CHINESE, images=(ImageContent("image/png", png()),))
    qtbot.add_widget(viewer)
    viewer.show()

    [label] = viewer.images
    assert label.pixmap().width() == 40
    assert not viewer.text.isVisibleTo(viewer) and not viewer.truncated.isVisibleTo(viewer)
    assert viewer.windowTitle() == "demo://img —— everything"
