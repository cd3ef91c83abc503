"""Settings → Tools speaks Chinese throughout after a switch to Chinese,
the read-only section included (ui/settings/read_only_trust.py)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QListWidget
from pytestqt.qtbot import QtBot

from desktop_agent.storage.settings import Settings
from desktop_agent.texts import CHINESE, ENGLISH
from desktop_agent.ui.settings.tools_page import McpControl, ToolsPage

SHOTS = Path("/work/shots26/polish")
KEEP = {"notes", "web", "MCP", "Claude", "Desktop", "Cursor", "JSON", "Agent"}
"""Words a Chinese line keeps: the servers' names and product names."""


async def _reload() -> None:
    return None


def visible_words(page: ToolsPage) -> list[str]:
    texts: list[str] = []
    for widget in page.findChildren(QLabel) + page.findChildren(QAbstractButton):
        if widget.isVisibleTo(page):
            texts.append(widget.text())
    for listing in page.findChildren(QListWidget):
        texts.extend(listing.item(i).text() for i in range(listing.count()))
    return texts


def english_left(text: str) -> list[str]:
    return [w for w in re.findall(r"[A-Za-z]{2,}", text) if w not in KEEP]


def test_the_read_only_section_follows_a_switch_to_chinese(qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "mcp_servers.json"
    path.write_text(json.dumps({"mcpServers": {"notes": {"command": "x"}, "web": {"url": "https://example.com/mcp"}}}))
    page = ToolsPage(
        Settings(trusted_read_only_servers=("web",)), control=McpControl(path, list, _reload), texts=ENGLISH
    )
    qtbot.add_widget(page)
    assert page.trust.title.text() == "Read-only tools"
    page.retranslate(CHINESE)
    assert page.trust.title.text() == "只读工具" and page.trust.note.text() == CHINESE.tr("trust_note")
    assert [box.text() for box in page.trust.boxes.values()] == [
        "允许 notes 的只读工具无需询问", "允许 web 的只读工具无需询问",
    ]
    assert page.trust.trusted() == ["web"]
    left = {text: english_left(text) for text in visible_words(page) if english_left(text)}
    assert left == {}
    page.resize(760, 640)
    page.show()
    qtbot.wait_exposed(page)
    save(page, tmp_path, "tools_page_zh.png")
    page.retranslate(ENGLISH)
    assert page.trust.title.text() == "Read-only tools"
    assert page.trust.boxes["notes"].text() == "Allow read-only tools from notes without asking"
    save(page, tmp_path, "tools_page_en.png")


def save(page: ToolsPage, tmp_path: Path, name: str) -> None:
    QApplication.processEvents()
    shot = tmp_path / name
    assert page.grab().save(str(shot))
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot, SHOTS / name)
