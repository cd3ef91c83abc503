"""The known kinds of failure are said in the window's language, the
engine's English line kept as the detail (ui/common/error_wording.py). The
lines come from the engines' own functions, so a changed wording there
fails here."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import httpx2
import openai
import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_agent.core.messages import ErrorMessage
from desktop_agent.core.tool_context import BusToolContext
from desktop_agent.llm.errors import to_llm_error
from desktop_agent.testing.bus_reader import RecordingBus
from desktop_agent.testing.window_rig import offline_deps
from desktop_agent.texts import CHINESE, ENGLISH
from desktop_agent.tools.run_command import RunCommandTool
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.turn_view import TurnView
from desktop_agent.ui.common.error_wording import error_kind, error_markdown, worded_error
from desktop_agent.ui.shell.main_window import MainWindow

SHOTS = Path("/work/shots26/polish")
URL = "http://127.0.0.1:8000/v1"
REQUEST = httpx2.Request("POST", f"{URL}/chat/completions")


def status(code: int, message: str) -> openai.APIStatusError:
    return openai.APIStatusError(
        f"Error code: {code}", response=httpx2.Response(code, request=REQUEST), body={"message": message}
    )


def caused(cause: BaseException) -> openai.APIConnectionError:
    error = openai.APIConnectionError(request=REQUEST)
    error.__cause__ = cause
    return error


def line(exc: Exception, *, started: bool = False) -> str:
    return to_llm_error(exc, base_url=URL, model="qwen2.5", api_key="sk-x", timeout_s=120, started=started).message


@pytest.mark.parametrize(
    ("exc", "started", "zh"),
    [
        (caused(ConnectionRefusedError(111, "Connection refused")), False, f"{URL} 拒绝了连接（模型服务器是否在运行？）"),
        (caused(socket.gaierror(-2, "Name or service not known")), False, f"找不到 {URL} 的主机（请检查地址和网络）"),
        (openai.APITimeoutError(REQUEST), False, f"{URL} 在 120 秒内没有应答"),
        (caused(ConnectionResetError(104, "reset")), False, f"无法连接 {URL}"),
        (status(401, "Incorrect API key"), False, f"{URL} 拒绝了 API 密钥（请在设置中检查密钥）"),
        (status(403, "no access"), False, f"{URL} 拒绝访问（请检查密钥的权限）"),
        (status(404, "model 'qwen2.5' not found"), False, f"在 {URL} 找不到模型 qwen2.5（请在设置中检查模型名称）"),
        (status(404, "page missing"), False, f"{URL} 返回 404 未找到（请检查接口地址）"),
        (status(429, "slow down"), False, f"{URL} 正在限制请求频率：请稍候再试"),
        (status(500, "boom"), False, f"模型服务器 {URL} 出错（HTTP 500）：请稍后再试"),
        (status(503, "loading"), False, f"模型服务器 {URL} 出错（HTTP 503）：请稍后再试"),
        (
            status(400, "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens"),
            False,
            "对话超出了模型的上下文长度：请开始新对话，或在设置中调小上下文大小",
        ),
        (
            status(400, "the request exceeds the available context size, try increasing it"),
            False,
            "对话超出了模型的上下文长度：请开始新对话，或在设置中调小上下文大小",
        ),
        (caused(ConnectionResetError(104, "reset")), True, f"来自 {URL} 的回复中途断开"),
    ],
)
def test_each_known_llm_failure_is_said_in_chinese_with_the_engine_line_as_detail(
    exc: Exception, started: bool, zh: str
) -> None:
    raw = line(exc, started=started)
    assert worded_error(CHINESE, raw) == (zh, raw)
    assert worded_error(ENGLISH, raw) == (raw, None)  # the engine's words are the English UI's


async def test_bad_tool_arguments_and_an_mcp_server_that_did_not_start_are_known_kinds() -> None:
    ctx = BusToolContext(RecordingBus("s1"), "call-1", "c1")
    result = await RunCommandTool().run({"command": 5}, ctx)
    assert result.is_error
    assert worded_error(CHINESE, result.text)[0] == "调用工具 run_command 时参数无效"
    started = 'mcp server "notes" failed to start: [Errno 2] No such file or directory: \'notes-mcp\''
    assert worded_error(CHINESE, started)[0] == "MCP 服务器 notes 启动失败"
    slow = 'mcp server "notes" did not start within 30 s'
    assert worded_error(CHINESE, slow)[0] == "MCP 服务器 notes 未能在 30 秒内启动"


def test_a_line_of_no_known_kind_is_shown_as_it_is() -> None:
    assert error_kind("HTTP 500 from the model server") is None
    assert worded_error(CHINESE, "something odd") == ("something odd", None)
    assert error_markdown(CHINESE, "错误", "something odd") == "**错误:** something odd"


def test_the_error_bubble_says_it_in_chinese_and_follows_a_switch(qtbot: QtBot, tmp_path: Path) -> None:
    window = MainWindow(tray=False, texts=CHINESE)
    qtbot.add_widget(window)
    window.attach(offline_deps())
    raw = line(caused(ConnectionRefusedError(111, "Connection refused")))
    TurnView(window.chat).notice(ErrorMessage(raw, "connection"))
    (bubble,) = [w for w in window.chat.items() if isinstance(w, MessageBubble)]
    assert bubble.text() == (
        f"**错误:** {URL} 拒绝了连接（模型服务器是否在运行？）\n\n"
        f"*详情: cannot reach {URL}: connection refused*"
    )
    window.resize(900, 600)
    window.show()
    qtbot.wait_exposed(window)
    save(window, tmp_path, "error_bubble_zh.png")
    window.retranslate(ENGLISH)
    assert bubble.text() == f"**Error:** {raw}"
    save(window, tmp_path, "error_bubble_en.png")


def save(window: MainWindow, tmp_path: Path, name: str) -> None:
    for _ in range(5):
        QApplication.processEvents()
    shot = tmp_path / name
    assert window.grab().save(str(shot))
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot, SHOTS / name)


async def test_a_server_that_failed_to_start_says_why_in_chinese_on_the_tools_page(
    qtbot: QtBot, tmp_path: Path
) -> None:
    import json

    from desktop_agent.mcp_engine import McpEngine
    from desktop_agent.mcp_engine.config import load_mcp_config
    from desktop_agent.storage.settings import Settings
    from desktop_agent.ui.settings.tools_page import McpControl, ToolsPage

    path = tmp_path / "mcp_servers.json"
    path.write_text(json.dumps({"mcpServers": {"notes": {"command": str(tmp_path / "no-such-program")}}}))
    engine = McpEngine(load_mcp_config(path))
    try:
        await engine.start()
        (status,) = engine.statuses()
        assert status.state == "failed" and status.error is not None
        assert status.error.startswith('mcp server "notes" failed to start')

        async def reload() -> None:
            return None

        page = ToolsPage(Settings(), control=McpControl(path, engine.statuses, reload), texts=CHINESE)
        qtbot.add_widget(page)
        page.refresh()
        assert page.servers.item(0).toolTip() == f"MCP 服务器 notes 启动失败\n{status.error}"
        page.retranslate(ENGLISH)
        assert page.servers.item(0).toolTip() == status.error
    finally:
        await engine.aclose()
