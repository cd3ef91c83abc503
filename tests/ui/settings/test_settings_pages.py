"""The Settings dialog's pages with real widgets: the Model page
against a scripted endpoint on loopback, the Tools page against the real
services (servers file written, engine reloaded), the Appearance page
switching the language of what is open, and Ctrl+, opening it all."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from desktop_agent.mcp_engine import servers_file
from desktop_agent.services import Services, build_services
from desktop_agent.storage.settings import Settings
from desktop_agent.testing.mcp_servers import gated_entry
from desktop_agent.testing.scripted_server import Reply, ScriptedLLMServer, text_reply
from desktop_agent.testing.window_rig import offline_deps
from desktop_agent.texts import CHINESE, ENGLISH, Language, Texts
from desktop_agent.ui.common import theme
from desktop_agent.ui.settings.dialog import SettingsDialog
from desktop_agent.ui.settings.mcp_feature import McpFeature
from desktop_agent.ui.settings.tools_page import McpControl
from desktop_agent.ui.shell.main_window import MainWindow


async def _until(condition: Callable[[], bool], timeout_s: float = 15) -> None:
    """Wait on the running (qasync) loop; qtbot.waitUntil would spin a nested one."""
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.02)


@pytest.fixture(autouse=True)
def _appearance_restored() -> Iterator[None]:
    yield
    theme.set_theme_choice("system")


def _dialog(qtbot: QtBot, settings: Settings | None = None, texts: Texts = ENGLISH, **kw: object) -> SettingsDialog:
    dialog = SettingsDialog(settings or Settings(), texts=texts, **kw)  # type: ignore[arg-type]
    qtbot.add_widget(dialog)
    return dialog


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# ------------------------------------------------------------------ Model


def test_a_preset_fills_the_address_and_an_address_shows_its_preset(qtbot: QtBot) -> None:
    page = _dialog(qtbot).model_page
    index = page.preset.findText("DeepSeek")
    page.preset.setCurrentIndex(index)
    page.preset.activated.emit(index)
    assert page.base_url.text() == "https://api.deepseek.com/v1"
    page.base_url.setText("http://localhost:11434/v1")
    assert page.preset.currentText() == "Ollama"
    page.base_url.setText("http://my-box:9000/v1")
    assert page.preset.currentText() == "Custom"


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_bad_address_is_said_in_words_under_the_field(qtbot: QtBot, language: Language) -> None:
    dialog = _dialog(qtbot, texts=Texts(language))
    dialog.base_url.setText("localhost:8000")
    assert dialog.model_page.address_note.text() == {
        "en": "The address must start with http:// or https://",
        "zh": "地址必须以 http:// 或 https:// 开头",
    }[language]
    dialog.base_url.setText("http://localhost:8000/v1")
    assert dialog.model_page.address_note.isHidden()


async def test_fetch_models_fills_a_filtered_combo(qtbot: QtBot) -> None:
    page = _dialog(qtbot).model_page
    async with ScriptedLLMServer([], models=("gpt-4o", "gpt-4o-mini", "deepseek-chat")) as server:
        page.base_url.setText(server.base_url)
        page.fetch.click()
        await _until(lambda: not page.busy())
    assert page.result.text() == "3 models found — type to filter"
    assert [page.model.itemText(i) for i in range(page.model.count())] == ["deepseek-chat", "gpt-4o", "gpt-4o-mini"]
    assert page.model.text() == "deepseek-chat"  # it was empty: the first is taken
    assert page.model.matching("4O-M") == ["gpt-4o-mini"]
    assert page.model.matching("gpt") == ["gpt-4o", "gpt-4o-mini"]


async def test_test_connection_shows_latency_and_the_answer(qtbot: QtBot) -> None:
    page = _dialog(qtbot, Settings(model="scripted")).model_page
    async with ScriptedLLMServer([text_reply("pong")]) as server:
        page.base_url.setText(server.base_url)
        page.api_key.setText("sk-typed")
        page.test.click()
        assert not page.test.isEnabled() and page.result.text() == "Sending a test message…"
        await _until(lambda: not page.busy())
        assert server.requests[0]["model"] == "scripted"
    text = page.result.text()
    assert text.startswith("Connected in ") and text.endswith(" ms — the model answered: “pong”"), text
    assert page.test.isEnabled()


@pytest.mark.parametrize("language", ["en", "zh"])
async def test_a_refused_port_and_a_bad_key_are_one_translated_line(qtbot: QtBot, language: Language) -> None:
    texts = Texts(language)
    page = _dialog(qtbot, texts=texts).model_page
    page.base_url.setText(f"http://127.0.0.1:{_closed_port()}/v1")
    page.test.click()
    await _until(lambda: not page.busy())
    assert page.result.text() == texts.tr("model_fail_refused")
    async with ScriptedLLMServer([Reply(status=401, error_message="invalid key")]) as server:
        page.base_url.setText(server.base_url)
        page.test.click()
        await _until(lambda: not page.busy())
    assert page.result.text() == texts.tr("model_fail_auth", detail="401")
    assert "\n" not in page.result.text()
    assert ("密钥" in page.result.text()) == (language == "zh")


# ------------------------------------------------------------------ Tools


@pytest.fixture
async def running(tmp_path: Path) -> Iterator[tuple[Services, Path]]:  # type: ignore[misc]
    path = tmp_path / "mcp_servers.json"
    path.write_text(json.dumps({"mcpServers": {}, "max_sandboxes": 3}))
    (tmp_path / "gate").touch()
    services = await build_services(mcp_config=path, tts="none", start_mcp=False)
    services.start_mcp_in_background()
    try:
        yield services, path
    finally:
        await services.aclose()


def _control(services: Services, path: Path) -> McpControl:
    return McpControl(path, lambda: services.mcp.statuses() if services.mcp else [], services.reload_mcp)


async def test_servers_added_edited_switched_off_and_removed_run_at_once(
    qtbot: QtBot, running: tuple[Services, Path]
) -> None:
    services, path = running
    dialog = _dialog(qtbot, mcp=_control(services, path))
    page = dialog.tools_page
    assert page.server_lines() == []

    editor = page.add_server()
    entry = gated_entry(path.parent / "gate")
    editor.name.setText("gated")
    editor.command.setText(entry["command"])
    editor.args.setText(" ".join(entry["args"]))
    editor.env.setPlainText("GREETING=hi")
    editor.buttons.accepted.emit()
    assert not editor.isVisible()
    saved = json.loads(path.read_text())
    assert saved == {"mcpServers": {"gated": {**entry, "env": {"GREETING": "hi"}}}, "max_sandboxes": 3}
    await _until(lambda: page.server_lines() == ["gated — ready · 2 tools"])
    assert services.router.lookup("greet") is not None  # the running app has its tools
    # The server can be trusted for its read-only tools from here, off by default.
    assert list(page.trust.boxes) == ["gated"] and not page.trust.boxes["gated"].isChecked()
    page.trust.boxes["gated"].setChecked(True)
    assert page.apply_to(Settings()).trusted_read_only_servers == ("gated",)

    page.select("gated")
    editor2 = page.edit_server()
    assert editor2 is not None and editor2.env.toPlainText() == "GREETING=hi"
    editor2.name.setText("greeter")
    editor2.buttons.accepted.emit()
    await _until(lambda: page.server_lines() == ["greeter — ready · 2 tools"])
    assert list(servers_file.entries(json.loads(path.read_text()))) == ["greeter"]

    page.servers.item(0).setCheckState(Qt.CheckState.Unchecked)
    await _until(lambda: page.server_lines() == ["greeter — off"] and not page.reloading())
    assert json.loads(path.read_text())["mcpServers"]["greeter"]["enabled"] is False
    assert services.router.lookup("greet") is None

    page.select("greeter")
    page.remove.click()
    await _until(lambda: not page.reloading())
    assert page.server_lines() == [] and services.mcp is not None and services.mcp.statuses() == []
    assert json.loads(path.read_text()) == {"mcpServers": {}, "max_sandboxes": 3}


def test_the_editor_says_what_is_missing_in_words(qtbot: QtBot) -> None:
    from desktop_agent.ui.settings.mcp_server_editor import McpServerEditor

    editor = McpServerEditor(taken=frozenset({"time"}), texts=CHINESE)
    qtbot.add_widget(editor)
    editor.name.setText("time")
    editor.buttons.accepted.emit()
    assert editor.error.text() == "已有名为 time 的服务器"
    editor.name.setText("web")
    editor.transport.setCurrentIndex(editor.transport.findData("http"))
    editor.url.setText("example.com/mcp")
    editor.buttons.accepted.emit()
    assert editor.error.text() == "地址必须以 http:// 或 https:// 开头"
    editor.url.setText("https://example.com/mcp")
    with qtbot.wait_signal(editor.entry_ready) as got:
        editor.buttons.accepted.emit()
    assert got.args == ["web", {"type": "http", "url": "https://example.com/mcp"}]


async def test_import_merges_a_claude_desktop_file_and_renames_a_clash(
    qtbot: QtBot, running: tuple[Services, Path]
) -> None:
    services, path = running
    gate = path.parent / "gate"
    path.write_text(json.dumps({"mcpServers": {"gated": {**gated_entry(gate), "timeout_s": 9}}}))
    await services.reload_mcp()
    claude = path.parent / "claude_desktop_config.json"
    claude.write_text(json.dumps({"mcpServers": {"gated": gated_entry(gate), "remote": {"url": "http://127.0.0.1:9/mcp", "disabled": True}}}))
    page = _dialog(qtbot, mcp=_control(services, path)).tools_page
    assert page.import_file(claude)
    assert page.mcp_note.text() == "Imported 2 servers. Renamed to avoid a clash: gated → gated-2."
    saved = servers_file.entries(json.loads(path.read_text()))
    assert list(saved) == ["gated", "gated-2", "remote"] and saved["gated"]["timeout_s"] == 9
    await _until(lambda: page.server_lines() == ["gated — ready · 2 tools", "gated-2 — ready · 2 tools", "remote — off"])


# ------------------------------------------------------- Appearance, Ctrl+,


def _window(qtbot: QtBot, settings: Settings | None = None) -> MainWindow:
    window = MainWindow(tray=False)
    qtbot.add_widget(window)
    deps = offline_deps()
    window.attach(replace(deps, settings=settings or deps.settings))
    window.show()
    qtbot.wait_exposed(window)
    return window


def test_ctrl_comma_opens_settings(qtbot: QtBot) -> None:
    window = _window(qtbot)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)  # a sync test: no qasync loop to spin
    QTest.keyClick(window.input, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    dialog = window.settings_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.page_titles() == ["Model", "Voice", "Tools", "Approval history", "Skills", "Hooks", "Appearance"]
    dialog.reject()


def test_switching_the_language_changes_the_open_texts_at_once_and_cancel_puts_it_back(qtbot: QtBot) -> None:
    window = _window(qtbot)
    dialog = window.open_settings()
    assert dialog is not None
    dialog.appearance_page.choose_language("zh")
    assert (window.texts, dialog.texts) == (CHINESE, CHINESE)
    assert dialog.windowTitle() == "设置" and dialog.page_titles()[:3] == ["模型", "语音", "工具"]
    assert dialog.model_page.fetch.text() == "获取模型列表"
    assert dialog.skills_page.intro.text() == CHINESE.tr("skills_intro") and "技能" in CHINESE.tr("skills_intro")
    hooks = dialog.page(dialog.page_titles().index("钩子"))
    assert hooks.findChildren(QLabel)[0].text() == CHINESE.tr("hooks_intro", folder="")
    assert dialog.buttons.button(dialog.buttons.StandardButton.Cancel).text() == "取消"
    assert window.input.placeholderText() in (CHINESE.tr("input_placeholder"), CHINESE.tr("input_placeholder_short"))
    assert window.send_button.text() == CHINESE.tr("send")
    assert window.settings_button.toolTip() == "设置…"
    system_window = QApplication.palette().color(QPalette.ColorRole.Window).name()
    dialog.appearance_page.choose_theme("dark")
    assert theme.DARK.window in window.styleSheet()
    # Labels and inputs take the palette: a forced theme sets it too.
    assert QApplication.palette().color(QPalette.ColorRole.Window).name() == theme.DARK.window
    dialog.reject()
    assert QApplication.palette().color(QPalette.ColorRole.Window).name() == system_window
    assert window.texts == ENGLISH and window.settings_button.toolTip() == "Settings…"
    assert theme.LIGHT.window in window.styleSheet() or theme.DARK.window in window.styleSheet()


def test_a_saved_language_and_theme_apply_and_come_back_at_attach(qtbot: QtBot) -> None:
    window = _window(qtbot)
    dialog = window.open_settings()
    assert dialog is not None
    dialog.appearance_page.choose_language("zh")
    dialog.appearance_page.choose_theme("dark")
    with qtbot.wait_signal(dialog.saved) as got:
        dialog.buttons.accepted.emit()
    assert (got.args[0].settings.language, got.args[0].settings.theme) == ("zh", "dark")
    assert window.settings.language == "zh" and window.texts == CHINESE
    theme.set_theme_choice("system")
    again = _window(qtbot, replace(Settings(), language="zh", theme="dark"))
    assert again.texts == CHINESE and again.settings_button.toolTip() == "设置…"
    assert theme.DARK.window in again.styleSheet()


# ------------------------------------------------------------------ Voice


async def test_the_voice_preview_speaks_the_pages_choice_before_it_is_saved(qtbot: QtBot) -> None:
    heard: list[tuple[str, str, str, str]] = []

    async def preview(settings: Settings, text: str) -> None:
        heard.append((settings.tts_engine, settings.voice, settings.tts_rate, text))

    dialog = _dialog(qtbot, Settings(tts_engine="edge"), preview_voice=preview)
    page = dialog.voice_page
    assert page.play.isEnabled() and page.play.toolTip() == "Hear this voice"
    page.voice.setCurrentText("en-GB-SoniaNeural")
    page.rate.setValue(20)
    page.play.click()
    task = page.playing()
    assert task is not None
    await task
    assert heard == [("edge", "en-GB-SoniaNeural", "+20%", "Hello! This is how I sound.")]
    assert dialog.edit().settings.tts_rate == "+20%" and page.play.isEnabled()


def test_without_a_speaker_the_preview_is_off_and_says_why(qtbot: QtBot) -> None:
    page = _dialog(qtbot, Settings(tts_rate="-10%")).voice_page
    assert not page.play.isEnabled()
    assert page.play.toolTip() == "No speaker: there is no audio output to play a sample"
    assert page.rate.value() == -10


async def test_the_apps_preview_plays_a_sample_through_the_speaker() -> None:
    from desktop_agent.app_speech import voice_preview
    from desktop_agent.testing.fake_sink import FakeAudioSink

    assert voice_preview(None) is None
    sink = FakeAudioSink(auto_finish_s=0)
    preview = voice_preview(sink)
    assert preview is not None
    await preview(Settings(tts_engine="silent"), "hello")
    assert len(sink.plays) == 1 and sink.plays[0][1].startswith("audio/")
    with pytest.raises(RuntimeError, match="Off — text only"):
        await preview(Settings(tts_engine="none"), "hello")


async def test_choosing_another_servers_file_runs_its_servers(qtbot: QtBot, tmp_path: Path) -> None:
    from desktop_agent.ui.settings.dialog import SettingsEdit

    reloads: list[str] = []

    async def reload() -> None:
        reloads.append("reload")

    window = MainWindow(tray=False)
    qtbot.add_widget(window)
    deps = offline_deps()
    window.attach(replace(deps, mcp=McpFeature(list, reload=reload, servers_file=lambda: tmp_path / "mcp.json")))
    window.apply_settings_edit(SettingsEdit(replace(window.settings, max_steps=3)))
    window.apply_settings_edit(SettingsEdit(replace(window.settings, mcp_config_path=str(tmp_path / "other.json"))))
    await _until(lambda: reloads == ["reload"])
    dialog = window.open_settings()
    assert dialog is not None and dialog.tools_page.add.isEnabled()  # statuses, file and reload: editable
    dialog.reject()
