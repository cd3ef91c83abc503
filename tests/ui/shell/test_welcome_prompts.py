"""The welcome's example prompts suit the model connected: the demo's
scripted ones on the demo model, everyday ones once a real model is
connected (at start, or when Settings connects one), in both languages.
Screenshots: /work/shots26/small/welcome_model_{en,zh}.png."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_agent.services import AppliedSettings
from desktop_agent.testing.window_rig import offline_deps
from desktop_agent.texts import CHINESE, ENGLISH, Texts
from desktop_agent.ui.shell.main_window import MainWindow
from desktop_agent.ui.shell.welcome import WelcomePanel

SHOTS = Path("/work/shots26/small")
DEMO = {"en": ["Take the tour", "What time is it?", "Run `date`", "Ask me something"],
        "zh": ["演示", "现在几点？", "运行 `date`", "问我一些问题"]}
MODEL = {"en": ["What tools can you use here?", "List the files in my home folder",
                "Explain simply how Wi-Fi works", "Help me write a short, polite email"],
         "zh": ["你在这里能用哪些工具？", "列出我主目录里的文件", "用简单的话解释 Wi-Fi 是怎么工作的", "帮我写一封简短、礼貌的邮件"]}


def _window(qtbot: QtBot, *, is_demo: bool, texts: Texts) -> MainWindow:
    window = MainWindow(tray=False)
    qtbot.add_widget(window)
    window.attach(replace(offline_deps(), model_name="demo" if is_demo else "qwen-plus", is_demo=is_demo))
    window.retranslate(texts)
    window.resize(860, 720)
    window.show()
    qtbot.wait_exposed(window)
    return window


def _panel(window: MainWindow) -> WelcomePanel:
    assert window.welcome is not None
    return window.welcome


@pytest.mark.parametrize("texts", [ENGLISH, CHINESE])
def test_a_real_model_offers_everyday_prompts_and_the_demo_its_scripted_ones(
    qtbot: QtBot, tmp_path: Path, texts: Texts
) -> None:
    language = texts.language
    real = _panel(_window(qtbot, is_demo=False, texts=texts))
    assert real.prompt_texts() == MODEL[language]
    assert [b.text() for b in real.prompts] == MODEL[language]
    name = f"welcome_model_{language}.png"
    window = real.window()
    for _ in range(5):
        QApplication.processEvents()
    assert window.grab().save(str(tmp_path / name))
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(tmp_path / name, SHOTS / name)
    demo = _panel(_window(qtbot, is_demo=True, texts=texts))
    assert demo.prompt_texts() == DEMO[language]
    assert [b.text() for b in demo.prompts] == [t.replace("`", "") for t in DEMO[language]]


def test_connecting_a_model_in_settings_changes_the_prompts_and_going_back_to_the_demo_restores_them(
    qtbot: QtBot,
) -> None:
    window = _window(qtbot, is_demo=True, texts=ENGLISH)
    signals = window.turn_signals
    assert signals is not None
    signals.model_changed.emit(AppliedSettings("deepseek-chat", is_demo=False, demo_notice=None))
    panel = _panel(window)
    assert panel.prompt_texts() == MODEL["en"] and not panel.demo.isVisibleTo(panel)
    window.retranslate(CHINESE)
    assert [b.text() for b in panel.prompts] == MODEL["zh"]
    signals.model_changed.emit(AppliedSettings("demo", is_demo=True, demo_notice=None))
    assert panel.prompt_texts() == DEMO["zh"] and panel.demo.isVisibleTo(panel)


def test_a_real_models_prompt_sends_its_own_words(qtbot: QtBot) -> None:
    panel = WelcomePanel(is_demo=False, texts=CHINESE)  # alone: its click sends nothing anywhere
    qtbot.add_widget(panel)
    with qtbot.wait_signal(panel.prompt_chosen, timeout=1000) as chosen:
        panel.prompts[1].click()
    assert chosen.args == ["列出我主目录里的文件"]
    panel.set_demo(True)
    with qtbot.wait_signal(panel.prompt_chosen, timeout=1000) as chosen:
        panel.prompts[1].click()
    assert chosen.args == ["现在几点？"]
