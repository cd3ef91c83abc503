"""The start-up and runtime warnings in Chinese (every visible string is
translated, the system lines included): each file set aside, each
broken skill or hooks file and each hidden tool reads in Chinese in the
window but for file names, keywords and the values it quotes, while the
English line (log, headless mode) stays word for word what it was."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop_agent.app import window_deps
from desktop_agent.core.messages import ErrorMessage
from desktop_agent.core.notice import Notice
from desktop_agent.core.ports import ToolSpec
from desktop_agent.hooks_engine import load_hooks
from desktop_agent.services import Services, build_services
from desktop_agent.storage.settings import SettingsStore
from desktop_agent.texts import CHINESE, ENGLISH
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.turn_events import NoticeLevel
from desktop_agent.ui.chat.turn_view import TurnView
from desktop_agent.ui.shell.main_window import MainWindow
from desktop_agent.ui.shell.notice_wording import notice_text

KEYWORDS = ("JSON", "MCP", "UTF-8", "SKILL.md", "hooks.json", "name", "description", "mcpServers")
"""Words a Chinese line may keep: format names and file keywords."""


def english_left(text: str, home: Path) -> list[str]:
    """English words of ``text`` once paths, file names and keywords are out."""
    text = re.sub(r"\S*(?:corrupt-\d+|\.json|\.sqlite3|SKILL\.md)\S*", " ", text.replace(str(home), " "))
    for keyword in KEYWORDS:
        text = text.replace(keyword, " ")
    return re.findall(r"[A-Za-z]{2,}", text)


def break_everything(home: Path) -> None:
    """A corrupt settings file, servers file and conversations database, a
    broken user skill and a hooks file that is not JSON."""
    (home / "settings.json").write_text("{not json")
    (home / "mcp_servers.json").write_text("[1, 2")
    (home / "conversations.sqlite3").write_bytes(b"this is not a database" * 100)
    skill = home / "skills" / "broken"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\ndescription: no name here\n---\n\n# Steps\n")
    (home / "hooks").mkdir()
    (home / "hooks" / "hooks.json").write_text("[{")


def expected_english(home: Path) -> list[str]:
    return [
        f"saved conversations in {home / 'conversations.sqlite3'} could not be read; "
        "kept the file as conversations.sqlite3.corrupt-1 and started afresh",
        f"settings file {home / 'settings.json'} is not valid JSON (line 1, column 2); "
        "kept it as settings.json.corrupt-1 and started with defaults",
        f"mcp config: {home / 'mcp_servers.json'} is not valid JSON (line 1, column 6: Expecting ',' delimiter); "
        "kept it as mcp_servers.json.corrupt-1 and started with the default servers",
        f"skill {home / 'skills' / 'broken' / 'SKILL.md'}: name is missing; the skill is skipped",
        f"hooks file {home / 'hooks' / 'hooks.json'} is not valid JSON (line 1, column 3); its hooks are not used",
    ]


async def broken_services(home: Path) -> Services:
    break_everything(home)
    return await build_services(tts="none", start_mcp=False, keep_conversations=True)


async def test_the_english_lines_stay_as_the_log_and_the_headless_mode_say_them(_private_home: Path) -> None:
    services = await broken_services(_private_home)
    try:
        assert [str(w) for w in services.startup_warnings] == expected_english(_private_home)
        assert all(isinstance(w, Notice) for w in services.startup_warnings)
    finally:
        await services.aclose()


async def test_the_window_shows_each_start_up_warning_in_chinese(
    qtbot: QtBot, _private_home: Path
) -> None:
    services = await broken_services(_private_home)
    window = MainWindow(tray=False, texts=CHINESE)
    qtbot.add_widget(window)
    try:
        deps = window_deps(services, None)
        window.attach(deps)
        shown = window.notices.shown()  # the notice line above the input, not the conversation
        assert len(shown) == len(expected_english(_private_home)) + 1  # and no speaker
        assert not [w for w in window.chat.items() if isinstance(w, MessageBubble)]
        for line in shown:
            assert line.startswith("⚠ ")
            assert re.search(r"[\u4e00-\u9fff]", line), line
            assert english_left(line.removeprefix("⚠ "), _private_home) == [], line
        assert [str(w) for w in services.startup_warnings] == expected_english(_private_home)
    finally:
        window.close()
        await services.aclose()


async def test_warnings_follow_a_language_switch(qtbot: QtBot, _private_home: Path) -> None:
    services = await broken_services(_private_home)
    window = MainWindow(tray=False, texts=ENGLISH)
    qtbot.add_widget(window)
    try:
        window.attach(window_deps(services, None))
        TurnView(window.chat).notice(ErrorMessage("HTTP 500 from the model server", "server"))
        window.show_notice(NoticeLevel.WARNING, lambda texts: texts.tr("mic_stt_error", error="no model"))

        def warnings() -> list[str]:
            return [w.text() for w in window.chat.items() if isinstance(w, MessageBubble) and w.role != "user"]

        english = warnings()
        assert window.notices.shown()[:5] == [f"⚠ {line}" for line in expected_english(_private_home)]
        assert english == ["**Error:** HTTP 500 from the model server", ENGLISH.tr("mic_stt_error", error="no model")]
        started = window.notices.shown()
        window.retranslate(CHINESE)
        chinese = warnings()
        assert len(window.notices.shown()) == len(started) == 6
        for line in window.notices.shown():
            assert line.startswith("⚠ ") and re.search(r"[\u4e00-\u9fff]", line), line
            assert english_left(line.removeprefix("⚠ "), _private_home) == [], line
        assert chinese[0] == "**错误:** HTTP 500 from the model server"  # the server's words stay as they came
        assert chinese[1] == CHINESE.tr("mic_stt_error", error="no model")
        window.retranslate(ENGLISH)
        assert warnings() == english and window.notices.shown() == started
    finally:
        window.close()
        await services.aclose()


async def test_a_tool_hidden_by_a_built_in_is_said_in_chinese(monkeypatch: pytest.MonkeyPatch) -> None:
    services = await build_services(tts="none", start_mcp=False)
    try:
        hidden = ToolSpec(name="read_file", description="", server="files")
        monkeypatch.setattr(services.router, "shadowed", lambda: [hidden])
        (line,) = services._new_shadowed()
        assert line == "tool 'read_file' from MCP server 'files' is hidden by a tool of the same name"
        assert notice_text(CHINESE, line) == "MCP 服务器 'files' 的工具 'read_file' 与内置工具同名，已被隐藏"
        assert services._new_shadowed() == []  # said once
    finally:
        await services.aclose()


@pytest.mark.parametrize(
    ("raw", "english_end"),
    [
        ("{}", "must hold a JSON list of hooks; its hooks are not used"),
        ("[" * 100_000, "is nested too deeply; its hooks are not used"),
        ('[{"prompt_file": "p.md"}]', 'hook #1 has no "name" (a non-empty string); skipped'),
    ],
)
def test_each_hooks_file_problem_is_said_in_chinese(tmp_path: Path, raw: str, english_end: str) -> None:
    (tmp_path / "hooks.json").write_text(raw)
    (line,) = load_hooks(tmp_path / "none", tmp_path).warnings
    assert str(line).startswith(f"hooks file {tmp_path / 'hooks.json'}") and str(line).endswith(english_end)
    worded = notice_text(CHINESE, line)
    assert re.search(r"[\u4e00-\u9fff]", worded) and english_left(worded, tmp_path) == [], worded


def test_a_broken_hook_is_said_as_on_the_hooks_page(tmp_path: Path) -> None:
    entry = {"name": "x", "checkpoint": "never", "role": "system", "prompt_file": "p.md"}
    (tmp_path / "hooks.json").write_text(json.dumps([entry]))
    catalog = load_hooks(tmp_path / "none", tmp_path)
    ((info, _hook),) = catalog.entries
    (line,) = catalog.warnings
    assert info.problem is not None and line == info.problem and info.problem.key == "hook_problem_checkpoint"
    assert notice_text(CHINESE, line) == CHINESE.tr("hook_problem_checkpoint", **info.problem.fields)
    assert notice_text(CHINESE, line).startswith(f"钩子文件 {tmp_path / 'hooks.json'}：钩子 'x' 的 \"checkpoint\" 必须是")


def test_in_english_the_window_shows_the_line_itself() -> None:
    line = Notice("settings file x is broken", "notice_save_failed")
    assert notice_text(ENGLISH, line) == "settings file x is broken"
    assert notice_text(CHINESE, "a plain line") == "a plain line"


def test_a_notice_is_its_english_line_and_frozen() -> None:
    line = Notice("the line", "notice_save_failed", {"a": "b"})
    assert (line, str(line), line.english, dict(line.fields)) == ("the line", "the line", "the line", {"a": "b"})
    with pytest.raises(AttributeError):
        line.key = "other"
    assert json.dumps([line]) == '["the line"]'


@pytest.mark.parametrize(
    ("raw", "english_problem"),
    [
        (b'{"volume": 5}', "settings: volume must be between 0 and 1, got 5 (in "),
        (b"[]", "settings: the file must hold a JSON object (in "),
        (b'{"model": "caf\xe9"}', "is not UTF-8 text"),
        (b"[" * 100_000, "is nested too deeply to be settings"),
    ],
)
def test_each_settings_file_problem_is_said_in_chinese(
    tmp_path: Path, raw: bytes, english_problem: str
) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(raw)
    line = SettingsStore(path).load().error
    assert line is not None and english_problem in line
    assert line.endswith("; kept it as settings.json.corrupt-1 and started with defaults")
    worded = notice_text(CHINESE, line)
    assert worded.startswith(f"设置文件 {path}：") and worded.endswith("已将其另存为 settings.json.corrupt-1，并使用默认设置启动")
    assert english_left(worded.replace("volume", ""), tmp_path) == [], worded
