"""The main window's own wiring, without a running turn (plain qtbot);
turns run in tests/integration/test_window_turns.py on a qasync loop."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from desktop_agent.core.speech_stream import SpeechStream
from desktop_agent.mcp_engine import ServerStatus
from desktop_agent.services import AppliedSettings
from desktop_agent.storage.history_json import history_items, history_json
from desktop_agent.storage.settings import Settings, SettingsStore
from desktop_agent.testing.tool_facts import FixedKey
from desktop_agent.testing.window_rig import offline_deps
from desktop_agent.texts import ENGLISH
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.turn_deps import ConversationKeeper, SettingsFeature
from desktop_agent.ui.settings.dialog import SettingsEdit
from desktop_agent.ui.settings.mcp_feature import McpFeature
from desktop_agent.ui.shell.main_window import MainWindow
from desktop_agent.ui.shell.status_bar import server_views


class RecordingApplier:
    """Stands in for ``Services.apply_settings``: records each call."""

    def __init__(self, model: str = "demo", error_for: str | None = None) -> None:
        self.calls: list[tuple[Settings, bool]] = []
        self._model = model
        self._error_for = error_for

    def __call__(self, settings: Settings, *, key_changed: bool = False) -> AppliedSettings:
        self.calls.append((settings, key_changed))
        if self._error_for is not None and settings.base_url.startswith(self._error_for):
            return AppliedSettings(self._model, False, None, f"base URL {settings.base_url!r} must start with http://")
        return AppliedSettings(self._model, False, None)


class FakeSink:
    """Records what the window tells the speaker."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    async def play(self, audio: bytes, mime: str) -> None:
        self.calls.append(("play", mime))

    async def play_stream(self, stream: SpeechStream) -> None:
        self.calls.append(("play", stream.mime))

    def stop(self) -> None:
        self.calls.append(("stop", None))

    def set_volume(self, volume: float) -> None:
        self.calls.append(("volume", volume))

    def set_muted(self, muted: bool) -> None:
        self.calls.append(("muted", muted))


@pytest.fixture
def window(qtbot: QtBot) -> MainWindow:
    w = MainWindow(tray=False)
    qtbot.add_widget(w)
    return w


def test_before_attach_the_input_takes_a_message_and_holds_it(window: MainWindow) -> None:
    assert window.input.isEnabled() and window.send_button.isEnabled() and window.settings_button.isEnabled()
    assert window.status.model.text() == "Starting…"

    window.input.setPlainText("hello")
    window.send_button.click()

    assert window.input.toPlainText() == ""
    assert window.send_text("and more") is False  # one message waits; the rest stays in the box
    assert window.send_button.phase == "interrupt"
    assert [(type(w).__name__, w.text()) for w in window.chat.items()] == [("MessageBubble", "hello")]  # type: ignore[attr-defined]


def test_interrupt_drops_a_held_message(window: MainWindow) -> None:
    assert window.send_text("never mind")

    window.send_button.click()  # it says Interrupt
    window.attach(offline_deps())

    assert window.send_button.phase == "send" and window.turn_task is None
    assert [w.text() for w in window.chat.items()] == ["never mind", "Conversation interrupted"]  # type: ignore[attr-defined]


async def test_a_held_message_runs_first_once_attached_below_the_restored_conversation(qtbot: QtBot) -> None:
    from desktop_agent.testing.window_rig import SignalLog

    window = MainWindow(tray=False)
    qtbot.add_widget(window)
    turns = SignalLog(window.turn_finished)
    deps = offline_deps()
    deps.conversation.history.extend(history_items(HISTORY[:2]))
    assert window.send_text("hello")

    window.attach(deps)
    (status,) = await turns.wait_for()

    shown = [w.text() for w in window.chat.items() if hasattr(w, "text")]
    assert status == "completed"
    assert shown[:4] == ["what's the date?", "Let me check.", "Earlier conversation restored", "hello"]
    assert len(shown) > 4  # the demo model's reply
    assert history_json(deps.conversation.history)[2] == {"role": "user", "content": "hello"}
    assert window.send_button.phase == "send"
    await window.shutdown()


def test_settings_asked_for_before_attach_open_once_attached(window: MainWindow) -> None:
    from desktop_agent.ui.settings.dialog import SettingsDialog

    assert window.open_settings() is None
    assert window.findChildren(SettingsDialog) == []

    window.attach(offline_deps())

    [dialog] = window.findChildren(SettingsDialog)
    assert dialog.isVisible()
    dialog.close()


def test_retry_in_the_status_bar_reaches_the_services(window: MainWindow) -> None:
    retried: list[str] = []
    statuses = [ServerStatus("web", "failed", 0, 'mcp server "web" failed to start: boom')]

    def retry(name: str) -> bool:
        retried.append(name)
        return True

    window.attach(replace(offline_deps(), mcp=McpFeature(lambda: statuses, retry=retry)))

    [action] = [a for a in window.status.server_menu(server_views(statuses)[0]).actions() if a.text() == "Retry"]
    action.trigger()

    assert retried == ["web"]


def test_attach_fills_the_status_bar_and_shows_the_start_up_warnings(window: MainWindow) -> None:
    servers = [ServerStatus("time", "ready", 2), ServerStatus("browser", "failed", 0, "exited with code 1")]
    deps = replace(offline_deps(), demo_notice="connect a real one", mcp=McpFeature(lambda: servers),
                   warnings=("settings file was broken",))
    window.attach(deps)
    assert window.input.isEnabled() and window.send_button.isEnabled()
    assert window.status.model.text() == "Demo model (offline) — open Settings to connect a real one"
    assert window.status.model.toolTip() == "connect a real one"
    assert [label.toolTip() for label in window.status.servers] == ["", "exited with code 1"]
    assert [s.caption(ENGLISH) for s in server_views(servers)] == ["MCP time: ready, 2 tools", "MCP browser: failed"]
    assert window.notices.shown() == ["⚠ settings file was broken"]  # the notice line, not a bubble
    assert not any(isinstance(item, MessageBubble) for item in window.chat.items())


def test_a_real_model_shows_its_name(window: MainWindow) -> None:
    window.attach(replace(offline_deps(), model_name="gpt-4o", is_demo=False))
    assert window.status.model.text() == "Model: gpt-4o"


def test_empty_text_is_not_sent(window: MainWindow) -> None:
    window.attach(offline_deps())
    assert window.send_text("   \n") is False
    assert window.chat.items() == []


def test_mute_and_volume_reach_the_sink_and_are_saved(window: MainWindow) -> None:
    sink = FakeSink()
    window.attach(replace(offline_deps(), sink=sink, settings=Settings(volume=0.5, muted=False)))
    assert sink.calls == [("muted", False), ("volume", 0.5)]
    sink.calls.clear()
    window.audio.mute_button.click()
    window.audio.volume.setValue(20)
    assert sink.calls == [("muted", True), ("volume", 0.5), ("muted", True), ("volume", 0.2)]
    saved = SettingsStore().load().settings
    assert (saved.muted, saved.volume) == (True, 0.2)
    assert window.audio.mute_button.toolTip() == "Unmute"


def test_always_allow_is_saved_applied_and_revocable(window: MainWindow) -> None:
    apply = RecordingApplier()
    window.attach(replace(offline_deps(), settings_feature=SettingsFeature(apply)))
    window.set_always_allowed("builtin/run_command", True)
    window.set_always_allowed("math/get_sum", True)
    window.set_always_allowed("builtin/run_command", False)
    assert SettingsStore().load().settings.always_allow == ("math/get_sum",)
    assert window.settings.always_allow == ("math/get_sum",)
    assert [(s.always_allow, key) for s, key in apply.calls] == [
        (("builtin/run_command",), False),
        (("builtin/run_command", "math/get_sum"), False),
        (("math/get_sum",), False),
    ]


def test_a_settings_edit_is_saved_applied_and_the_key_stored(window: MainWindow) -> None:
    keys: list[str | None] = []
    apply = RecordingApplier()
    deps = replace(offline_deps(), key=FixedKey("sk-old"), settings_feature=SettingsFeature(apply, keys.append))
    window.attach(deps)
    dialog = window.open_settings()
    assert dialog is not None and dialog.forget_key.isVisibleTo(dialog)
    assert dialog.api_key.placeholderText() == "a key is stored — type to replace it"
    edited = replace(Settings(), max_steps=4, speak_every_reply=True, approval_timeout_s=60.0)
    window.apply_settings_edit(SettingsEdit(edited, api_key="sk-new"))
    assert keys == ["sk-new"]
    assert SettingsStore().load().settings.max_steps == 4
    window.apply_settings_edit(SettingsEdit(Settings(), forget_api_key=True))
    window.apply_settings_edit(SettingsEdit(replace(Settings(), max_steps=2)))
    assert keys == ["sk-new", None]
    assert apply.calls == [(edited, True), (Settings(), True), (replace(Settings(), max_steps=2), False)]


def test_a_new_endpoint_applies_live_and_a_bad_one_is_reported(window: MainWindow) -> None:
    apply = RecordingApplier(model="gpt-x", error_for="ftp")
    window.attach(replace(offline_deps(), settings_feature=SettingsFeature(apply)))
    window.apply_settings_edit(SettingsEdit(replace(Settings(), base_url="http://h/v1", model="gpt-x")))
    assert window.status.model.text().endswith("gpt-x")
    window.apply_settings_edit(SettingsEdit(replace(Settings(), base_url="ftp://x", model="gpt-x")))
    assert [s.base_url for s, _key in apply.calls] == ["http://h/v1", "ftp://x"]
    bubble = window.chat.items()[-1]
    assert isinstance(bubble, MessageBubble) and bubble.role == "error"
    assert "ftp://x" in bubble.text()


def test_an_unwritable_settings_file_is_reported_in_the_chat(window: MainWindow, tmp_path: Any) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    window.attach(replace(offline_deps(), settings_store=SettingsStore(blocker / "settings.json")))
    window.set_always_allowed("builtin/run_command", True)
    bubble = window.chat.items()[-1]
    assert isinstance(bubble, MessageBubble) and bubble.role == "error"
    assert bubble.text() == "Could not save the settings: a file stands where a folder should be"


def test_interrupt_without_a_turn_does_nothing(window: MainWindow) -> None:
    window.attach(offline_deps())
    window.interrupt()
    assert window.send_button.phase == "send"


HISTORY: list[dict[str, Any]] = [
    {"role": "user", "content": "what's the date?"},
    {"role": "assistant", "content": "<voice>Let me check.</voice>"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "run_command", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "exit code 0\n--- stdout ---\nMon Nov 30"},
    {"role": "assistant", "content": "It is **Monday**."},
]


def _describe(widget: Any) -> tuple[str, str]:
    state = getattr(widget, "state", None)
    text = state.phase if state is not None else widget.text() if hasattr(widget, "text") else ""
    return type(widget).__name__, text


def test_a_restored_conversation_without_a_display_log_shows_cards_not_raw_lines(window: MainWindow) -> None:
    # An older conversation (history only, no display log) still restores as cards.
    deps = offline_deps()
    deps.conversation.history.extend(history_items(HISTORY))
    window.attach(deps)
    assert [_describe(w) for w in window.chat.items()] == [
        ("MessageBubble", "what's the date?"),
        ("MessageBubble", "Let me check."),
        ("ToolCardWidget", "done"),
        ("MessageBubble", "It is **Monday**."),
        ("SystemMessage", "Earlier conversation restored"),
    ]


def test_new_conversation_saves_the_old_one_and_clears_the_view(window: MainWindow, qtbot: QtBot) -> None:
    from desktop_agent.core.conversation import Conversation

    saved: list[Conversation] = []
    base = offline_deps()
    base.conversation.history.extend(history_items(HISTORY))
    fresh = Conversation(base.conversation.agent)
    replaced: list[Conversation] = []

    def new_conversation(old: Conversation) -> Conversation:
        replaced.append(old)
        return fresh

    deps = replace(base, keeper=ConversationKeeper(new_conversation, saved.append))
    window.attach(deps)
    assert window.new_chat_button.isVisibleTo(window)
    assert window.new_conversation()
    assert saved == replaced == [base.conversation]
    assert window.controller is not None and window.controller.conversation is fresh
    qtbot.waitUntil(lambda: window.chat.items() == [], timeout=5000)


def test_without_a_store_there_is_no_new_button(window: MainWindow) -> None:
    window.attach(offline_deps())
    assert not window.new_chat_button.isVisibleTo(window)
    assert not window.new_conversation()


def test_a_long_restored_conversation_draws_only_its_recent_part(window: MainWindow) -> None:
    deps = offline_deps()
    deps.conversation.history.extend(history_items(
        [{"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i}"} for i in range(200)]
    ))
    window.attach(deps)  # not shown: the turns that fill a view of the assumed size
    texts = [w.text() for w in window.chat.items() if hasattr(w, "text")]
    first = int(texts[0].removeprefix("message "))
    assert 100 < first < 196 and first % 2 == 0  # from a user message, and not all 200
    assert texts == [f"message {i}" for i in range(first, 200)] + ["Earlier conversation restored"]
    assert len(deps.conversation.history) == 200
