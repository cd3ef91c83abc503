"""Screenshots of every Settings page and the MCP server editor,
in English and Chinese, saved to tests/artifacts/ and checked for what they
show: settings_{model,voice,tools,skills,appearance}_{en,zh}.png and
mcp_editor_{en,zh}.png."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from desktop_agent.mcp_engine import ServerStatus
from desktop_agent.storage.secrets import KeyStorage
from desktop_agent.storage.settings import Settings
from desktop_agent.texts import Language, Texts
from desktop_agent.ui.settings.dialog import SettingsDialog
from desktop_agent.ui.settings.mcp_server_editor import McpServerEditor
from desktop_agent.ui.settings.tools_page import McpControl
from tests.ui.settings.test_skills_page import SKILLS

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
SETTINGS = Settings(
    base_url="https://api.deepseek.com/v1",
    model="deepseek-chat",
    tts_engine="edge",
    voice="en-US-AriaNeural",
    tts_rate="+10%",
    always_allow=("time/get_current_time", "builtin/run_command"),
    enabled_skills=("bilingual-reply", "git-helper"),
)
SERVERS = {
    "mcpServers": {
        "time": {"command": "uvx", "args": ["mcp-server-time"], "timeout_s": 30},
        "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "~/Documents"],
                  "env": {"LOG_LEVEL": "info"}},
        "search": {"url": "https://mcp.example.com/sse", "type": "sse", "disabled": True},
    }
}
STATUSES = (
    ServerStatus("time", "ready", 2, tools=("get_current_time", "convert_time")),
    ServerStatus("files", "failed", 0, error='mcp server "files": npx: command not found'),
    ServerStatus("search", "disabled"),
)


async def _no_reload() -> None:
    return None


async def _no_preview(_settings: Settings, _text: str) -> None:
    return None


def _shoot(qtbot: QtBot, widget: QWidget, name: str) -> None:
    widget.show()
    qtbot.wait_exposed(widget)
    for _ in range(5):
        QApplication.processEvents()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert widget.grab().toImage().save(str(ARTIFACTS / name))


@pytest.mark.parametrize("language", ["en", "zh"])
def test_every_settings_page_screenshot(qtbot: QtBot, tmp_path: Path, language: Language) -> None:
    texts = Texts(language)
    path = tmp_path / "mcp_servers.json"
    path.write_text(json.dumps(SERVERS), encoding="utf-8")
    dialog = SettingsDialog(
        SETTINGS, has_api_key=True, key_note=KeyStorage("keyring"),
        skills=SKILLS, skills_folder="/home/me/skills",
        mcp=McpControl(path, lambda: STATUSES, _no_reload), preview_voice=_no_preview, texts=texts,
    )
    qtbot.add_widget(dialog)
    dialog.resize(800, 600)
    zh = language == "zh"

    model = dialog.model_page
    model.result.setText(texts.tr("model_test_ok", ms=412, answer="pong"))
    dialog.show_page(model)
    _shoot(qtbot, dialog, f"settings_model_{language}.png")
    assert model.preset.currentText() == "DeepSeek" and model.model.text() == "deepseek-chat"
    assert model.fetch.text() == ("获取模型列表" if zh else "Fetch models")
    assert model.result.isVisible() and "412" in model.result.text()
    assert model.forget_key.isVisible() and model.address_note.isHidden()
    assert model.key_note.text() == ("保存在系统密钥环中" if zh else "Stored in the system keyring")

    voice = dialog.voice_page
    dialog.show_page(voice)
    _shoot(qtbot, dialog, f"settings_voice_{language}.png")
    assert (voice.engine(), voice.tts_engine.currentText(), voice.voice.currentText(), voice.rate.value()) == (
        "edge", "Edge（在线）" if zh else "Edge (online)", "en-US-AriaNeural", 10)
    assert voice.play.isEnabled() and voice.stt.isVisible() and voice.barge_in_note.isVisible()

    tools = dialog.tools_page
    dialog.show_page(tools)
    _shoot(qtbot, dialog, f"settings_tools_{language}.png")
    assert tools.server_lines() == (
        ["time —— 就绪 · 2 个工具", "files —— 启动失败", "search —— 已关闭"] if zh
        else ["time — ready · 2 tools", "files — failed", "search — off"]
    )
    raw = 'mcp server "files": npx: command not found'
    assert tools.servers.item(1).toolTip() == (f"MCP 服务器 files 出现问题\n{raw}" if zh else raw)  # the engine's line under
    assert tools.allowed.count() == 2 and tools.import_button.isEnabled()
    assert list(tools.trust.boxes) == ["time", "files", "search"]  # read-only trust, per server

    dialog.show_page(dialog.skills_page)
    _shoot(qtbot, dialog, f"settings_skills_{language}.png")
    assert [r.checkbox.isChecked() for r in dialog.skills_page.rows] == [True, False, True, False]

    appearance = dialog.appearance_page
    dialog.show_page(appearance)
    _shoot(qtbot, dialog, f"settings_appearance_{language}.png")
    assert appearance.language.currentText() == ("跟随系统" if zh else "System language")
    assert [appearance.language.itemText(i) for i in (1, 2)] == ["English", "中文"]
    assert appearance.theme.currentText() == ("跟随系统" if zh else "System")
    assert dialog.page_titles() == (
        ["模型", "语音", "工具", "审批记录", "技能", "外观"] if zh
        else ["Model", "Voice", "Tools", "Approval history", "Skills", "Appearance"]
    )

    tools.select("files")
    editor = tools.edit_server()
    assert isinstance(editor, McpServerEditor)
    editor.resize(560, 380)
    _shoot(qtbot, editor, f"mcp_editor_{language}.png")
    assert editor.windowTitle() == ("编辑 MCP 服务器" if zh else "Edit the MCP server")
    assert (editor.name.text(), editor.command.text(), editor.env.toPlainText()) == (
        "files", "npx", "LOG_LEVEL=info")
    assert editor.args.text() == "-y @modelcontextprotocol/server-filesystem ~/Documents"
    assert editor.command.isVisible() and not editor.url.isVisible()
    editor.reject()
