"""Settings → Tools: importing a Claude Desktop / Cursor file
with names those hosts allow, every servers-file problem said in the
window's language, the Import dialog opening where those files live, a
ready server's tools in its tooltip, and the "restarting" note giving way
once the servers are up (tests/artifacts/mcp_import_zh.png)."""

from __future__ import annotations

import asyncio
import errno
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, get_args

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_agent.mcp_engine import ServerStatus
from desktop_agent.mcp_engine.config_errors import McpConfigError, McpProblemCode, ValueKind
from desktop_agent.storage.settings import Settings
from desktop_agent.texts import CHINESE, ENGLISH, Language, Texts
from desktop_agent.ui.settings.mcp_wording import problem
from desktop_agent.ui.settings.tools_page import McpControl, ToolsPage

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
CLAUDE: dict[str, Any] = {
    "mcpServers": {
        "brave search": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-brave-search"]},
        "文件": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "~"]},
        "ok": {"url": "https://example.com/mcp"},
        "broken": {"args": ["x"]},
    },
    "globalShortcut": "Ctrl+Space",
}
OUTCOME = {
    "en": (
        "Imported 3 servers. Renamed to a valid name: brave search → brave-search, 文件 → server. "
        "Skipped: broken (has neither “command” (a program to run) nor “url” (a remote server))."
    ),
    "zh": (
        "已导入 3 个服务器。已改为有效的名称：brave search → brave-search、文件 → server。"
        "已跳过：broken（既没有“command”（要运行的程序）也没有“url”（远程服务器））。"
    ),
}
KEYWORDS = frozenset({
    "mcpServers", "servers", "command", "url", "JSON", "UTF", "stdio", "sse", "http", "https",
    "shared", "per_conversation", "true", "false", "enabled", "disabled",
})
"""What may stay English in a Chinese line: the file's own keys and values."""


class Servers:
    """The running servers as the page sees them, changed by the test."""

    def __init__(self) -> None:
        self.statuses: list[ServerStatus] = []
        self.reloads = 0

    async def reload(self) -> None:
        self.reloads += 1


def _page(
    qtbot: QtBot, tmp_path: Path, servers: Servers, doc: dict[str, Any] | None = None, texts: Texts = ENGLISH
) -> ToolsPage:
    path = tmp_path / "mcp_servers.json"
    path.write_text(json.dumps(doc or {"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}))
    page = ToolsPage(Settings(), control=McpControl(path, lambda: servers.statuses, servers.reload), texts=texts)
    qtbot.add_widget(page)
    return page


async def _until(condition: Callable[[], bool], timeout_s: float = 5) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.02)


@pytest.mark.parametrize("language", ["en", "zh"])
async def test_odd_names_are_imported_renamed_and_a_broken_server_is_skipped_and_named(
    qtbot: QtBot, tmp_path: Path, language: Language
) -> None:
    servers = Servers()
    page = _page(qtbot, tmp_path, servers, texts=Texts(language))
    claude = tmp_path / "claude_desktop_config.json"
    claude.write_text(json.dumps(CLAUDE, ensure_ascii=False), encoding="utf-8")
    assert page.import_file(claude)
    assert page.mcp_note.text() == OUTCOME[language]
    saved = json.loads((tmp_path / "mcp_servers.json").read_text(encoding="utf-8"))
    assert list(saved["mcpServers"]) == ["time", "brave-search", "server", "ok"]
    await _until(lambda: not page.reloading())
    assert servers.reloads == 1
    assert page.mcp_note.text() == OUTCOME[language]  # the outcome stays to be read
    page.retranslate(Texts(language))
    assert page.mcp_note.text() == OUTCOME[language]
    if language == "zh":
        page.resize(720, 420)
        page.show()
        qtbot.wait_exposed(page)
        for _ in range(5):
            QApplication.processEvents()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        assert page.grab().toImage().save(str(ARTIFACTS / "mcp_import_zh.png"))


@pytest.mark.parametrize(
    ("text", "en", "zh"),
    [
        (
            '{"mcpServers":[1]}',
            "Nothing imported: “mcpServers” must be an object (server name → settings)",
            "未导入：“mcpServers”必须是对象（服务器名称 → 设置）",
        ),
        (
            '{"mcpServers": {"a": }}',
            "Nothing imported: {path} is not valid JSON (line 1, column 22)",
            "未导入：{path} 不是有效的 JSON（第 1 行第 22 列）",
        ),
        ('{"theme": "dark"}', "Nothing imported: the file has no “mcpServers”", "未导入：文件中没有“mcpServers”"),
        (
            '{"mcpServers": {"broken": {"args": []}}}',
            "Nothing imported: no server can be used — broken (has neither “command” (a program to run) "
            "nor “url” (a remote server))",
            "未导入：没有可用的服务器 —— broken（既没有“command”（要运行的程序）也没有“url”（远程服务器））",
        ),
    ],
)
def test_a_refused_import_says_why_after_one_prefix(
    qtbot: QtBot, tmp_path: Path, text: str, en: str, zh: str
) -> None:
    claude = tmp_path / "claude_desktop_config.json"
    claude.write_text(text, encoding="utf-8")
    servers = Servers()
    page = _page(qtbot, tmp_path, servers)
    before = (tmp_path / "mcp_servers.json").read_text()
    languages: tuple[tuple[Language, str], ...] = (("en", en), ("zh", zh))
    for language, expected in languages:
        page.retranslate(Texts(language))
        assert not page.import_file(claude)
        assert page.mcp_note.text() == expected.format(path=claude)
    assert (tmp_path / "mcp_servers.json").read_text() == before and servers.reloads == 0


def test_a_broken_servers_file_of_ours_also_fails_the_import_with_the_same_prefix(
    qtbot: QtBot, tmp_path: Path
) -> None:
    page = _page(qtbot, tmp_path, Servers(), texts=CHINESE)
    ours = tmp_path / "mcp_servers.json"
    ours.write_text('{"mcpServers": ', encoding="utf-8")
    claude = tmp_path / "claude.json"
    claude.write_text(json.dumps(CLAUDE), encoding="utf-8")
    assert not page.import_file(claude)
    assert page.mcp_note.text() == f"未导入：{ours} 不是有效的 JSON（第 1 行第 16 列）"


def _sample(code: McpProblemCode) -> McpConfigError:
    """Each code with the values the engine gives it."""
    fields: dict[McpProblemCode, dict[str, object]] = {
        "missing_file": {"path": "/p/x.json"},
        "not_regular": {"path": "/p/x.json"},
        "too_large": {"path": "/p/x.json", "limit": "1 MB"},
        "unreadable": {"path": "/p/x.json", "error": "Permission denied", "errno": errno.EACCES},
        "not_utf8": {"path": "/p/x.json"},
        "not_json": {"path": "/p/x.json", "line": 1, "column": 22, "error": "Expecting value"},
        "too_deep": {"path": "/p/x.json"},
        "number_too_long": {"path": "/p/x.json"},
        "duplicate_key": {"key": "mcpServers"},
        "not_object": {"path": "/p/x.json"},
        "servers_missing": {"path": "/p/x.json"},
        "servers_not_object": {"path": "/p/x.json", "key": "mcpServers"},
        "servers_empty": {"path": "/p/x.json", "key": "mcpServers"},
        "bad_value": {"server": "甲", "key": "command", "expected": "string", "got": "1"},
        "bad_name": {"server": "甲"},
        "server_not_object": {"server": "甲"},
        "url_on_stdio": {"server": "甲"},
        "command_required": {"server": "甲"},
        "no_command_or_url": {"server": "甲"},
        "command_and_url": {"server": "甲", "transport": "http"},
        "url_scheme": {"server": "甲", "transport": "sse"},
        "enabled_contradicts": {"server": "甲"},
    }
    return McpConfigError("mcp config: (the English line)", code, **fields[code])


def _english_words(text: str, values: list[object]) -> list[str]:
    for value in values:
        text = text.replace(str(value), " ")
    text = re.sub(r"https?://", " ", text)
    return [word for word in re.findall(r"[A-Za-z][A-Za-z_]*", text) if word not in KEYWORDS]


@pytest.mark.parametrize("code", get_args(McpProblemCode))
def test_every_problem_is_worded_in_chinese(code: McpProblemCode) -> None:
    exc = _sample(code)
    text = problem(CHINESE, exc)
    assert "English line" not in text
    values = [v for k, v in exc.fields.items() if k not in ("error", "expected")]
    assert _english_words(text, values) == [], text
    assert "English line" not in problem(ENGLISH, exc)


@pytest.mark.parametrize("kind", get_args(ValueKind))
def test_every_expected_value_is_worded_in_chinese(kind: ValueKind) -> None:
    exc = McpConfigError("mcp config: x", "bad_value", key="timeout_s", expected=kind, got="'soon'")
    text = problem(CHINESE, exc)
    assert _english_words(text, ["timeout_s", "'soon'"]) == [], text
    assert text.endswith("，而不是 'soon'")


def test_a_failed_save_is_worded_with_the_os_reason() -> None:
    exc = PermissionError(errno.EACCES, "Permission denied", "/p/mcp_servers.json")
    assert problem(CHINESE, exc) == "无法写入 /p/mcp_servers.json（没有权限）"


def test_the_editor_words_an_engine_refusal(qtbot: QtBot) -> None:
    from desktop_agent.ui.settings.mcp_server_editor import McpServerEditor

    editor = McpServerEditor("s", {"command": "x", "timeout_s": "soon"}, texts=CHINESE)
    qtbot.add_widget(editor)
    editor.buttons.accepted.emit()
    assert editor.error.text() == "“timeout_s”必须是正数（秒），而不是 'soon'"


@pytest.mark.parametrize(
    ("platform", "folder", "file"),
    [
        ("linux", ".config/Claude", "claude_desktop_config.json"),
        ("darwin", "Library/Application Support/Claude", "claude_desktop_config.json"),
        ("linux", ".cursor", "mcp.json"),
        ("linux", None, None),
    ],
)
def test_the_import_dialog_opens_where_the_hosts_keep_their_file(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, platform: str, folder: str | None, file: str | None
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setattr(sys, "platform", platform)
    if folder is not None and file is not None:
        (home / folder).mkdir(parents=True)
        (home / folder / file).write_text("{}", encoding="utf-8")
    page = _page(qtbot, tmp_path, Servers())
    dialog = page.choose_import()
    try:
        start = home / folder if folder else home
        assert Path(dialog.directory().absolutePath()) == start
        assert dialog.nameFilters() == ["JSON (*.json)"]
        if file is not None:
            assert [Path(p).name for p in dialog.selectedFiles()] == [file]
    finally:
        dialog.reject()


def test_a_ready_servers_tooltip_lists_its_tools(qtbot: QtBot, tmp_path: Path) -> None:
    servers = Servers()
    servers.statuses = [ServerStatus("time", "ready", 2, tools=("get_current_time", "convert_time"))]
    page = _page(qtbot, tmp_path, servers)
    page.refresh()
    item = page.servers.item(0)
    assert item.text() == "time — ready · 2 tools"
    assert item.toolTip() == "time — ready · 2 tools\nget_current_time\nconvert_time"
    servers.statuses = [ServerStatus("time", "failed", error='mcp server "time": uvx: command not found')]
    page.refresh()
    assert item.toolTip() == 'mcp server "time": uvx: command not found'


@pytest.mark.parametrize("language", ["en", "zh"])
async def test_the_restarting_note_gives_way_once_the_servers_are_up(
    qtbot: QtBot, tmp_path: Path, language: Language
) -> None:
    texts = Texts(language)
    servers = Servers()
    servers.statuses = [ServerStatus("time", "ready", 1, tools=("get_current_time",))]
    page = _page(qtbot, tmp_path, servers, texts=texts)
    page.servers.item(0).setCheckState(Qt.CheckState.Unchecked)
    page.servers.item(0).setCheckState(Qt.CheckState.Checked)
    servers.statuses = [ServerStatus("time", "starting")]
    assert page.mcp_note.text() == texts.tr("mcp_saved")
    await _until(lambda: not page.reloading())
    page.refresh()
    assert page.mcp_note.text() == texts.tr("mcp_saved")  # still starting
    servers.statuses = [ServerStatus("time", "ready", 1, tools=("get_current_time",))]
    await _until(lambda: page.mcp_note.text() != texts.tr("mcp_saved"))  # the page's own timer
    assert page.mcp_note.text() == {"en": "Servers ready.", "zh": "服务器已就绪。"}[language]


async def test_a_server_that_failed_is_named_instead(qtbot: QtBot, tmp_path: Path) -> None:
    servers = Servers()
    page = _page(qtbot, tmp_path, servers)
    page.servers.item(0).setCheckState(Qt.CheckState.Unchecked)
    page.servers.item(0).setCheckState(Qt.CheckState.Checked)
    servers.statuses = [ServerStatus("time", "failed", error="x")]
    await _until(lambda: not page.reloading())
    page.refresh()
    assert page.mcp_note.text() == "Servers restarted; not running: time (hover over one for why)."


def test_one_imported_server_is_said_in_the_singular() -> None:
    from desktop_agent.mcp_engine.servers_file import ImportOutcome
    from desktop_agent.ui.settings.mcp_wording import import_outcome

    assert import_outcome(ENGLISH, ImportOutcome(added=("time",))) == (True, "Imported 1 server.")
    assert import_outcome(ENGLISH, ImportOutcome(added=("a", "b"))) == (True, "Imported 2 servers.")


def test_nothing_new_but_something_skipped_says_both_not_imported_0() -> None:
    from desktop_agent.mcp_engine.config_errors import McpConfigError
    from desktop_agent.mcp_engine.servers_file import ImportOutcome
    from desktop_agent.ui.settings.mcp_wording import import_outcome

    broken = McpConfigError("mcp config: server 'x' needs a command", "no_command_or_url", server="x")
    ok, line = import_outcome(ENGLISH, ImportOutcome(unchanged=("time",), skipped=(("x", broken),)))
    assert ok and line.startswith("Nothing new: these servers are already here. Skipped: x (")
