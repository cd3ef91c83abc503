"""The Tools page's sign-in rows: "Sign-in needed" with **Sign in**,
"Signed in" with **Sign out**, a failed sign-in in one line — pictured in
both languages, and driven end to end against a real engine and the local
OAuth test server (the test plays the browser)."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import httpx2
import pytest
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from desktop_agent.mcp_engine import McpConfig, McpEngine, ServerConfig, ServerStatus
from desktop_agent.mcp_engine.oauth import OAuthManager, SignInState
from desktop_agent.storage.secrets import KeyStorage
from desktop_agent.storage.settings import Settings
from desktop_agent.testing.memory_keyring import memory_keyring
from desktop_agent.testing.oauth_servers import MemoryAuthServer, run_protected_server
from desktop_agent.texts import CHINESE, ENGLISH, Language, Texts
from desktop_agent.ui.settings.dialog import SettingsDialog
from desktop_agent.ui.settings.sign_in_box import SignInBox, SignInRow
from desktop_agent.ui.settings.tools_page import McpControl, ToolsPage

SHOTS = Path("/work/shots25/o")
SERVERS = {
    "mcpServers": {
        "time": {"command": "uvx", "args": ["mcp-server-time"]},
        "notion": {"url": "https://mcp.notion.example/mcp", "type": "http"},
        "linear": {"url": "https://mcp.linear.example/sse", "type": "sse"},
        "jira": {"url": "https://mcp.jira.example/mcp", "type": "http"},
    }
}
NEEDED = 'mcp server "notion" needs you to sign in (Settings → Tools, or --sign-in notion)'
STATUSES = (
    ServerStatus("time", "ready", 2, tools=("get_current_time", "convert_time")),
    ServerStatus("notion", "sign_in", error=NEEDED),
    ServerStatus("linear", "ready", 3, tools=("list_issues", "create_issue", "search")),
    ServerStatus("jira", "sign_in", error='sign-in to "jira" failed: the server refused: invalid_client'),
)
STATES = {
    "notion": SignInState("needed"),
    "linear": SignInState("signed_in"),
    "jira": SignInState("failed", "the server refused: invalid_client", "invalid_client"),
}


async def _no_reload() -> None:
    return None


async def _no_preview(_settings: Settings, _text: str) -> None:
    return None


def _shoot(qtbot: QtBot, widget: QWidget, path: Path) -> None:
    widget.show()
    qtbot.wait_exposed(widget)
    for _ in range(5):
        QApplication.processEvents()
    assert widget.grab().toImage().save(str(path))
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, SHOTS / path.name)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_tools_page_shows_each_remote_servers_sign_in(qtbot: QtBot, tmp_path: Path, language: Language) -> None:
    texts = Texts(language)
    zh = language == "zh"
    path = tmp_path / "mcp_servers.json"
    path.write_text(json.dumps(SERVERS), encoding="utf-8")
    control = McpControl(path, lambda: STATUSES, _no_reload, sign_ins=lambda: STATES)
    dialog = SettingsDialog(
        Settings(), has_api_key=True, key_note=KeyStorage("keyring"), mcp=control, preview_voice=_no_preview,
        texts=texts,
    )
    qtbot.add_widget(dialog)
    dialog.resize(820, 640)
    tools = dialog.tools_page
    dialog.show_page(tools)
    _shoot(qtbot, dialog, tmp_path / f"settings_tools_sign_in_{language}.png")

    box = tools.sign_ins
    assert box.isVisible() and list(box.lines) == ["notion", "linear", "jira"]  # file order; no stdio server
    assert box.title.text() == ("远程服务器登录" if zh else "Sign-in to remote servers")
    assert [(line.label.text(), line.button.text()) for line in box.lines.values()] == (
        [("notion：需要登录", "登录"), ("linear：已登录", "退出登录"),
         ("登录“jira”失败：服务器拒绝：invalid_client", "登录")] if zh
        else [("notion: sign-in needed", "Sign in"), ("linear: signed in", "Sign out"),
              ('sign-in to "jira" failed: the server refused: invalid_client', "Sign in")]
    )
    assert tools.server_lines()[1] == ("notion —— 需要登录" if zh else "notion — sign-in needed")
    assert tools.server_lines()[2] == ("linear —— 就绪 · 3 个工具" if zh else "linear — ready · 3 tools")


def test_the_box_follows_the_language_and_says_which_button(qtbot: QtBot) -> None:
    box = SignInBox(ENGLISH)
    qtbot.add_widget(box)
    assert box.isHidden()  # no remote server signs in
    box.set_rows([SignInRow("notion", "again"), SignInRow("linear", "signed_in"), SignInRow("x", "signing_in")])
    assert box.lines["notion"].label.text() == "notion: the sign-in has expired — sign in again"
    assert not box.lines["x"].button.isEnabled()  # the browser is open already
    pressed: list[tuple[str, str]] = []
    box.sign_in_requested.connect(lambda name: pressed.append(("in", name)))
    box.sign_out_requested.connect(lambda name: pressed.append(("out", name)))
    box.lines["notion"].button.click()
    box.lines["linear"].button.click()
    assert pressed == [("in", "notion"), ("out", "linear")]
    box.retranslate(CHINESE)
    assert box.lines["notion"].label.text() == "notion：登录已过期，请重新登录"
    assert box.lines["x"].label.text() == "x：请在浏览器中完成登录…"


async def _until(check: Callable[[], bool]) -> None:
    async with asyncio.timeout(30):
        while not check():
            await asyncio.sleep(0.02)


async def test_sign_in_and_out_from_the_tools_page_against_a_real_server(qtbot: QtBot, tmp_path: Path) -> None:
    visits: list[asyncio.Task[httpx2.Response]] = []

    async def visit(url: str) -> httpx2.Response:
        async with httpx2.AsyncClient(follow_redirects=True, timeout=10) as client:
            return await client.get(url)

    with memory_keyring(), run_protected_server(MemoryAuthServer()) as server:
        path = tmp_path / "mcp_servers.json"
        path.write_text(json.dumps({"mcpServers": {"remote": {"url": server.url, "type": "http"}}}), "utf-8")
        oauth = OAuthManager(open_url=lambda _name, url: visits.append(asyncio.ensure_future(visit(url))))
        engine = McpEngine(McpConfig(servers=(ServerConfig(name="remote", transport="http", url=server.url),)),
                           oauth=oauth)
        try:
            await engine.start()
            control = McpControl(
                path, engine.statuses, _no_reload, sign_ins=oauth.states, sign_in=engine.sign_in,
                sign_out=engine.sign_out,
            )
            page = ToolsPage(Settings(), control=control, texts=ENGLISH)
            qtbot.add_widget(page)
            line = page.sign_ins.lines["remote"]
            assert (line.label.text(), line.button.text()) == ("remote: sign-in needed", "Sign in")

            line.button.click()
            await _until(lambda: not page._sign_tasks)
            assert (line.label.text(), line.button.text()) == ("remote: signed in", "Sign out")
            assert page.server_lines()[0].startswith("remote — ready")
            assert len(visits) == 1 and visits[0].result().status_code == 200

            line.button.click()
            await _until(lambda: not page._sign_tasks)
            await _until(lambda: engine.statuses()[0].state == "sign_in")
            page.refresh()
            assert (line.label.text(), line.button.text()) == ("remote: sign-in needed", "Sign in")
        finally:
            await engine.aclose()
