"""Settings → Tools: an MCP bundle (.mcpb) chosen or dropped shows what it is
and asks for its settings (a sensitive one masked), installs into the data
folder and the servers file, and Remove uninstalls it; a bad bundle is one
line in the page's note. The server's log view shows its MCP log messages.
Pictures of the install dialog in both languages: /work/shots25/b/."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QCheckBox, QLineEdit
from pytestqt.qtbot import QtBot

from desktop_agent.mcp_engine import ServerStatus
from desktop_agent.mcp_engine.bundles import bundles_dir, read_bundle
from desktop_agent.mcp_engine.server_log import LogLine
from desktop_agent.storage.secrets import get_secret
from desktop_agent.storage.settings import Settings
from desktop_agent.testing.bundle_maker import make_bundle
from desktop_agent.texts import CHINESE, ENGLISH, Texts
from desktop_agent.ui.settings.bundle_dialog import BundleDialog
from desktop_agent.ui.settings.tools_page import McpControl, ToolsPage

SHOTS = Path("/work/shots25/b")


class Servers:
    def __init__(self) -> None:
        self.statuses: list[ServerStatus] = []
        self.reloads = 0
        self.logs: dict[str, list[LogLine]] = {}

    async def reload(self) -> None:
        self.reloads += 1


def _page(qtbot: QtBot, tmp_path: Path, servers: Servers, texts: Texts = ENGLISH) -> ToolsPage:
    path = tmp_path / "mcp_servers.json"
    path.write_text(json.dumps({"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}))
    control = McpControl(path, lambda: servers.statuses, servers.reload, logs=lambda name: servers.logs.get(name, []))
    page = ToolsPage(Settings(), control=control, texts=texts)
    qtbot.add_widget(page)
    return page


async def _until(condition: Callable[[], bool], timeout_s: float = 5) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.02)


def _mime(*paths: Path) -> QMimeData:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    return mime


@pytest.mark.parametrize(("texts", "lang"), [(ENGLISH, "en"), (CHINESE, "zh")])
def test_the_dialog_shows_the_bundle_and_asks_its_settings(
    qtbot: QtBot, tmp_path: Path, texts: Texts, lang: str
) -> None:
    dialog = BundleDialog(read_bundle(make_bundle(tmp_path / "greeter.mcpb")), texts)
    qtbot.add_widget(dialog)
    dialog.show()

    assert dialog.windowTitle() == texts.tr("bundle_title", name="Greeter")
    assert "Greeter" in dialog.heading.text() and "1.2.0" in dialog.heading.text()
    assert dialog.author.text() == texts.tr("bundle_author", author="Ada Lovelace")
    assert dialog.description.text() == "Greets people politely."
    assert dialog.tools.text() == texts.tr("bundle_tools", tools="greet")
    greeting, token, loud = (dialog.fields[k] for k in ("greeting", "api_token", "loud"))
    assert isinstance(greeting, QLineEdit) and greeting.text() == "Hello"
    assert isinstance(token, QLineEdit) and token.echoMode() == QLineEdit.EchoMode.Password
    assert isinstance(loud, QCheckBox) and not loud.isChecked()

    token.setText("sk-123")
    assert not dialog.error.isVisibleTo(dialog)
    path = tmp_path / f"bundle_install_dialog_{lang}.png"
    dialog.adjustSize()
    assert dialog.grab().save(str(path))
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, SHOTS / path.name)
    token.clear()
    with qtbot.assertNotEmitted(dialog.values_ready):
        dialog.install_button.click()
    assert dialog.error.isVisibleTo(dialog)
    assert dialog.error.text() == texts.tr("form_required", question="API token")
    token.setText("sk-123")
    with qtbot.waitSignal(dialog.values_ready) as ready:
        dialog.install_button.click()
    assert ready.args == [{"greeting": "Hello", "api_token": "sk-123", "loud": False}]


async def test_a_chosen_bundle_installs_and_remove_uninstalls_it(qtbot: QtBot, tmp_path: Path) -> None:
    servers = Servers()
    page = _page(qtbot, tmp_path, servers)
    dialog = page.bundles.open_path(make_bundle(tmp_path / "greeter.mcpb"))
    assert dialog is not None
    token = dialog.fields["api_token"]
    assert isinstance(token, QLineEdit)
    token.setText("sk-123")

    dialog.install_button.click()

    assert page.mcp_note.text() == "Installed greeter; the servers are restarting."
    saved = json.loads((tmp_path / "mcp_servers.json").read_text())["mcpServers"]
    assert list(saved) == ["time", "greeter"]
    assert "sk-123" not in json.dumps(saved) and get_secret("mcpb.greeter.api_token") == "sk-123"
    assert (bundles_dir() / "greeter" / "server" / "main.py").is_file()
    assert page.selected_name() == "greeter"
    await _until(lambda: not page.reloading())
    assert servers.reloads == 1

    page.remove_server()

    assert page.mcp_note.text() == "Uninstalled greeter; the servers are restarting."
    assert list(json.loads((tmp_path / "mcp_servers.json").read_text())["mcpServers"]) == ["time"]
    assert not (bundles_dir() / "greeter").exists()
    await _until(lambda: not page.reloading())
    assert servers.reloads == 2


@pytest.mark.parametrize(("texts", "note"), [
    (ENGLISH, "Not installed: notes.mcpb is not a zip file (an .mcpb bundle is one)"),
    (CHINESE, "未安装：notes.mcpb 不是 zip 文件（.mcpb 扩展包是 zip 文件）"),  # the engine named its UI text
])
def test_a_bad_bundle_is_one_line_and_installs_nothing(
    qtbot: QtBot, tmp_path: Path, texts: Texts, note: str
) -> None:
    page = _page(qtbot, tmp_path, Servers(), texts)
    bad = tmp_path / "notes.mcpb"
    bad.write_text("not a zip")

    assert page.bundles.open_path(bad) is None

    assert page.mcp_note.text() == note
    assert list(json.loads((tmp_path / "mcp_servers.json").read_text())["mcpServers"]) == ["time"]
    assert not bundles_dir().exists()


@pytest.mark.parametrize(("members", "manifest_text", "zh"), [
    ({}, "[1]", "未安装：manifest.json 不是 JSON 对象"),
    ({}, "{not json", "未安装：notes.mcpb：manifest.json 不是有效的 JSON"),
    ({"server": {"type": "ruby"}}, None, '未安装："server.type" 必须是 node, python, binary 之一，而不是 \'ruby\''),
])
def test_a_refused_bundle_is_said_in_chinese(
    qtbot: QtBot, tmp_path: Path, members: dict[str, object], manifest_text: str | None, zh: str
) -> None:
    from desktop_agent.testing.bundle_maker import manifest

    page = _page(qtbot, tmp_path, Servers(), CHINESE)
    data = manifest_text if manifest_text is not None else {**manifest(), **members}
    bad = make_bundle(tmp_path / "notes.mcpb", data)
    assert page.bundles.open_path(bad) is None
    assert page.mcp_note.text() == zh
    page.retranslate(ENGLISH)
    assert page.mcp_note.text().startswith("Not installed: ") and "不" not in page.mcp_note.text()


def test_a_bundle_dropped_on_the_page_opens_its_dialog(qtbot: QtBot, tmp_path: Path) -> None:
    page = _page(qtbot, tmp_path, Servers())
    bundle = make_bundle(tmp_path / "greeter.mcpb")
    buttons, mods = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    action = Qt.DropAction.CopyAction

    # Events hold the mime data without owning it: each is kept alive here.
    ours, theirs = _mime(bundle), _mime(tmp_path / "notes.txt")
    enter = QDragEnterEvent(QPoint(5, 5), action, ours, buttons, mods)
    page.dragEnterEvent(enter)
    assert enter.isAccepted()
    other = QDragEnterEvent(QPoint(5, 5), action, theirs, buttons, mods)
    other.ignore()
    page.dragEnterEvent(other)
    assert not other.isAccepted()

    page.dropEvent(QDropEvent(QPointF(5, 5), action, ours, buttons, mods))

    assert page.bundles.dialog is not None and page.bundles.dialog.isVisible()
    assert page.bundles.dialog.bundle.manifest.name == "greeter"


def test_the_log_view_shows_a_servers_messages_and_follows_them(qtbot: QtBot, tmp_path: Path) -> None:
    servers = Servers()
    servers.statuses = [ServerStatus("time", "failed", error="exited (stderr: ModuleNotFoundError)")]
    servers.logs["time"] = [LogLine("warning", "clock", "drift of 2 s", 0.0)]
    page = _page(qtbot, tmp_path, servers)
    page.select("time")

    view = page.show_log()

    assert view is not None and view.windowTitle() == "time — log"
    assert view.log.toPlainText().endswith("WARNING   [clock] drift of 2 s")
    assert view.stderr.text() == "exited (stderr: ModuleNotFoundError)"
    servers.logs["time"].append(LogLine("error", None, "gone", 1.0))
    view.refresh()
    assert view.log.toPlainText().splitlines()[-1].endswith("ERROR     gone")


def test_a_server_without_messages_says_so(qtbot: QtBot, tmp_path: Path) -> None:
    page = _page(qtbot, tmp_path, Servers(), CHINESE)
    page.select("time")

    view = page.show_log()

    assert view is not None and view.log.toPlainText() == "此服务器还没有发来消息。"
    assert not view.stderr.isVisibleTo(view)
