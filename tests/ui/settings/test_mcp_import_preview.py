"""Settings → Tools → Import shows what it would do first: a server here
already is skipped, a name clash is chosen (add numbered, replace, skip),
and a second import of the same file adds nothing
(ui/settings/mcp_import_preview.py)."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_agent.mcp_engine import ServerStatus
from desktop_agent.storage.settings import Settings
from desktop_agent.texts import CHINESE, ENGLISH, Language, Texts
from desktop_agent.ui.settings.tools_page import McpControl, ToolsPage

SHOTS = Path("/work/shots26/polish")
NOTES = {"command": "npx", "args": ["-y", "notes-server"]}
TIME = {"command": "uvx", "args": ["mcp-server-time"]}
CLAUDE: dict[str, Any] = {
    "mcpServers": {
        "notes": {"type": "stdio", "command": "npx", "args": ["-y", "notes-server"], "env": {}},
        "time": {"command": "uvx", "args": ["mcp-server-time", "--local-timezone", "Asia/Shanghai"]},
        "brave search": {"command": "npx", "args": ["-y", "brave"]},
        "broken": {"args": ["x"]},
    }
}
WORDS = {
    "en": [
        "already here as notes — skipped",
        "another server here is named time:",
        "new — will be added as brave-search",
        "cannot be used — skipped: has neither “command” (a program to run) nor “url” (a remote server)",
    ],
    "zh": [
        "已存在（notes）—— 跳过",
        "这里已有另一个名为 time 的服务器：",
        "新的 —— 将添加为 brave-search",
        "无法使用 —— 跳过：既没有“command”（要运行的程序）也没有“url”（远程服务器）",
    ],
}


class Servers:
    def __init__(self) -> None:
        self.statuses: list[ServerStatus] = []
        self.reloads = 0

    async def reload(self) -> None:
        self.reloads += 1


def _page(qtbot: QtBot, tmp_path: Path, servers: Servers, texts: Texts) -> ToolsPage:
    path = tmp_path / "mcp_servers.json"
    path.write_text(json.dumps({"mcpServers": {"notes": NOTES, "time": TIME}}))
    page = ToolsPage(Settings(), control=McpControl(path, lambda: servers.statuses, servers.reload), texts=texts)
    qtbot.add_widget(page)
    return page


async def _until(condition: Callable[[], bool], timeout_s: float = 5) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.02)


def _saved(tmp_path: Path) -> dict[str, Any]:
    servers: dict[str, Any] = json.loads((tmp_path / "mcp_servers.json").read_text(encoding="utf-8"))["mcpServers"]
    return servers


@pytest.mark.parametrize("language", ["en", "zh"])
async def test_the_preview_lists_each_server_and_writes_nothing_until_import(
    qtbot: QtBot, tmp_path: Path, language: Language
) -> None:
    texts = Texts(language)
    servers = Servers()
    page = _page(qtbot, tmp_path, servers, texts)
    claude = tmp_path / "claude_desktop_config.json"
    claude.write_text(json.dumps(CLAUDE, ensure_ascii=False), encoding="utf-8")
    before = (tmp_path / "mcp_servers.json").read_text()
    dialog = page.preview_import(claude)
    assert dialog is not None and page.import_preview is dialog
    assert [label.text() for label in dialog.words.values()] == WORDS[language]
    assert dialog.windowTitle() == texts.tr("mcp_import_preview_title")
    choice = dialog.clash_choices["time"]
    assert [choice.itemText(i) for i in range(choice.count())] == [
        texts.tr("mcp_import_choice_rename", target="time-2"),
        texts.tr("mcp_import_choice_replace"),
        texts.tr("mcp_import_choice_skip"),
    ]
    assert dialog.import_button.isEnabled() and dialog.import_button.text() == texts.tr("mcp_import_do")
    assert (tmp_path / "mcp_servers.json").read_text() == before  # nothing written yet
    dialog.resize(640, 260)
    dialog.show()
    qtbot.wait_exposed(dialog)
    for _ in range(3):
        QApplication.processEvents()
    shot = tmp_path / f"mcp_import_preview_{language}.png"
    assert dialog.grab().save(str(shot))
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot, SHOTS / shot.name)
    choice.setCurrentIndex(1)  # replace the one here
    dialog.import_button.click()
    assert list(_saved(tmp_path)) == ["notes", "time", "brave-search"]  # no notes-2
    assert _saved(tmp_path)["time"] == CLAUDE["mcpServers"]["time"]
    await _until(lambda: not page.reloading())
    assert servers.reloads == 1
    if language == "en":
        assert page.mcp_note.text().startswith("Imported 1 server. Replaced: time. Renamed to a valid name: brave search")


async def test_a_second_import_of_the_same_file_opens_no_preview_and_adds_nothing(
    qtbot: QtBot, tmp_path: Path
) -> None:
    servers = Servers()
    page = _page(qtbot, tmp_path, servers, ENGLISH)
    claude = tmp_path / "claude_desktop_config.json"
    claude.write_text(json.dumps(CLAUDE), encoding="utf-8")
    dialog = page.preview_import(claude)
    assert dialog is not None
    dialog.import_button.click()  # the clash as offered: time-2
    await _until(lambda: not page.reloading())
    first = _saved(tmp_path)
    assert list(first) == ["notes", "time", "time-2", "brave-search"]
    assert page.preview_import(claude) is None  # nothing new: no dialog
    assert page.mcp_note.text().startswith("Nothing new: these servers are already here.")
    assert _saved(tmp_path) == first and servers.reloads == 1
    page.retranslate(CHINESE)
    assert page.mcp_note.text().startswith("没有新内容：这些服务器已经存在。")


async def test_cancel_writes_nothing(qtbot: QtBot, tmp_path: Path) -> None:
    servers = Servers()
    page = _page(qtbot, tmp_path, servers, ENGLISH)
    claude = tmp_path / "claude_desktop_config.json"
    claude.write_text(json.dumps(CLAUDE), encoding="utf-8")
    before = (tmp_path / "mcp_servers.json").read_text()
    dialog = page.preview_import(claude)
    assert dialog is not None
    dialog.reject()
    assert (tmp_path / "mcp_servers.json").read_text() == before and servers.reloads == 0
