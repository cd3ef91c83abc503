"""A server waiting for a sign-in in the status bar: an amber item that
says so, the line why on hover, and **Sign in…** in its menu, which the
server watch runs."""

from __future__ import annotations

import asyncio

import pytest
from pytestqt.qtbot import QtBot

from desktop_agent.mcp_engine import ServerStatus
from desktop_agent.texts import CHINESE, ENGLISH
from desktop_agent.ui.settings.mcp_feature import McpFeature
from desktop_agent.ui.shell.server_watch import ServerWatch
from desktop_agent.ui.shell.status_bar import McpServerView, StatusBar, server_views

LINE = 'mcp server "notion" needs you to sign in (Settings → Tools, or --sign-in notion)'


@pytest.fixture
def bar(qtbot: QtBot) -> StatusBar:
    widget = StatusBar(ENGLISH)
    qtbot.add_widget(widget)
    return widget


def test_a_server_waiting_for_a_sign_in_says_so_and_offers_it(bar: StatusBar, qtbot: QtBot) -> None:
    view = McpServerView("notion", "sign_in", 0, LINE)
    assert view.caption(ENGLISH) == "MCP notion: sign-in needed"
    assert view.caption(CHINESE) == "MCP notion：需要登录"
    assert view.rich_caption(ENGLISH).startswith('<span style="color:#d29922">●</span>')
    assert (view.tooltip(ENGLISH), view.can_retry) == (LINE, False)

    menu = bar.server_menu(view)
    assert [(a.text(), a.isEnabled()) for a in menu.actions() if not a.isSeparator()] == [
        (LINE, False), ("Sign in…", True)
    ]
    with qtbot.wait_signal(bar.sign_in_requested, timeout=5000) as asked:
        [sign_in] = [a for a in menu.actions() if a.text() == "Sign in…"]
        sign_in.trigger()
    assert asked.args == ["notion"]
    menu.close()


async def test_the_watch_runs_the_sign_in_and_shows_the_outcome(bar: StatusBar) -> None:
    statuses = [ServerStatus("notion", "sign_in", error=LINE)]
    asked: list[str] = []
    done = asyncio.Event()

    async def sign_in(name: str) -> str | None:
        asked.append(name)
        statuses[0] = ServerStatus("notion", "ready", 1, tools=("search",))
        done.set()
        return None

    watch = ServerWatch(bar)
    watch.follow(McpFeature(lambda: statuses, sign_in=sign_in))
    assert bar._views == server_views([ServerStatus("notion", "sign_in", error=LINE)])
    bar.sign_in_requested.emit("notion")
    async with asyncio.timeout(5):
        await done.wait()
        while watch._signing:
            await asyncio.sleep(0)
    watch.stop()
    assert asked == ["notion"]
    assert [v.state for v in bar._views] == ["ready"]
