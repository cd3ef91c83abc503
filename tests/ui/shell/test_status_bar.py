"""StatusBar: the model label and one item per MCP server, from plain
values: caption, tooltip (tools, or the reason it failed), click menu, Retry."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from desktop_agent.texts import CHINESE, ENGLISH
from desktop_agent.ui.shell.status_bar import McpServerView, StatusBar, server_views

DOT = '<span style="color:{}">●</span> '


@pytest.fixture
def bar(qtbot: QtBot) -> StatusBar:
    widget = StatusBar(ENGLISH)
    qtbot.add_widget(widget)
    return widget


def test_a_new_bar_says_it_is_starting_and_lists_no_server(bar: StatusBar) -> None:
    assert (bar.model.text(), bar.model.toolTip(), bar.servers) == ("Starting…", "", [])


def test_a_real_model_shows_its_name_without_a_tooltip(bar: StatusBar) -> None:
    bar.set_model("gpt-4o", is_demo=False, demo_notice="ignored for a real model")

    assert (bar.model.text(), bar.model.toolTip()) == ("Model: gpt-4o", "")


def test_the_demo_model_says_how_to_connect_a_real_one(bar: StatusBar) -> None:
    bar.set_model("demo", is_demo=True, demo_notice="set an endpoint in Settings")

    assert (bar.model.text(), bar.model.toolTip()) == (
        "Demo model (offline) — open Settings to connect a real one",
        "set an endpoint in Settings",
    )


def test_switching_from_the_demo_to_a_real_model_clears_the_demo_tooltip(bar: StatusBar) -> None:
    bar.set_model("demo", is_demo=True, demo_notice="set an endpoint in Settings")
    bar.set_model("qwen", is_demo=False)

    assert (bar.model.text(), bar.model.toolTip()) == ("Model: qwen", "")


def test_each_server_gets_a_coloured_caption_and_its_tools_or_its_state_as_tooltip(bar: StatusBar) -> None:
    bar.set_servers([
        McpServerView("time", "ready", 2, tools=("get_current_time", "convert_time")),
        McpServerView("fs", "starting"),
        McpServerView("browser", "failed", 0, "exited with code 1"),
        McpServerView("idle", "stopped"),
        McpServerView("empty", "ready", 0),
    ])

    assert [(label.text(), label.toolTip()) for label in bar.servers] == [
        (DOT.format("#2da44e") + "MCP time: ready, 2 tools", "get_current_time\nconvert_time"),
        (DOT.format("#d29922") + "MCP fs: starting", "Starting — its tools join once it is ready"),
        (DOT.format("#cf222e") + "MCP browser: failed", "exited with code 1"),
        (DOT.format("#8c959f") + "MCP idle: stopped", ""),
        (DOT.format("#2da44e") + "MCP empty: ready, 0 tools", "No tools"),
    ]


def test_a_failure_reason_is_one_line_above_the_tools_it_had() -> None:
    crashed = McpServerView(
        "web", "failed", 1, 'mcp server "web" exited; it restarts on the next call\n(stderr: a\n  b)', ("fetch",)
    )

    assert crashed.tooltip(ENGLISH) == 'mcp server "web" exited; it restarts on the next call (stderr: a b)\nfetch'


# The offscreen platform has no window manager to raise a popup or hand it the keyboard.
POPUP_NOISE = pytest.mark.qt_log_ignore(
    "This plugin does not support raise", "This plugin does not support grabbing the keyboard"
)


@POPUP_NOISE
def test_a_click_on_a_server_opens_its_tools_as_a_menu(bar: StatusBar, qtbot: QtBot) -> None:
    bar.set_servers([McpServerView("time", "ready", 2, tools=("get_current_time", "convert_time"))])
    bar.show()
    qtbot.wait_exposed(bar)

    QTest.mouseClick(bar.servers[0], Qt.MouseButton.LeftButton)

    menu = bar.menu
    assert menu is not None and menu.isVisible()
    assert [(a.text(), a.isEnabled()) for a in menu.actions()] == [
        ("get_current_time", False),
        ("convert_time", False),
    ]
    menu.close()


@POPUP_NOISE
def test_retry_in_a_failed_servers_menu_asks_for_that_server(bar: StatusBar, qtbot: QtBot) -> None:
    failed = McpServerView("browser", "failed", 0, 'mcp server "browser" did not start within 30 s')
    bar.set_servers([McpServerView("time", "ready", 1, tools=("now",)), failed])

    menu = bar.open_menu(1)
    texts = [(a.text(), a.isEnabled()) for a in menu.actions() if not a.isSeparator()]
    with qtbot.wait_signal(bar.retry_requested, timeout=5000) as asked:
        [retry] = [a for a in menu.actions() if a.text() == "Retry"]
        retry.trigger()

    assert texts == [('mcp server "browser" did not start within 30 s', False), ("Retry", True)]
    assert asked.args == ["browser"]
    assert [a.text() for a in bar.server_menu(McpServerView("time", "ready", 1, tools=("now",))).actions()] == [
        "now"
    ]
    menu.close()


def test_a_server_name_is_escaped_in_the_rich_caption() -> None:
    server = McpServerView("<b>x&y</b>", "stopped")

    assert server.caption(ENGLISH) == "MCP <b>x&y</b>: stopped"
    assert server.rich_caption(ENGLISH) == DOT.format("#8c959f") + "MCP &lt;b&gt;x&amp;y&lt;/b&gt;: stopped"


def test_captions_follow_the_ui_language() -> None:
    assert McpServerView("time", "ready", 2).caption(CHINESE) == "MCP time：就绪，2 个工具"
    assert McpServerView("web", "failed").caption(CHINESE) == "MCP web：启动失败"
    assert McpServerView("odd", "rebooting").caption(CHINESE) == "MCP odd：rebooting"  # unknown: as given
    assert McpServerView("fs", "starting").tooltip(CHINESE) == "启动中 —— 就绪后即可使用它的工具"


def test_the_menu_follows_the_ui_language(bar: StatusBar) -> None:
    bar.retranslate(CHINESE)
    menu = bar.server_menu(McpServerView("web", "failed", 0, "boom"))

    assert [a.text() for a in menu.actions() if not a.isSeparator()] == ["boom", "重试"]


def test_the_same_servers_again_keep_their_labels(bar: StatusBar) -> None:
    servers = [McpServerView("time", "ready", 2)]
    bar.set_servers(servers)
    before = list(bar.servers)

    bar.set_servers(list(servers))

    assert bar.servers == before


def test_changed_servers_replace_the_old_labels(bar: StatusBar, qtbot: QtBot) -> None:
    bar.set_servers([McpServerView("time", "starting")])
    [old] = bar.servers

    with qtbot.wait_signal(old.destroyed, timeout=5000):
        bar.set_servers([McpServerView("time", "ready", 1), McpServerView("fs", "failed", 0, "boom")])

    assert [(label.text(), label.toolTip()) for label in bar.servers] == [
        (DOT.format("#2da44e") + "MCP time: ready, 1 tool", ""),
        (DOT.format("#cf222e") + "MCP fs: failed", "boom"),
    ]


def test_no_servers_removes_every_server_label(bar: StatusBar, qtbot: QtBot) -> None:
    bar.set_servers([McpServerView("time", "ready", 2)])
    [old] = bar.servers

    with qtbot.wait_signal(old.destroyed, timeout=5000):
        bar.set_servers([])

    assert bar.servers == []


def test_a_new_error_with_the_same_caption_updates_the_tooltip(bar: StatusBar) -> None:
    bar.set_servers([McpServerView("browser", "failed", 0, "exited with code 1")])

    bar.set_servers([McpServerView("browser", "failed", 0, "command not found: chromium")])

    assert [label.toolTip() for label in bar.servers] == ["command not found: chromium"]


@dataclass
class _Status:
    name: str
    state: str
    tool_count: int | None
    error: str | None
    tools: tuple[str, ...] | None = None


def test_server_views_adapt_anything_with_the_status_attributes() -> None:
    class Bare:
        pass

    views = server_views([
        _Status("time", "ready", 2, None, ("a", "b")), _Status("fs", "failed", None, "boom"), Bare()
    ])

    assert views == [
        McpServerView("time", "ready", 2, None, ("a", "b")),
        McpServerView("fs", "failed", 0, "boom"),
        McpServerView("?", "?", 0, None),
    ]
