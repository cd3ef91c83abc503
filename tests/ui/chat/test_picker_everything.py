"""The pickers in the window over the real MCP engine and server-everything:
its prompts under ``/`` once it is up, ``completable-prompt``'s arguments
completed by the server (the second from the first), its resources and a
template under ``@`` with the template's variable completed, over stdio and
streamable HTTP; a reloaded engine is the one listed, through the app's own
composition too. Screenshots of the lists over the real server in both
languages (``/work/shots25/u/everything_*.png`` when that folder exists)."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from desktop_agent.app import window_deps
from desktop_agent.mcp_engine import McpConfig, McpEngine, ServerConfig
from desktop_agent.services import build_services
from desktop_agent.skills_engine import SkillInfo
from desktop_agent.testing.everything import RunningServer, everything_stdio, run_everything
from desktop_agent.testing.window_rig import offline_deps
from desktop_agent.texts import CHINESE, ENGLISH, Texts
from desktop_agent.ui.chat.engine_mentions import EngineMentions
from desktop_agent.ui.settings.mcp_feature import McpFeature
from desktop_agent.ui.shell.main_window import MainWindow

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("keep_loop_on_close")]

PROMPTS = [
    "/mcp__everything__simple-prompt", "/mcp__everything__args-prompt",
    "/mcp__everything__completable-prompt", "/mcp__everything__resource-prompt",
]


@pytest.fixture(scope="module")
def everything_http() -> Iterator[RunningServer]:
    with run_everything("streamableHttp", "/mcp") as server:
        yield server


SHOTS = Path("/work/shots25/u")


def _window(qtbot: QtBot, engines: list[McpEngine], texts: Texts = ENGLISH) -> MainWindow:
    """The window listing whichever engine is last in ``engines`` (a reload appends)."""
    window = MainWindow(tray=False, texts=texts)
    qtbot.add_widget(window)
    feature = McpFeature(lambda: engines[-1].statuses(), mentions=EngineMentions(lambda: engines[-1]))
    skill = SkillInfo("summarise", "Summarise a long text in a few lines", "bundled", Path("/skills/summarise"))
    window.attach(replace(offline_deps(), mcp=feature, skills=(skill,)))
    window.resize(800, 600)
    window.show()
    qtbot.wait_exposed(window)
    window.input.setFocus()
    return window


def _labels(window: MainWindow) -> list[str]:
    assert window.commands is not None
    popup = window.commands.picker.popup
    return [c.label for c in popup.choices] if popup.isVisible() else []


def _retype(window: MainWindow, text: str) -> None:
    window.input.clear()
    QTest.keyClicks(window.input, text)


async def _until(condition: Callable[[], bool], timeout_s: float = 20) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.02)


def _key(window: MainWindow, key: Qt.Key) -> None:
    QTest.keyClick(window.input, key)


async def test_stdio_prompts_appear_once_up_and_their_arguments_complete_through_the_server(qtbot: QtBot) -> None:
    engine = McpEngine(McpConfig(servers=(everything_stdio("everything"),)))
    window = _window(qtbot, [engine])
    try:
        _retype(window, "/mcp")
        assert _labels(window) == []  # not started yet: nothing to list
        assert await engine.start() == []
        _retype(window, "/mcp")
        assert _labels(window) == PROMPTS
        _retype(window, "/mcp__everything__comp")
        _key(window, Qt.Key.Key_Return)
        assert _labels(window) == ["department=", "name="]
        _key(window, Qt.Key.Key_Return)
        await _until(lambda: _labels(window) == ["Engineering", "Sales", "Marketing", "Support"])
        QTest.keyClicks(window.input, "Sa")
        await _until(lambda: _labels(window) == ["Sales"])
        _key(window, Qt.Key.Key_Tab)
        assert window.input.toPlainText() == "/mcp__everything__completable-prompt department=Sales "
        assert _labels(window) == ["name="]
        _key(window, Qt.Key.Key_Return)
        # the server narrows the names by the department already chosen
        await _until(lambda: _labels(window) == ["David", "Eve", "Frank"])
        _key(window, Qt.Key.Key_Down)
        _key(window, Qt.Key.Key_Return)
        assert window.input.toPlainText() == "/mcp__everything__completable-prompt department=Sales name=Eve "
        assert _labels(window) == []
    finally:
        await engine.aclose()


async def test_stdio_resources_and_a_template_under_at_with_the_variable_completed(qtbot: QtBot) -> None:
    engine = McpEngine(McpConfig(servers=(everything_stdio("everything"),)))
    window = _window(qtbot, [engine])
    try:
        assert await engine.start() == []
        _retype(window, "@")
        labels = _labels(window)
        assert "architecture.md" in labels
        assert labels[-2:] == ["Dynamic Text Resource", "Dynamic Blob Resource"]
        QTest.keyClicks(window.input, "architecture")
        _key(window, Qt.Key.Key_Return)
        assert window.input.toPlainText() == "@everything:demo://resource/static/document/architecture.md "
        _retype(window, "and @dynamic/text")
        assert _labels(window) == ["Dynamic Text Resource"]
        _key(window, Qt.Key.Key_Return)
        assert window.commands is not None
        field = window.commands.picker.popup.field
        assert field.hasFocus()
        QTest.keyClicks(field, "42")
        await _until(lambda: _labels(window) == ["42"])  # the server checks it is a positive integer
        QTest.keyClick(field, Qt.Key.Key_Return)
        assert window.input.toPlainText() == "and @everything:demo://resource/dynamic/text/42 "
    finally:
        await engine.aclose()


async def test_streamable_http_lists_and_completes_and_a_reloaded_engine_is_the_one_listed(
    qtbot: QtBot, everything_http: RunningServer
) -> None:
    web = McpEngine(McpConfig(servers=(ServerConfig(name="web", url=everything_http.url, transport="http"),)))
    engines = [web]
    window = _window(qtbot, engines)
    try:
        assert await web.start() == []
        _retype(window, "/mcp__web__args")
        assert _labels(window) == ["/mcp__web__args-prompt"]
        _retype(window, "/mcp__web__resource-prompt ")
        assert _labels(window) == ["resourceType=", "resourceId="]
        _key(window, Qt.Key.Key_Return)
        await _until(lambda: _labels(window) == ["Text", "Blob"])
        engines.append(McpEngine(McpConfig(servers=(everything_stdio("local"),))))
        assert await engines[-1].start() == []
        _retype(window, "/mcp")
        assert _labels(window) == [p.replace("everything", "local") for p in PROMPTS]
    finally:
        for engine in engines:
            await engine.aclose()


async def test_the_composed_window_lists_the_engine_a_reload_starts(qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"

    def serve(name: str) -> None:
        config = everything_stdio(name)
        path.write_text(json.dumps({"mcpServers": {name: {"command": config.command, "args": list(config.args)}}}))

    serve("first")
    services = await build_services(mcp_config=path, tts="none")
    try:
        window = MainWindow(tray=False)
        qtbot.add_widget(window)
        window.attach(window_deps(services, None))
        window.show()
        _retype(window, "/mcp")
        assert _labels(window) == [p.replace("everything", "first") for p in PROMPTS]
        serve("second")
        await services.reload_mcp()
        engine = services.mcp
        assert engine is not None
        await _until(lambda: [s.state for s in engine.statuses()] == ["ready"])
        _retype(window, "/mcp")
        assert _labels(window) == [p.replace("everything", "second") for p in PROMPTS]
    finally:
        await services.aclose()


def _save(window: MainWindow, tmp_path: Path, name: str) -> None:
    path = tmp_path / f"{name}.png"
    assert window.grab().save(str(path))
    if SHOTS.parent.is_dir():
        SHOTS.mkdir(exist_ok=True)
        shutil.copy(path, SHOTS / path.name)


@pytest.mark.parametrize("texts", [ENGLISH, CHINESE], ids=["en", "zh"])
async def test_screenshots_of_the_lists_over_server_everything(qtbot: QtBot, tmp_path: Path, texts: Texts) -> None:
    engine = McpEngine(McpConfig(servers=(everything_stdio("everything"),)))
    window = _window(qtbot, [engine], texts)
    language = texts.language
    try:
        assert await engine.start() == []
        window.refresh_status()
        _retype(window, "/")
        assert _labels(window) == ["/new", "/settings", "/help", "/summarise", *PROMPTS]
        _save(window, tmp_path, f"everything_slash_{language}")
        _retype(window, "@")
        assert "architecture.md" in _labels(window) and "Dynamic Text Resource" in _labels(window)
        _save(window, tmp_path, f"everything_at_{language}")
        _retype(window, "/mcp__everything__completable-prompt department=Engineering name=")
        await _until(lambda: _labels(window) == ["Alice", "Bob", "Charlie"])
        _save(window, tmp_path, f"everything_completion_{language}")
        _retype(window, "@dynamic/text")
        _key(window, Qt.Key.Key_Return)
        assert window.commands is not None
        QTest.keyClicks(window.commands.picker.popup.field, "7")
        await _until(lambda: _labels(window) == ["7"])
        _save(window, tmp_path, f"everything_template_{language}")
    finally:
        await engine.aclose()
