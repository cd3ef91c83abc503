"""Settings → Tools → Shared folders (``ui/settings/shared_folders.py``):
add a folder (shared with every server), share it with one server, remove
it; what the page hands back for Save; both languages, with pictures under
the test's folder and ``/work/shots25/s/`` when that folder can be made."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QFileDialog, QWidget
from pytestqt.qtbot import QtBot

from desktop_agent.mcp_engine import ServerStatus
from desktop_agent.storage.secrets import KeyStorage
from desktop_agent.storage.settings import Settings
from desktop_agent.texts import ENGLISH, Language, Texts
from desktop_agent.ui.settings.dialog import SettingsDialog
from desktop_agent.ui.settings.shared_folders import SharedFoldersBox
from desktop_agent.ui.settings.tools_page import McpControl

SHOTS = Path("/work/shots25/s")
SERVERS = {"mcpServers": {"everything": {"command": "node", "args": ["x.js"]}, "files": {"command": "fs"}}}
STATUSES = (ServerStatus("everything", "ready", 1, tools=("get-roots-list",)), ServerStatus("files", "ready", 0))


async def _no_reload() -> None:
    return None


def keep(qtbot: QtBot, widget: QWidget, tmp_path: Path, name: str) -> None:
    widget.show()
    qtbot.wait_exposed(widget)
    QApplication.processEvents()
    path = tmp_path / name
    assert widget.grab().save(str(path))
    try:
        SHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, SHOTS / name)
    except OSError:
        pass


def test_add_share_with_one_server_and_remove(qtbot: QtBot, tmp_path: Path) -> None:
    box = SharedFoldersBox(ENGLISH, {}, ["everything", "files"])
    qtbot.add_widget(box)
    assert box.lines() == ["No folder is shared"]
    assert not box.remove.isEnabled() and not box.scope.isEnabled()
    changes: list[None] = []
    box.changed.connect(lambda: changes.append(None))

    box.add_folder(str(tmp_path / "notes"))
    box.add_folder(str(tmp_path / "code"))
    box.share_with("files")
    box.add_folder(str(tmp_path / "notes"))  # already there: selected, not added twice

    assert box.lines() == [f"{tmp_path / 'notes'} — all servers", f"{tmp_path / 'code'} — only files"]
    assert box.folders() == {str(tmp_path / "notes"): (), str(tmp_path / "code"): ("files",)}
    assert box.list.currentRow() == 0 and box.scope.currentText() == "All servers"
    assert [box.scope.itemText(i) for i in range(box.scope.count())] == ["All servers", "everything", "files"]
    box.list.setCurrentRow(1)
    assert box.scope.currentText() == "files"
    box.remove_selected()
    assert box.folders() == {str(tmp_path / "notes"): ()}
    assert len(changes) == 4


def test_the_picker_chooses_folders_only(qtbot: QtBot) -> None:
    box = SharedFoldersBox(ENGLISH)
    qtbot.add_widget(box)
    dialog = box.choose_folder()
    try:
        assert dialog.fileMode() == QFileDialog.FileMode.Directory
        dialog.fileSelected.emit("/srv/shared")
        assert box.folders() == {"/srv/shared": ()}
    finally:
        dialog.close()


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_tools_page_shows_and_saves_the_shared_folders(qtbot: QtBot, tmp_path: Path, language: Language) -> None:
    texts = Texts(language)
    servers = tmp_path / "mcp_servers.json"
    servers.write_text(json.dumps(SERVERS), encoding="utf-8")
    settings = Settings(shared_folders={"/home/me/notes": (), "/home/me/code": ("files",)})
    dialog = SettingsDialog(
        settings, has_api_key=False, key_note=KeyStorage("keyring"),
        mcp=McpControl(servers, lambda: STATUSES, _no_reload), texts=texts,
    )
    qtbot.add_widget(dialog)
    tools = dialog.tools_page
    box = tools.shared_folders
    zh = language == "zh"

    assert box.title.text() == ("共享文件夹" if zh else "Shared folders")
    assert box.lines() == (
        ["/home/me/notes —— 所有服务器", "/home/me/code —— 仅 files"] if zh
        else ["/home/me/notes — all servers", "/home/me/code — only files"]
    )
    assert [box.scope.itemText(i) for i in range(box.scope.count())][1:] == ["everything", "files"]
    box.list.setCurrentRow(1)
    assert box.scope.currentText() == "files"
    assert box.add.text() == ("添加文件夹…" if zh else "Add folder…")
    dialog.resize(820, 900)
    dialog.show_page(tools)
    keep(qtbot, dialog, tmp_path, f"shared_folders_{language}.png")

    box.list.setCurrentRow(0)
    box.share_with("everything")
    assert tools.apply_to(settings).shared_folders == {
        "/home/me/notes": ("everything",), "/home/me/code": ("files",),
    }
