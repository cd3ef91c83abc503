"""Start-up notices show once in the notice line above the input, each
dismissible, not as chat bubbles (ui/shell/notice_line.py)."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_agent.app_speech import no_audio_output
from desktop_agent.core.notice import Notice
from desktop_agent.services import AppliedSettings
from desktop_agent.storage.settings import Settings, SettingsStore
from desktop_agent.testing.window_rig import offline_deps
from desktop_agent.texts import CHINESE, ENGLISH, Texts
from desktop_agent.ui.chat.turn_deps import SettingsFeature
from desktop_agent.ui.shell.main_window import MainWindow
from desktop_agent.ui.shell.notice_line import START_UP, NoticeLine

SHOTS = Path("/work/shots26/polish")

BROKEN = Notice("skill x: name is missing", "skill_problem_missing", {"path": "x", "field": "name"}, frame="skill_problem")
SERVER = "tool 'echo' from MCP server 'notes' is hidden by a tool of the same name"
NO_OUTPUT = ENGLISH.tr("no_audio_output")


def applied(settings: Settings, *, key_changed: bool = False) -> AppliedSettings:
    return AppliedSettings("demo", True, None)


def start(qtbot: QtBot, warnings: tuple[object, ...], *, texts: Texts = ENGLISH) -> MainWindow:
    """A window as a session opens it: the settings read from the file the last one saved."""
    window = MainWindow(tray=False, texts=texts)
    qtbot.add_widget(window)
    deps = offline_deps(settings=SettingsStore().load().settings)
    window.attach(replace(deps, warnings=warnings, settings_feature=SettingsFeature(applied)))  # type: ignore[arg-type]
    return window


def saved() -> tuple[str, ...]:
    return SettingsStore().load().settings.dismissed_notices


def test_start_up_notices_show_in_the_notice_line_and_not_in_the_conversation(qtbot: QtBot) -> None:
    window = start(qtbot, (BROKEN, no_audio_output))
    assert window.notices.isVisibleTo(window)
    assert window.notices.shown() == ["⚠ skill x: name is missing", f"⚠ {NO_OUTPUT}"]
    assert window.chat.items() == [] or all(item is window.welcome for item in window.chat.items())
    assert window.notices.row(no_audio_output).close_button.toolTip() == ENGLISH.tr("notice_dismiss")


def test_a_dismissed_notice_stays_dismissed_in_later_sessions_until_its_condition_changes(qtbot: QtBot) -> None:
    first = start(qtbot, (BROKEN, no_audio_output))
    first.notices.row(no_audio_output).close_button.click()
    assert first.notices.shown() == ["⚠ skill x: name is missing"]
    assert saved() == (START_UP + NO_OUTPUT,)

    again = start(qtbot, (BROKEN, no_audio_output))  # the same condition, worded the same
    assert again.notices.shown() == ["⚠ skill x: name is missing"]
    again.notices.row(BROKEN).close_button.click()
    assert not again.notices.isVisibleTo(again)
    assert saved() == (START_UP + NO_OUTPUT, START_UP + BROKEN)

    fixed = start(qtbot, (BROKEN,))  # a speaker now: that dismissal is forgotten
    assert fixed.notices.shown() == [] and saved() == (START_UP + BROKEN,)
    back = start(qtbot, (BROKEN, no_audio_output))  # gone again: said again
    assert back.notices.shown() == [f"⚠ {NO_OUTPUT}"]


def test_a_notice_said_while_running_stays_dismissed_until_withdrawn(qtbot: QtBot) -> None:
    window = start(qtbot, ())
    assert window.notices.post(SERVER) and not window.notices.post(SERVER)  # shown once
    window.notices.row(SERVER).close_button.click()
    later = start(qtbot, ())  # a start-up without it says nothing of a runtime notice's condition
    assert later.notices.post(SERVER) is False and saved() == (SERVER,)
    later.notices.post(no_audio_output)
    later.notices.withdraw(no_audio_output)  # an output plugged in
    assert later.notices.shown() == [] and saved() == (SERVER,)


def test_the_notice_line_speaks_chinese_and_follows_a_language_switch(qtbot: QtBot, tmp_path: Path) -> None:
    window = start(qtbot, (BROKEN, no_audio_output), texts=CHINESE)
    window.notices.post(lambda texts: texts.tr("speech_offline_fallback"))
    window.resize(900, 600)
    window.show()
    qtbot.wait_exposed(window)
    assert window.notices.shown() == [
        "⚠ 技能 x：缺少 name 字段",
        f"⚠ {CHINESE.tr('no_audio_output')}",
        f"⚠ {CHINESE.tr('speech_offline_fallback')}",
    ]
    assert window.notices.row(no_audio_output).close_button.toolTip() == CHINESE.tr("notice_dismiss")
    shot(window, tmp_path, "notice_line_zh.png")
    window.retranslate(ENGLISH)
    assert window.notices.shown()[1:] == [f"⚠ {NO_OUTPUT}", f"⚠ {ENGLISH.tr('speech_offline_fallback')}"]
    shot(window, tmp_path, "notice_line_en.png")


def test_a_line_alone_shows_nothing_until_posted(qtbot: QtBot) -> None:
    line = NoticeLine(ENGLISH)
    qtbot.add_widget(line)
    assert line.isHidden() and line.shown() == []
    line.show_start_up((), (START_UP + "gone", "runtime"))
    assert line.dismissed == ("runtime",)


def shot(window: MainWindow, tmp_path: Path, name: str) -> None:
    for _ in range(5):
        QApplication.processEvents()
    path = tmp_path / name
    assert window.grab().save(str(path))
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, SHOTS / name)


def test_a_hidden_tool_warning_while_running_goes_to_the_notice_line_not_the_chat(qtbot: QtBot) -> None:
    from desktop_agent.app import _WindowListener

    window = start(qtbot, (), texts=CHINESE)
    hidden = Notice(SERVER, "notice_tool_shadowed", {"tool": "echo", "server": "notes"})
    listener = _WindowListener(window)
    listener.notice(hidden)
    listener.notice(hidden)  # said again (a reload): one row
    listener.speech_notice("speech_offline_fallback")
    assert window.notices.shown() == [
        "⚠ MCP 服务器 'notes' 的工具 'echo' 与内置工具同名，已被隐藏",
        f"⚠ {CHINESE.tr('speech_offline_fallback')}",
    ]
    assert window.chat.items() == []


def test_a_counting_notice_said_again_updates_its_row_and_one_dismissal_holds_for_every_count(qtbot: QtBot) -> None:
    def noise(count: int) -> Notice:
        return Notice(f'mcp server "ev" wrote {count} more lines that are not MCP (JSON-RPC) to its standard output; '
                      "they were ignored", "notice_mcp_stdout_noise_more", {"server": "ev", "count": count})

    window = start(qtbot, ())
    assert window.notices.post(noise(3)) and window.notices.post(noise(7))
    assert window.notices.shown() == [f"⚠ {noise(7)}"]  # one row, the latest count
    window.notices.row(noise(7)).close_button.click()
    assert saved() == ("notice_mcp_stdout_noise_more:server=ev",)
    assert not window.notices.post(noise(12)) and window.notices.shown() == []
