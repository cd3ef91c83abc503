"""Settings → Hooks lists every hook with a switch; broken ones are greyed
with the reason; its changes are saved through the window's one settings
path, and hook messages never show in the chat, restored or not."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from desktop_agent.core.notice import Notice
from desktop_agent.hooks_engine import HookInfo
from desktop_agent.services import AppliedSettings
from desktop_agent.storage.history_json import history_items
from desktop_agent.storage.settings import Settings, SettingsStore
from desktop_agent.testing.window_rig import offline_deps
from desktop_agent.texts import CHINESE, ENGLISH
from desktop_agent.ui.chat.turn_deps import SettingsFeature
from desktop_agent.ui.settings.hooks_page import HooksPage, hook_detail
from desktop_agent.ui.shell.main_window import MainWindow

HOOKS = (
    HookInfo("be-concise", "turn_start", "system", True, False, "bundled"),
    HookInfo("recap", "turn_end", "user", False, True, "user"),
    HookInfo("broken", "sometime", "user", False, False, "user", problem=Notice(
        "hooks file /data/hooks/hooks.json: hook 'broken': prompt file x.md is missing", "hook_problem_prompt_missing",
        {"file": "/data/hooks/hooks.json", "name": "broken", "prompt": "x.md"})),
)


@pytest.fixture
def page(qtbot: QtBot) -> HooksPage:
    widget = HooksPage(HOOKS, texts=ENGLISH, folder="/data/hooks")
    qtbot.add_widget(widget)
    return widget


def texts(widget: Any) -> list[str]:
    from PySide6.QtWidgets import QCheckBox, QLabel

    return [w.text() for kind in (QLabel, QCheckBox) for w in widget.findChildren(kind)]


def test_each_hook_is_listed_with_its_checkpoint_role_lifetime_source_and_switch(page: HooksPage) -> None:
    assert {name: box.isChecked() for name, box in page.boxes.items()} == {"be-concise": False, "recap": True}
    shown = texts(page)
    assert "at the start of a turn · system message · kept in the conversation · bundled" in shown
    assert "at the end of a turn · user message · sent once, then removed · yours" in shown
    assert any("/data/hooks" in text for text in shown)


def test_a_broken_hook_is_greyed_with_its_reason(page: HooksPage) -> None:
    from PySide6.QtWidgets import QCheckBox

    broken = next(b for b in page.findChildren(QCheckBox) if b.text() == "broken")
    assert not broken.isEnabled() and not broken.isChecked()
    assert broken.toolTip() == "Not usable: hooks file /data/hooks/hooks.json: hook 'broken': prompt file x.md is missing"
    assert "broken" not in page.boxes  # nothing to choose


def test_only_the_switches_the_user_changed_are_recorded(page: HooksPage) -> None:
    before = replace(Settings(), hooks_enabled={"elsewhere": True})
    assert page.apply_to(before) is before

    page.boxes["be-concise"].setChecked(True)
    page.boxes["recap"].setChecked(False)

    assert page.choices() == {"be-concise": True, "recap": False}
    assert page.apply_to(before).hooks_enabled == {"elsewhere": True, "be-concise": True, "recap": False}


def test_the_page_speaks_chinese(qtbot: QtBot) -> None:
    page = HooksPage(HOOKS[:1], texts=CHINESE)
    qtbot.add_widget(page)

    assert hook_detail(CHINESE, HOOKS[0]) == "回合开始时 · 系统消息 · 保留在对话中 · 内置"
    assert "没有找到钩子。" not in texts(page)
    empty = HooksPage((), texts=CHINESE)
    qtbot.add_widget(empty)
    assert "没有找到钩子。" in texts(empty)


class Applier:
    def __init__(self) -> None:
        self.calls: list[Settings] = []

    def __call__(self, settings: Settings, *, key_changed: bool = False) -> AppliedSettings:
        self.calls.append(settings)
        return AppliedSettings("demo", True, None)


def test_the_settings_dialog_has_a_hooks_page_saved_through_the_one_settings_path(qtbot: QtBot) -> None:
    window = MainWindow(tray=False)
    qtbot.add_widget(window)
    asked: list[Mapping[str, bool]] = []

    class Hooks:
        def infos(self, choices: Mapping[str, bool] | None = None) -> Sequence[HookInfo]:
            asked.append(dict(choices or {}))
            return HOOKS

    apply = Applier()
    window.attach(replace(offline_deps(), hooks=Hooks(), settings_feature=SettingsFeature(apply), hooks_folder="/data/hooks"))
    dialog = window.open_settings()
    assert dialog is not None
    page = dialog.findChild(HooksPage)
    assert page is not None and asked == [{}]

    page.boxes["be-concise"].setChecked(True)
    dialog._on_ok()

    assert apply.calls[-1].hooks_enabled == {"be-concise": True}
    assert SettingsStore().load().settings.hooks_enabled == {"be-concise": True}


RESTORED: list[dict[str, Any]] = [
    {"role": "user", "content": "hi"},
    {"role": "system", "content": "Be brief.", "_hook": "be-concise"},
    {"role": "user", "content": "Say what the tool showed.", "_hook": "summarise"},
    {"role": "assistant", "content": "Hello."},
]


def test_hook_messages_of_a_restored_conversation_are_not_shown(qtbot: QtBot) -> None:
    window = MainWindow(tray=False)
    qtbot.add_widget(window)
    deps = offline_deps()
    deps.conversation.history.extend(history_items(RESTORED))
    window.attach(deps)

    shown = [w.text() for w in window.chat.items() if hasattr(w, "text")]

    assert shown == ["hi", "Hello.", "Earlier conversation restored"]
